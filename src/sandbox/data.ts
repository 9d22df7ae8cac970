/**
 * Seeded records of the sandbox, shaped like the API documentation's sample records: invoices
 * with nested issuer/receiver, line items that embed a subset of their invoice, payments
 * (negative amounts for expenses), entities with taxpayer/credential, events with
 * `data.object`/`data.changes`. The generators live in records/.
 *
 * Nothing is built up front: item `i` of a collection is a pure function of (seed, collection,
 * i), so a taxpayer with a million invoices costs nothing until a page is asked for. Ids are
 * UUIDv7-shaped with a timestamp that grows with `i`, so "newest first" is "id descending".
 */
import { hash32 } from './random.js';
import { createEntityCollection } from './records/entities.js';
import { createEventCollection, createTaxpayerEventCollection } from './records/events.js';
import { createInvoiceCollection, SAMPLE_INVOICE_TIME, sampleInvoiceIndex } from './records/invoices.js';
import { createInvoiceLineItems, createTaxpayerLineItems } from './records/line-items.js';
import { buildParty } from './records/parties.js';
import { createOrganisationPaymentCollection, createPaymentCollection } from './records/payments.js';
import { PARTY_TEMPLATES } from './records/tables.js';
import type { DataSizes, GeneratedCollection, InvoiceCollection, Party, RecordContext, RecordShapes, Timeline } from './records/types.js';
import { DAY, MAX_LINE_ITEMS_AVG, SPAN_END, SPAN_MS } from './records/values.js';

export type { DataSizes, GeneratedCollection, JsonObject, JsonValue, Party, RecordShapes } from './records/types.js';

/** The generated world of one seed: taxpayers and their collections. */
export interface Dataset {
  readonly seed: number;
  readonly sizes: DataSizes;
  /** The generated taxpayers, in order. */
  readonly taxpayers: readonly Party[];
  /** Index of a taxpayer by RFC, or -1. */
  taxpayerIndex(rfc: string): number;
  entities(): GeneratedCollection;
  events(): GeneratedCollection;
  invoices(taxpayer: number): GeneratedCollection;
  /** Line items across every generated invoice of a taxpayer (ordered by line item id). */
  taxpayerLineItems(taxpayer: number): GeneratedCollection;
  /** Line items of one invoice, or of an inserted invoice when `invoiceIndex` is -1 (none then). */
  invoiceLineItems(taxpayer: number, invoiceIndex: number): GeneratedCollection;
  payments(taxpayer: number): GeneratedCollection;
  organisationPayments(): GeneratedCollection;
  taxpayerEvents(taxpayer: number): GeneratedCollection;
  /** Entity `i` is taxpayer `i`'s; -1 for another id. */
  entityTaxpayer(entityId: string): number;
}

/**
 * Evenly spread timestamps of `count` items ending at `end` (epoch ms) over `span` ms, at least
 * 1 s apart, each jittered by less than a quarter step.
 */
function spread(seed: number, count: number, end: number, span: number): Timeline {
  const step = Math.max(1000, Math.floor(span / Math.max(1, count)));
  const start = end - count * step;
  return (kind, t, i) => start + i * step + (hash32(seed, kind, t, i, 99) % Math.floor(step / 4));
}

/** Memoises `make` per key. */
function memo<T>(make: (key: number) => T): (key: number) => T {
  const cache = new Map<number, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = make(key);
      cache.set(key, value);
    }
    return value;
  };
}

/** Builds the parties (at once: a few dozen) and the shared context of the generators. */
function createRecordContext(seed: number, sizes: DataSizes, shapes: RecordShapes): RecordContext {
  const taken = new Set<string>();
  const taxpayerCount = Math.max(1, Math.floor(sizes.taxpayers));
  const partyCount = Math.max(taxpayerCount, PARTY_TEMPLATES.length);
  const parties: Party[] = [];
  for (let i = 0; i < partyCount; i++) parties.push(buildParty(seed, i, taken));
  const invoiceCount = Math.max(0, Math.floor(sizes.invoicesPerTaxpayer));
  const paymentCount = Math.max(0, Math.floor(sizes.paymentsPerTaxpayer));
  const invoiceTime = spread(seed, invoiceCount, SPAN_END, SPAN_MS);
  const ctx: RecordContext = {
    seed,
    sizes,
    shapes,
    taxpayers: parties.slice(0, taxpayerCount),
    counterparties: parties.slice(0, PARTY_TEMPLATES.length),
    partyCount,
    taken,
    invoiceCount,
    averageLines: Math.min(MAX_LINE_ITEMS_AVG, Math.max(0, Math.floor(sizes.lineItemsPerInvoice))),
    paymentCount,
    invoiceTime: (kind, t, i) => (i === sampleInvoiceIndex(t, invoiceCount) ? SAMPLE_INVOICE_TIME : invoiceTime(kind, t, i)),
    paymentTime: spread(seed, paymentCount, SPAN_END, SPAN_MS),
    entityTime: spread(seed, Math.max(0, sizes.entities), Date.UTC(2024, 2, 1), 365 * DAY),
    eventTime: spread(seed, Math.max(0, sizes.events), Date.UTC(2024, 3, 16), 7 * DAY),
    invoices: memo((t): InvoiceCollection => createInvoiceCollection(ctx, t)),
  };
  return ctx;
}

/**
 * Creates the dataset of a seed. Taxpayer and counterparty RFCs are generated at once (a few
 * dozen); every other record lazily, and each collection object once.
 */
export function createDataset(seed: number, sizes: DataSizes, shapes: RecordShapes = { batchPayment: 'iri' }): Dataset {
  const ctx = createRecordContext(seed, sizes, shapes);
  const byRfc = new Map(ctx.taxpayers.map((p, i) => [p.rfc, i]));
  let entities: GeneratedCollection | undefined;
  let events: GeneratedCollection | undefined;
  let organisationPayments: GeneratedCollection | undefined;
  const payments = memo((t) => createPaymentCollection(ctx, t));
  const entityCollection = (): GeneratedCollection => (entities ??= createEntityCollection(ctx));
  return {
    seed,
    sizes,
    taxpayers: ctx.taxpayers,
    taxpayerIndex: (rfc) => byRfc.get(rfc) ?? -1,
    entities: entityCollection,
    events: () => (events ??= createEventCollection(ctx)),
    invoices: (t) => ctx.invoices(t),
    taxpayerLineItems: memo((t) => createTaxpayerLineItems(ctx, t)),
    invoiceLineItems: (t, i) => createInvoiceLineItems(ctx, t, i),
    payments,
    organisationPayments: () => (organisationPayments ??= createOrganisationPaymentCollection(ctx, payments)),
    taxpayerEvents: memo((t) => createTaxpayerEventCollection(ctx, t)),
    entityTaxpayer: (entityId) => {
      const all = entityCollection();
      for (let i = 0; i < Math.min(all.count, ctx.taxpayers.length); i++) if (all.id(i) === entityId) return i;
      return -1;
    },
  };
}
