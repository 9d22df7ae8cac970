/**
 * Generated invoices of a taxpayer, with nested issuer and receiver, relations (credit notes),
 * tags and payment state. Every value is drawn from one seeded generator per invoice, in a fixed
 * order, so invoice `i` is a pure function of (seed, taxpayer, i).
 */
import { createRng, hash32, uuidV4, type Rng } from '../random.js';
import { INVOICE_TAGS, PACS, POSTAL_CODES, REFERENCES, SAMPLE_INVOICE_ID } from './tables.js';
import type { InvoiceCollection, InvoiceCore, JsonObject, JsonValue, Party, RecordContext } from './types.js';
import { DAY, isoDate, KIND, money, newId } from './values.js';
import { JsonNumberLiteral } from '../wire.js';

/** Creation time of the sample invoice: the timestamp of its UUIDv7 (the first 48 bits), epoch ms. */
export const SAMPLE_INVOICE_TIME = parseInt(SAMPLE_INVOICE_ID.slice(0, 8) + SAMPLE_INVOICE_ID.slice(9, 13), 16);

/** Index of the invoice of taxpayer `t` that is {@link SAMPLE_INVOICE_ID} (the first taxpayer's newest), or -1. */
export function sampleInvoiceIndex(t: number, count: number): number {
  return t === 0 ? count - 1 : -1;
}

/** The drawn facts of an invoice, before it is written out. */
interface InvoiceTerms {
  issuer: Party;
  receiver: Party;
  isIssuer: boolean;
  /** CFDI type: `I` income, `E` credit note, `P` payment, `N` payroll, `T` transfer. */
  type: string;
  /** Paid in installments (PPD) rather than at once (PUE). */
  ppd: boolean;
  usd: boolean;
  subtotalCents: number;
  discountCents: number;
  taxCents: number;
  totalCents: number;
  canceled: boolean;
  issuedAt: number;
  certifiedAt: number;
  paidShare: number;
  paidCents: number;
  paidAt: number | null;
  updatedAt: number;
}

/** Draws the parties, type, amounts and dates of an invoice created at `ts` (epoch ms). */
function drawTerms(ctx: RecordContext, t: number, rng: Rng, ts: number): InvoiceTerms {
  const { counterparties } = ctx;
  const me = ctx.taxpayers[t]!;
  let other = rng.pick(counterparties);
  if (other.rfc === me.rfc) other = counterparties[(counterparties.indexOf(other) + 1) % counterparties.length]!;
  const isIssuer = rng.next() < 0.6;
  const r = rng.next();
  const type = r < 0.7 ? 'I' : r < 0.8 ? 'E' : r < 0.92 ? 'P' : r < 0.97 ? 'N' : 'T';
  const ppd = type === 'I' && rng.next() < 0.4;
  const usd = rng.next() < 0.1;
  const subtotalCents = type === 'P' || type === 'T' ? 0 : 10_000 + rng.int(25_000_000);
  const discountCents = rng.next() < 0.15 ? Math.round(subtotalCents * 0.05) : 0;
  const taxCents = type === 'N' ? 0 : Math.round((subtotalCents - discountCents) * 0.16);
  const totalCents = subtotalCents - discountCents + taxCents;
  const canceled = rng.next() < 0.08;
  const issuedAt = ts - rng.int(2 * DAY);
  const certifiedAt = issuedAt + 1000 + rng.int(30_000);
  const paidShare = type !== 'I' ? 0 : ppd ? rng.pick([0, 0.5, 1]) : 1;
  const paidCents = Math.round(totalCents * paidShare);
  const paidAt = paidShare > 0 ? ts + (ppd ? rng.int(20 * DAY) : 0) : null;
  const updatedAt = Math.max(ts, paidAt ?? ts) + rng.int(DAY);
  const issuer = isIssuer ? me : other;
  const receiver = isIssuer ? other : me;
  return {
    issuer,
    receiver,
    isIssuer,
    type,
    ppd,
    usd,
    subtotalCents,
    discountCents,
    taxCents,
    totalCents,
    canceled,
    issuedAt,
    certifiedAt,
    paidShare,
    paidCents,
    paidAt,
    updatedAt,
  };
}

/** The `relations` of an invoice: one related invoice for a credit note (`E`), else none. */
function relationsOf(rng: Rng, type: string, id: string, ts: number): JsonValue[] {
  if (type !== 'E') return [];
  const relId = newId(ts + 1, rng);
  return [
    {
      '@id': `/invoices/relations/${relId}`,
      '@type': 'InvoiceRelation',
      id: relId,
      type: 1,
      invoice: `/invoices/${id}`,
      relatedInvoice: null,
      relatedInvoiceUuid: uuidV4(rng),
      createdAt: isoDate(ts + 1),
      updatedAt: isoDate(ts + 1),
    },
  ];
}

