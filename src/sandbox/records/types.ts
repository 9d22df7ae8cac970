/**
 * Shapes shared by the record generators of the sandbox: JSON values, parties, generated
 * collections, and the {@link RecordContext} every generator reads its seed, sizes and
 * neighbours from.
 */
import type { JsonNumberLiteral } from '../wire.js';

/** Resolved collection sizes (see `SandboxOptions.sizes`). */
export interface DataSizes {
  entities: number;
  events: number;
  taxpayers: number;
  invoicesPerTaxpayer: number;
  /** Average; each invoice has 1..2×avg−1 line items (0 when the average is 0). Capped at 200. */
  lineItemsPerInvoice: number;
  paymentsPerTaxpayer: number;
}

/** A taxpayer or counterparty: RFC (12 characters for companies, 13 for persons), name and regime. */
export interface Party {
  rfc: string;
  name: string;
  personType: 'legal' | 'physical';
  /** `YYYY-MM-DD`, matching the RFC's date part. */
  registrationDate: string;
  taxRegime: number;
}

/** A JSON object as the generators build it. */
export type JsonObject = { [key: string]: JsonValue };
/** A JSON value; a {@link JsonNumberLiteral} is a number written verbatim (a 64-bit integer, `1.0`). */
export type JsonValue = string | number | JsonNumberLiteral | boolean | null | JsonValue[] | JsonObject;

/**
 * A collection whose items are generated on demand. Item ids strictly increase with the index, so
 * the API order (newest first) is index descending.
 */
export interface GeneratedCollection {
  /** Number of generated items. */
  readonly count: number;
  /** `@context` of the collection envelope, e.g. `/contexts/Invoice`. */
  readonly context: string;
  /** Id of item `i` (0 ≤ i < count); strictly increasing with `i`. */
  id(i: number): string;
  /** Timestamp of item `i`, epoch ms (the id's UUIDv7 timestamp). */
  timestamp(i: number): number;
  /** Item `i` as an object. */
  item(i: number): JsonObject;
  /**
   * A new item for insertion at run time, with the given id and creation time.
   * @param serial how many items were inserted into this collection before (seeds the content)
   */
  make(id: string, timestampMs: number, serial: number): JsonObject;
  /** Query parameters this collection filters on exactly (e.g. `status`, `type`); others are ignored. */
  readonly filters: readonly string[];
  /**
   * Date fields with range filters (`createdAt[after]`, `[strictly_after]`, `[before]`,
   * `[strictly_before]`), as the API documents them; absent = none.
   */
  readonly dateFilters?: readonly string[];
  /** Numeric fields with range filters (`total[gt|gte|lt|lte|between]`), validated as numbers; absent = none. */
  readonly numericFilters?: readonly string[];
  /** Exact filters whose values are an enumeration (`type`: `I`, `E`…); another value is a 422. */
  readonly choices?: Readonly<Record<string, readonly string[]>>;
  /** Fields of `order[field]=asc|desc` (offset mode), as the API documents them; absent = none. */
  readonly orderFields?: readonly string[];
}

/** Fields of an invoice that others (line items, payments, events) refer to. */
export interface InvoiceCore {
  /** The whole invoice record. */
  obj: JsonObject;
  /** The invoice's UUIDv7 id. */
  id: string;
  /** The tax authority's folio (a UUIDv4). */
  uuid: string;
  /** Total, currency units (a JSON float). */
  total: number;
  /** Total, cents. */
  totalCents: number;
  /** Whether the taxpayer issued it (else received it). */
  isIssuer: boolean;
  /** `MXN` or `USD`. */
  currency: string;
  /** Pesos per dollar for USD invoices; null for MXN. */
  exchangeRate: number | null;
}

/** The invoices of one taxpayer, with access to the fields others embed. */
export type InvoiceCollection = GeneratedCollection & {
  /** The invoice at index `i` and its cross-referenced fields. */
  core(i: number): InvoiceCore;
};

/**
 * Evenly spread timestamps of one collection kind: epoch ms of item `i` of taxpayer `t`
 * (`t` is 0 for collections that belong to no taxpayer). `kind` is a `KIND` code of values.ts and
 * only seeds the jitter.
 */
export type Timeline = (kind: number, t: number, i: number) => number;

/**
 * Shapes of records that differ between what the API documentation shows (the default) and what
 * the real service was recorded sending: a payment's `batchPayment` as an IRI (`iri`) or as an
 * embedded object (`object`: `payerBank`, `operationNumber`…).
 */
export interface RecordShapes {
  readonly batchPayment: 'iri' | 'object';
  /** One invoice of each taxpayer (its third) has a NUL and a lone surrogate in `reference` (see {@link ODD_TEXT}). */
  readonly oddText?: boolean;
}

/**
 * What every generator of one dataset shares: the seed, the counts, the parties and the
 * timelines. Built once by `createDataset` (data.ts).
 */
export interface RecordContext {
  readonly seed: number;
  readonly sizes: DataSizes;
  readonly shapes: RecordShapes;
  /** The generated taxpayers, in order. */
  readonly taxpayers: readonly Party[];
  /** The parties invoices are exchanged with (the templated ones). */
  readonly counterparties: readonly Party[];
  /** Parties built up front; synthetic entity parties are numbered after them. */
  readonly partyCount: number;
  /** RFCs handed out so far (building a party adds its RFC, so build order matters). */
  readonly taken: Set<string>;
  /** Invoices per taxpayer (a whole number ≥ 0). */
  readonly invoiceCount: number;
  /** Average line items per invoice (0..200). */
  readonly averageLines: number;
  /** Payments per taxpayer (a whole number ≥ 0). */
  readonly paymentCount: number;
  readonly invoiceTime: Timeline;
  readonly paymentTime: Timeline;
  readonly entityTime: Timeline;
  readonly eventTime: Timeline;
  /** The (cached) invoices of taxpayer `t`. */
  invoices(t: number): InvoiceCollection;
}
