/** Test fixtures shaped like the real service's records (record-samples.md), values invented. */

/** A PPD income invoice, half paid, empty tags. */
export const invoiceA = {
  '@id': '/invoices/3f6c2a8e-9b1d-4c57-8e2a-6d0b4f19a7c3',
  '@type': 'Invoice',
  id: '3f6c2a8e-9b1d-4c57-8e2a-6d0b4f19a7c3',
  version: 4.0,
  reference: 'SUC-NORTE',
  type: 'I',
  paymentTermsRaw: 'Crédito a 30 días',
  issuer: { rfc: 'DMO140312KT5', name: 'DISTRIBUIDORA DEL MONTE SA DE CV', taxRegime: 601, blacklistStatus: null },
  isIssuer: true,
  receiver: { rfc: 'CVA0907219N4', name: 'COMERCIALIZADORA DEL VALLE SA DE CV', blacklistStatus: null },
  total: 23200.0,
  creditedAmount: null,
  relations: [],
  xml: true,
  pdf: false,
  tags: [],
};

/** A credit note with a relation and a tag, and a receiver with an accented name. */
export const invoiceB = {
  '@id': '/invoices/d41b7f20-6c3e-4a9b-b1f5-8e27c9a04d16',
  '@type': 'Invoice',
  id: 'd41b7f20-6c3e-4a9b-b1f5-8e27c9a04d16',
  version: 4.0,
  reference: null,
  type: 'E',
  paymentTermsRaw: null,
  issuer: { rfc: 'DMO140312KT5', name: 'DISTRIBUIDORA DEL MONTE SA DE CV', taxRegime: 601, blacklistStatus: null },
  isIssuer: true,
  receiver: { rfc: 'GOMA850614QM2', name: 'ALEJANDRA GONZÁLEZ MÁRQUEZ', blacklistStatus: 'presumed' },
  total: 1160.0,
  creditedAmount: null,
  relations: [{ '@type': 'InvoiceRelation', id: '7a2c91d4', type: 1, relatedInvoice: null }],
  xml: true,
  pdf: true,
  tags: [{ '@type': 'Tag', name: 'Revisar', color: '#f59e0b' }],
};

/** n invoices with varied values (ids, amounts, some negatives, unicode, quotes and commas). */
export function manyInvoices(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const base = i % 2 === 0 ? invoiceA : invoiceB;
    out.push({
      ...base,
      id: `inv-${i}`,
      total: i % 5 === 0 ? -(i + 1) * 1.5 : i * 100.25,
      reference: i % 7 === 0 ? `ref "${i}", ñ ✓\nline` : base.reference,
      issuer: { ...base.issuer, name: `Emisor ${i} 日本` },
    });
  }
  return out;
}

/** Splits items into consecutive pages at the given sizes (the rest in a last page). */
export function paginate<T>(items: readonly T[], sizes: readonly number[]): T[][] {
  const pages: T[][] = [];
  let at = 0;
  for (const size of sizes) {
    pages.push(items.slice(at, at + size));
    at += size;
  }
  if (at < items.length) pages.push(items.slice(at));
  return pages;
}