/** The `tags` of an invoice: one in seven or so carries a tag, created when it was last updated. */
function tagsOf(rng: Rng, updatedAt: number): JsonValue[] {
  if (!(rng.next() < 0.15)) return [];
  const tag = rng.pick(INVOICE_TAGS);
  const tagId = newId(updatedAt, rng);
  return [
    {
      '@id': `/tags/${tagId}`,
      '@type': 'Tag',
      id: tagId,
      name: tag.name,
      resourceType: 'invoice',
      color: tag.color,
      createdAt: isoDate(updatedAt),
      updatedAt: isoDate(updatedAt),
    },
  ];
}

/** The enumerated invoice filters (the API documentation, filters): another value is answered 422. */
const INVOICE_CHOICES = { type: ['I', 'E', 'P', 'N', 'T'], status: ['VIGENTE', 'CANCELADO'], paymentType: ['PUE', 'PPD'] } as const;

/** 2^53: the first integer past which a double skips integers. */
const TWO_53 = 2n ** 53n;

/**
 * The tax authority's numeric folio of an invoice: a 64-bit integer between 2^53 and 2^61, odd so
 * that no double holds it exactly (a client that parses it into a JS number loses its last digits).
 * Drawn from the folio UUID's last 15 hex digits, so it costs no draw of the invoice's generator.
 */
function satFolioOf(uuid: string): JsonNumberLiteral {
  return new JsonNumberLiteral(String((TWO_53 + BigInt(`0x${uuid.replaceAll('-', '').slice(-15)}`)) | 1n));
}

/** `exchangeRate` as the service holds it: a float, so MXN's rate of one is written `1.0` (PHP's JSON_PRESERVE_ZERO_FRACTION). */
const ONE = new JsonNumberLiteral('1.0');

/** The invoice's fields from `@id` to `isReceiver` (identity, usage, payment terms, parties). */
function headFields(rng: Rng, terms: InvoiceTerms, id: string, uuid: string, serial: number): JsonObject {
  const { type, ppd, issuer, receiver, isIssuer } = terms;
  const blacklist = (): string | null => (rng.next() < 0.05 ? rng.pick(['presumed', 'definitive']) : null);
  return {
    '@id': `/invoices/${id}`,
    '@type': 'Invoice',
    id,
    uuid,
    satFolio: satFolioOf(uuid),
    version: 4,
    reference: rng.pick(REFERENCES),
    internalIdentifier: `${type === 'E' ? 'NC' : 'A'}-${10_000 + serial}`,
    type,
    usage: type === 'E' ? 'G02' : type === 'P' ? 'CP01' : type === 'N' ? 'CN01' : rng.pick(['G01', 'G03', 'S01']),
    paymentType: type === 'I' || type === 'E' ? (ppd ? 'PPD' : 'PUE') : null,
    paymentMethod: ppd ? '99' : type === 'I' || type === 'E' ? rng.pick(['01', '03', '04', '28']) : null,
    paymentTerms: ppd ? rng.pick(['net_15', 'net_30', 'net_60']) : type === 'I' ? 'immediate_payment' : null,
    paymentTermsRaw: ppd && rng.next() < 0.5 ? 'Crédito a 30 días' : null,
    placeOfIssue: rng.pick(POSTAL_CODES),
    issuer: { rfc: issuer.rfc, name: issuer.name, taxRegime: issuer.taxRegime, blacklistStatus: blacklist() },
    isIssuer,
    receiver: { rfc: receiver.rfc, name: receiver.name, blacklistStatus: blacklist() },
    isReceiver: !isIssuer,
  };
}

