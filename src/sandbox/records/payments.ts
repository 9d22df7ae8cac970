/**
 * Generated payments of a taxpayer's invoices. Each pays a third of a seeded invoice in one of
 * three installments; amounts are negative for expenses (the API documentation: a payment of an
 * invoice the taxpayer received and paid is an expense).
 */
import { createRng, hash32, hashString, uuidV4, type Rng } from '../random.js';
import { insertedParent } from './line-items.js';
import type { GeneratedCollection, JsonObject, RecordContext } from './types.js';
import { DAY, isoDate, KIND, money, newId } from './values.js';

/** Payer banks of embedded batch payments: RFC and name. */
const BANKS: ReadonlyArray<readonly [string, string]> = [
  ['BBA830831LJ2', 'BBVA MEXICO'],
  ['BNM840515VB1', 'BANAMEX'],
  ['BMN930209927', 'BANORTE'],
  ['BSM970519DU8', 'BANCO SANTANDER MEXICO'],
];

/**
 * The batch payment a payment belongs to, embedded as the real service sends it. Its values are
 * drawn from its own id, so the payment's other fields are those of the IRI shape.
 */
function batchPayment(id: string, amount: number, currency: string, ts: number): JsonObject {
  const rng = createRng(hashString(id));
  const [rfc, name] = rng.pick(BANKS);
  return {
    '@id': `/invoices/batch-payments/${id}`,
    '@type': 'BatchPayment',
    id,
    date: isoDate(ts),
    paymentMethod: '03',
    currency,
    amount,
    operationNumber: String(100_000_000 + rng.int(900_000_000)),
    payerBank: { rfc, name },
  };
}

/** Builds a payment of taxpayer `t` with id `id`, created at `ts` (epoch ms). */
function buildPayment(ctx: RecordContext, t: number, rng: Rng, id: string, ts: number): JsonObject {
  const inv = ctx.invoices(t);
  const core = inv.count > 0 ? inv.core(rng.int(inv.count)) : insertedParent(ctx, t);
  const installment = 1 + rng.int(3);
  const baseCents = Math.max(100, core.totalCents);
  const previousCents = Math.round((baseCents * (4 - installment)) / 3);
  const paidCents = Math.round(baseCents / 3);
  // Negative for expenses: the taxpayer received the invoice and paid it.
  const sign = core.isIssuer ? 1 : -1;
  const batchId = uuidV4(rng);
  return {
    '@id': `/invoices/payments/${id}`,
    '@type': 'InvoicePayment',
    id,
    invoiceUuid: core.uuid,
    currency: core.currency,
    exchangeRate: core.exchangeRate,
    installment,
    previousBalance: money(previousCents),
    amount: money(sign * paidCents),
    outstandingBalance: money(Math.max(0, previousCents - paidCents)),
    invoice: `/invoices/${core.id}`,
    batchPayment:
      ctx.shapes.batchPayment === 'object'
        ? batchPayment(batchId, money(sign * paidCents), core.currency, ts)
        : `/invoices/batch-payments/${batchId}`,
    canceledAt: rng.next() < 0.03 ? isoDate(ts + DAY) : null,
    createdAt: isoDate(ts),
    updatedAt: isoDate(ts),
  };
}

/** The generated payments of taxpayer `t` (uncached: `createDataset` caches them). */
export function createPaymentCollection(ctx: RecordContext, t: number): GeneratedCollection {
  const { seed } = ctx;
  const ts = (k: number): number => ctx.paymentTime(KIND.payment, t, k);
  const id = (k: number): string => newId(ts(k), createRng(hash32(seed, KIND.payment, t, k, 1)));
  return {
    count: ctx.paymentCount,
    context: '/contexts/InvoicePayment',
    id,
    timestamp: ts,
    item: (k) => buildPayment(ctx, t, createRng(hash32(seed, KIND.payment, t, k, 2)), id(k), ts(k)),
    make: (newIdValue, tsMs, serial) => buildPayment(ctx, t, createRng(hash32(seed, KIND.inserted, t, serial, 5)), newIdValue, tsMs),
    filters: [],
  };
}

/**
 * Every taxpayer's payments: payment `k` of each, in id order, before any payment `k + 1` (one
 * timeline, jitter under a quarter step, so ids still grow with the index).
 */
export function createOrganisationPaymentCollection(ctx: RecordContext, paymentsOf: (t: number) => GeneratedCollection): GeneratedCollection {
  const turns = ctx.taxpayers.length;
  let last: { k: number; order: number[] } | undefined;
  const orderOf = (k: number): number[] => {
    if (last?.k !== k) {
      const ids = Array.from({ length: turns }, (_, t) => paymentsOf(t).id(k));
      last = { k, order: ids.map((_, t) => t).sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1)) };
    }
    return last.order;
  };
  const at = (g: number): [GeneratedCollection, number] => {
    const k = Math.floor(g / turns);
    return [paymentsOf(orderOf(k)[g % turns]!), k];
  };
  return {
    count: ctx.paymentCount * turns,
    context: '/contexts/InvoicePayment',
    id: (g) => {
      const [c, k] = at(g);
      return c.id(k);
    },
    timestamp: (g) => {
      const [c, k] = at(g);
      return c.timestamp(k);
    },
    item: (g) => {
      const [c, k] = at(g);
      return c.item(k);
    },
    make: (newIdValue, tsMs, serial) =>
      buildPayment(ctx, serial % turns, createRng(hash32(ctx.seed, KIND.inserted, turns + 1, serial, 5)), newIdValue, tsMs),
    filters: [],
  };
}
