/**
 * Generated line items: those of one invoice, and those across every invoice of a taxpayer. Each
 * embeds a subset of its invoice. Line item `j` of invoice `i` is created 1 + j ms after the
 * invoice, so ids sort by (invoice, j).
 */
import { createRng, hash32, type Rng } from '../random.js';
import { buildInvoice } from './invoices.js';
import { PRODUCTS } from './tables.js';
import type { GeneratedCollection, InvoiceCore, JsonObject, RecordContext } from './types.js';
import { isoDate, KIND, money, newId, SPAN_END } from './values.js';

/** Line items of invoice `i` of taxpayer `t`: 1..2×avg−1, or 0 when the average is 0. */
function lineCount(ctx: RecordContext, t: number, i: number): number {
  const avg = ctx.averageLines;
  return avg === 0 ? 0 : 1 + (hash32(ctx.seed, KIND.lineCount, t, i) % (2 * avg - 1));
}

/** The subset of an invoice a line item embeds. */
function embedded(inv: InvoiceCore): JsonObject {
  return {
    '@id': `/invoices/${inv.id}`,
    '@type': 'Invoice',
    id: inv.id,
    uuid: inv.uuid,
    type: inv.obj.type!,
    issuedAt: inv.obj.issuedAt!,
    total: inv.total,
    status: inv.obj.status!,
  };
}

/** Builds a line item of `inv` with id `id`, created at `ts` (epoch ms). */
function buildLineItem(inv: InvoiceCore, rng: Rng, id: string, ts: number): JsonObject {
  const product = rng.pick(PRODUCTS);
  const quantity = 1 + rng.int(rng.next() < 0.7 ? 3 : 40);
  const unitCents = Math.round(product.cents * (0.8 + rng.next() * 0.4));
  const totalCents = unitCents * quantity;
  const discountCents = rng.next() < 0.1 ? Math.round(totalCents * 0.05) : 0;
  const vatCents = Math.round((totalCents - discountCents) * 0.16);
  const retainedIncome = product.unit === 'E48' && rng.next() < 0.3 ? Math.round(totalCents * 0.1) : 0;
  return {
    '@id': `/invoices/line-items/${id}`,
    '@type': 'InvoiceLineItem',
    id,
    invoice: embedded(inv),
    identificationNumber: product.id,
    productIdentification: product.code,
    description: product.description,
    unitAmount: money(unitCents),
    unitCode: product.unit,
    quantity,
    discountAmount: money(discountCents),
    totalAmount: money(totalCents),
    retainedTaxes: { valueAddedTax: 0, incomeTax: money(retainedIncome), sinTax: 0 },
    transferredTaxes: { valueAddedTax: money(vatCents), sinTax: 0 },
    taxes: [{ type: 'transferred', tax: '002', factor: { type: 'Tasa', amount: 0.16 }, amount: money(vatCents) }],
    createdAt: isoDate(ts),
    updatedAt: isoDate(ts),
  };
}

/** Creation time of line item `j` of invoice `i` of taxpayer `t`, epoch ms. */
const lineTime = (ctx: RecordContext, t: number, i: number, j: number): number => ctx.invoiceTime(KIND.invoice, t, i) + 1 + j;
const lineId = (ctx: RecordContext, t: number, i: number, j: number): string =>
  newId(lineTime(ctx, t, i, j), createRng(hash32(ctx.seed, KIND.lineItem, t, i, 1000 + j)));
const lineItem = (ctx: RecordContext, t: number, i: number, j: number): JsonObject =>
  buildLineItem(ctx.invoices(t).core(i), createRng(hash32(ctx.seed, KIND.lineItem, t, i, j)), lineId(ctx, t, i, j), lineTime(ctx, t, i, j));

/**
 * The invoice line items inserted at run time refer to when their invoice is not a generated one:
 * the newest generated invoice, or a made-up one when the taxpayer has none.
 */
export function insertedParent(ctx: RecordContext, t: number): InvoiceCore {
  const inv = ctx.invoices(t);
  if (inv.count > 0) return inv.core(inv.count - 1);
  return buildInvoice(ctx, t, createRng(hash32(ctx.seed, KIND.inserted, t)), newId(SPAN_END, createRng(1)), SPAN_END, 0);
}

/** Line items of invoice `i` of taxpayer `t`, or of an inserted invoice when `i` is -1 (none then). */
export function createInvoiceLineItems(ctx: RecordContext, t: number, i: number): GeneratedCollection {
  const inv = ctx.invoices(t);
  const count = i < 0 ? 0 : lineCount(ctx, t, i);
  return {
    count,
    context: '/contexts/InvoiceLineItem',
    id: (j) => lineId(ctx, t, i, j),
    timestamp: (j) => lineTime(ctx, t, i, j),
    item: (j) => lineItem(ctx, t, i, j),
    make: (id, ts, serial) =>
      buildLineItem(
        i < 0 || inv.count === 0 ? insertedParent(ctx, t) : inv.core(i),
        createRng(hash32(ctx.seed, KIND.inserted, t, serial, 3)),
        id,
        ts,
      ),
    filters: [],
  };
}

/**
 * Line items across every generated invoice of taxpayer `t`, ordered by line item id. Builds the
 * prefix sums of line counts at once (8 bytes per invoice); item `k` is found by binary search.
 */
export function createTaxpayerLineItems(ctx: RecordContext, t: number): GeneratedCollection {
  const n = ctx.invoiceCount;
  const starts = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) starts[i + 1] = starts[i]! + lineCount(ctx, t, i);
  const locate = (k: number): [number, number] => {
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= k) lo = mid;
      else hi = mid - 1;
    }
    return [lo, k - starts[lo]!];
  };
  return {
    count: starts[n]!,
    context: '/contexts/InvoiceLineItem',
    id: (k) => lineId(ctx, t, ...locate(k)),
    timestamp: (k) => lineTime(ctx, t, ...locate(k)),
    item: (k) => lineItem(ctx, t, ...locate(k)),
    make: (id, ts, serial) => buildLineItem(insertedParent(ctx, t), createRng(hash32(ctx.seed, KIND.inserted, t, serial, 4)), id, ts),
    filters: [],
  };
}