/** The invoice's fields from `currency` to `updatedAt` (amounts, status, dates, attachments). */
function tailFields(
  rng: Rng,
  terms: InvoiceTerms,
  exchangeRate: number | JsonNumberLiteral | null,
  extras: { relations: JsonValue[]; tags: JsonValue[]; ts: number },
): JsonObject {
  const { type, totalCents, paidCents, paidAt, paidShare, canceled, updatedAt } = terms;
  return {
    currency: terms.usd ? 'USD' : 'MXN',
    discount: money(terms.discountCents),
    tax: money(terms.taxCents),
    subtotal: money(terms.subtotalCents),
    creditedAmount: null,
    subtotalCreditedAmount: null,
    total: money(totalCents),
    exchangeRate,
    paidAmount: money(paidCents),
    dueAmount: type === 'I' ? money(totalCents - paidCents) : 0,
    lastPaymentDate: paidAt === null ? null : isoDate(paidAt),
    fullyPaidAt: paidShare === 1 && paidAt !== null ? isoDate(paidAt) : null,
    status: canceled ? 'CANCELADO' : 'VIGENTE',
    pac: rng.pick(PACS),
    issuedAt: isoDate(terms.issuedAt),
    certifiedAt: isoDate(terms.certifiedAt),
    cancellationStatus: canceled ? 'Cancelado sin aceptación' : rng.pick(['Cancelable con aceptación', 'Cancelable sin aceptación', 'No cancelable']),
    cancellationProcessStatus: null,
    canceledAt: canceled ? isoDate(updatedAt) : null,
    relations: extras.relations,
    xml: true,
    pdf: rng.next() < 0.5,
    tags: extras.tags,
    createdAt: isoDate(extras.ts),
    updatedAt: isoDate(updatedAt),
  };
}

/**
 * Builds an invoice of taxpayer `t`.
 * @param rng the invoice's own generator (its draws are consumed in a fixed order)
 * @param id the invoice's UUIDv7 id
 * @param ts creation time, epoch ms
 * @param serial numbers `internalIdentifier` (`A-10000` + serial)
 */
export function buildInvoice(ctx: RecordContext, t: number, rng: Rng, id: string, ts: number, serial: number): InvoiceCore {
  const terms = drawTerms(ctx, t, rng, ts);
  const uuid = uuidV4(rng);
  const exchangeRate = terms.usd ? Math.round((16.5 + rng.next() * 3) * 10_000) / 10_000 : null;
  const relations = relationsOf(rng, terms.type, id, ts);
  const tags = tagsOf(rng, terms.updatedAt);
  const head = headFields(rng, terms, id, uuid, serial);
  // CFDI 4.0 states a rate on income invoices in pesos too (TipoCambio 1); other MXN invoices carry none.
  const rate = exchangeRate ?? (terms.type === 'I' ? ONE : null);
  const obj: JsonObject = { ...head, ...tailFields(rng, terms, rate, { relations, tags, ts }) };
  const { totalCents, isIssuer } = terms;
  return { obj, id, uuid, total: money(totalCents), totalCents, isIssuer, currency: obj.currency as string, exchangeRate };
}

/**
 * The `reference` of the `oddText` invoice: a NUL (`\u0000`, which PostgreSQL's `jsonb` refuses)
 * and a lone high surrogate (`\ud800`, not text in any Unicode encoding), both valid JSON escapes.
 */
const ODD_TEXT = 'odd\u0000text\ud800';

/** The invoice (by index) that carries {@link ODD_TEXT} with the `oddText` shape. */
const ODD_INVOICE = 2;

/**
 * The generated invoices of taxpayer `t` (uncached: `ctx.invoices` caches them). The last built
 * invoice is remembered, since its line items and payments ask for it again at once.
 */
export function createInvoiceCollection(ctx: RecordContext, t: number): InvoiceCollection {
  const { seed, invoiceCount } = ctx;
  const ts = (i: number): number => ctx.invoiceTime(KIND.invoice, t, i);
  const sample = sampleInvoiceIndex(t, invoiceCount);
  const id = (i: number): string => (i === sample ? SAMPLE_INVOICE_ID : newId(ts(i), createRng(hash32(seed, KIND.invoice, t, i, 1))));
  let last: { i: number; core: InvoiceCore } | undefined;
  const core = (i: number): InvoiceCore => {
    if (last?.i === i) return last.core;
    const value = buildInvoice(ctx, t, createRng(hash32(seed, KIND.invoice, t, i, 2)), id(i), ts(i), i);
    last = { i, core: value };
    return value;
  };
  return {
    count: invoiceCount,
    context: '/contexts/Invoice',
    id,
    timestamp: ts,
    item: (i) => (ctx.shapes.oddText === true && i === ODD_INVOICE ? { ...core(i).obj, reference: ODD_TEXT } : core(i).obj),
    core,
    make: (newIdValue, tsMs, serial) =>
      buildInvoice(ctx, t, createRng(hash32(seed, KIND.inserted, t, serial, 2)), newIdValue, tsMs, invoiceCount + serial).obj,
    filters: ['status', 'type', 'currency', 'paymentType'],
    dateFilters: ['createdAt', 'updatedAt', 'issuedAt'],
    numericFilters: ['total', 'subtotal', 'tax', 'discount', 'paidAmount', 'dueAmount'],
    choices: INVOICE_CHOICES,
    orderFields: ['issuedAt'],
  };
}
