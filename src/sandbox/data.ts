/**
 * Seeded records of the sandbox, shaped like record-samples.md: invoices with nested
 * issuer/receiver, line items that embed a subset of their invoice, payments (negative amounts for
 * expenses), entities with taxpayer/credential, events with `data.object`/`data.changes`.
 *
 * Nothing is built up front: item `i` of a collection is a pure function of (seed, collection,
 * i), so a taxpayer with a million invoices costs nothing until a page is asked for. Ids are
 * UUIDv7-shaped with a timestamp that grows with `i`, so "newest first" is "id descending".
 */
import { createRng, hash32, uuidV4, uuidV7, type Rng } from './random.js';

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
/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

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
}

const DAY = 86_400_000;
/** Generated invoices and payments end here; later items are the ones inserted at run time. */
const SPAN_END = Date.UTC(2024, 3, 1);
const SPAN_MS = 3 * 365 * DAY;
const MAX_LINE_ITEMS_AVG = 200;

const KIND = {
  party: 1,
  invoice: 2,
  lineItem: 3,
  payment: 4,
  entity: 5,
  event: 6,
  inserted: 7,
  lineCount: 8,
} as const;

interface PartyTemplate {
  name: string;
  /** RFC letters: 3 for a company, 4 for a person. */
  letters: string;
  regimes: readonly number[];
}

const COMPANY_REGIMES = [601, 601, 603, 626] as const;
const PERSON_REGIMES = [612, 626, 605, 606] as const;

/**
 * The first taxpayers are chosen so the defaults exercise the ugly cases: an `&` in a company RFC
 * and an `Ñ` in a person's (real-service.md: "uppercase letters, digits, `&` and `Ñ` possible").
 */
const PARTY_TEMPLATES: readonly PartyTemplate[] = [
  { name: 'DISTRIBUIDORA DEL MONTE SA DE CV', letters: 'DMO', regimes: COMPANY_REGIMES },
  { name: 'ALEJANDRA GONZÁLEZ MÁRQUEZ', letters: 'GOMA', regimes: PERSON_REGIMES },
  { name: 'D&M COMERCIAL SA DE CV', letters: 'D&M', regimes: COMPANY_REGIMES },
  { name: 'JOSÉ ÑÚÑEZ ORTIZ', letters: 'ÑUOJ', regimes: PERSON_REGIMES },
  { name: 'COMERCIALIZADORA DEL VALLE SA DE CV', letters: 'CVA', regimes: COMPANY_REGIMES },
  { name: 'MARÍA PEÑA ITURBIDE', letters: 'PEIM', regimes: PERSON_REGIMES },
  { name: 'TRANSPORTES AÑIL DEL NORTE SA DE CV', letters: 'TAÑ', regimes: COMPANY_REGIMES },
  { name: 'LUIS ÁNGEL RAMÍREZ SOTO', letters: 'RASL', regimes: PERSON_REGIMES },
  { name: 'SERVICIOS INTEGRALES DEL BAJÍO SA DE CV', letters: 'SIB', regimes: COMPANY_REGIMES },
  { name: 'CONSTRUCTORA PÉREZ & HIJOS SA DE CV', letters: 'CP&', regimes: COMPANY_REGIMES },
  { name: 'ANA SOFÍA TORRES LEÓN', letters: 'TOLA', regimes: PERSON_REGIMES },
  { name: 'FERRETERÍA LA ESPAÑOLA SA DE CV', letters: 'FES', regimes: COMPANY_REGIMES },
];

const ALNUM = 'ABCDEFGHIJKLMNPQRSTUVWXYZ0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function buildParty(seed: number, index: number, taken: Set<string>): Party {
  const rng = createRng(hash32(seed, KIND.party, index));
  let template = PARTY_TEMPLATES[index];
  if (!template) {
    // Beyond the templates: synthetic companies with letters derived from the index.
    const l = (k: number): string => LETTERS.charAt(k % 26);
    template = {
      name: `EMPRESA ${index + 1} SA DE CV`,
      letters: `E${l(Math.floor(index / 26))}${l(index)}`,
      regimes: COMPANY_REGIMES,
    };
  }
  const person = template.letters.length === 4;
  const year = 1960 + rng.int(62);
  const month = 1 + rng.int(12);
  const day = 1 + rng.int(28);
  const date = `${String(year % 100).padStart(2, '0')}${pad2(month)}${pad2(day)}`;
  let rfc: string;
  do {
    rfc = template.letters + date + rng.pick([...ALNUM]) + rng.pick([...ALNUM]) + rng.pick([...ALNUM]);
  } while (taken.has(rfc));
  taken.add(rfc);
  return {
    rfc,
    name: template.name,
    personType: person ? 'physical' : 'legal',
    registrationDate: `${year}-${pad2(month)}-${pad2(day)}`,
    taxRegime: rng.pick(template.regimes),
  };
}

const dayPrefixes = new Map<number, string>();
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/**
 * ISO-8601 with milliseconds and `Z` (`2024-03-28T16:45:09.000Z`), as the API writes dates; the
 * same text as `Date.prototype.toISOString` for years 1970–9999, but the date part is cached per
 * day because formatting dates was a third of the cost of building an invoice.
 */
export function isoDate(ms: number): string {
  const day = Math.floor(ms / DAY);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY).toISOString().slice(0, 11);
    if (dayPrefixes.size > 100_000) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  return `${prefix}${pad2(h)}:${pad2(m)}:${pad2(sec)}.${pad3(rest - sec * 1000)}Z`;
}

/** Rounds cents to a float amount (money is a JSON float: record-samples.md). */
function money(cents: number): number {
  return Math.round(cents) / 100;
}

function newId(ts: number, rng: Rng): string {
  return uuidV7(ts, rng.u32(), rng.u32(), rng.u32());
}

const PACS = ['FIN120301JA5', 'SAT970701NN3', 'EME000602QR9'] as const;
const POSTAL_CODES = ['64000', '06600', '44100', '76000', '97000', '22000'] as const;
const REFERENCES = [null, null, null, 'SUC-NORTE', 'SUC-CENTRO', 'PEDIDO-7731'] as const;
const INVOICE_TAGS = [
  { name: 'Revisar', color: '#f59e0b' },
  { name: 'Conciliación pendiente', color: '#ef4444' },
  { name: 'Pagada', color: '#10b981' },
] as const;
const ENTITY_TAGS = [
  { name: 'Cartera Norte', color: '#3b82f6' },
  { name: 'Clientes clave', color: '#8b5cf6' },
] as const;
const PRODUCTS = [
  { id: 'LAP-14-16G', code: '43211503', description: 'Laptop 14 pulgadas, 16 GB RAM, 512 GB SSD', unit: 'H87', cents: 1_000_000 },
  { id: 'MANT-PREV', code: '81112300', description: 'Servicio de mantenimiento preventivo', unit: 'E48', cents: 250_000 },
  { id: 'TON-NEG', code: '44103103', description: 'Tóner negro para impresora láser', unit: 'H87', cents: 189_990 },
  { id: 'PAP-CARTA', code: '14111507', description: 'Papel bond tamaño carta, caja con 10 paquetes', unit: 'XBX', cents: 84_950 },
  { id: 'CONS-TI', code: '81111800', description: 'Consultoría en tecnologías de la información', unit: 'E48', cents: 1_200_000 },
  { id: 'FLETE-MG', code: '78101802', description: 'Flete de mercancía Monterrey – Guadalajara', unit: 'E48', cents: 450_000 },
  { id: 'CAFE-1K', code: '50201706', description: 'Café de grano orgánico, 1 kg', unit: 'KGM', cents: 32_500 },
  { id: 'RENTA-OF', code: '80131502', description: 'Renta de oficina, mes corriente', unit: 'E48', cents: 1_850_000 },
] as const;

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
}

/** Fields of an invoice that others (line items, payments, events) refer to. */
interface InvoiceCore {
  obj: JsonObject;
  id: string;
  uuid: string;
  total: number;
  totalCents: number;
  isIssuer: boolean;
  currency: string;
  exchangeRate: number | null;
}

/**
 * Creates the dataset of a seed. Taxpayer and counterparty RFCs are generated at once (a few
 * dozen); every other record lazily.
 */
export function createDataset(seed: number, sizes: DataSizes): Dataset {
  const taken = new Set<string>();
  const taxpayerCount = Math.max(1, Math.floor(sizes.taxpayers));
  const partyCount = Math.max(taxpayerCount, PARTY_TEMPLATES.length);
  const parties: Party[] = [];
  for (let i = 0; i < partyCount; i++) parties.push(buildParty(seed, i, taken));
  const taxpayers = parties.slice(0, taxpayerCount);
  const byRfc = new Map(taxpayers.map((p, i) => [p.rfc, i]));
  const counterparties = parties.slice(0, PARTY_TEMPLATES.length);

  const nInvoices = Math.max(0, Math.floor(sizes.invoicesPerTaxpayer));
  const avgLines = Math.min(MAX_LINE_ITEMS_AVG, Math.max(0, Math.floor(sizes.lineItemsPerInvoice)));
  const nPayments = Math.max(0, Math.floor(sizes.paymentsPerTaxpayer));

  /** Evenly spread timestamps ending at SPAN_END, at least 1 s apart, jittered by < step/4. */
  const spread = (count: number, end: number, span: number) => {
    const step = Math.max(1000, Math.floor(span / Math.max(1, count)));
    const start = end - count * step;
    return (kind: number, t: number, i: number): number =>
      start + i * step + (hash32(seed, kind, t, i, 99) % Math.floor(step / 4));
  };
  const invoiceTs = spread(nInvoices, SPAN_END, SPAN_MS);
  const paymentTs = spread(nPayments, SPAN_END, SPAN_MS);
  const entityTs = spread(Math.max(0, sizes.entities), Date.UTC(2024, 2, 1), 365 * DAY);
  const eventTs = spread(Math.max(0, sizes.events), Date.UTC(2024, 3, 16), 7 * DAY);

  const taxpayerRef = (p: Party): JsonObject => ({
    '@id': `/taxpayers/${p.rfc}`,
    '@type': 'Taxpayer',
    id: p.rfc,
    personType: p.personType,
    registrationDate: p.registrationDate,
    name: p.name,
  });

  function buildInvoice(t: number, rng: Rng, id: string, ts: number, serial: number): InvoiceCore {
    const me = taxpayers[t]!;
    let other = rng.pick(counterparties);
    if (other.rfc === me.rfc) other = counterparties[(counterparties.indexOf(other) + 1) % counterparties.length]!;
    const isIssuer = rng.next() < 0.6;
    const issuer = isIssuer ? me : other;
    const receiver = isIssuer ? other : me;
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
    const uuid = uuidV4(rng);
    const exchangeRate = usd ? Math.round((16.5 + rng.next() * 3) * 10_000) / 10_000 : null;
    const relations: JsonValue[] = [];
    if (type === 'E') {
      const relId = newId(ts + 1, rng);
      relations.push({
        '@id': `/invoices/relations/${relId}`,
        '@type': 'InvoiceRelation',
        id: relId,
        type: 1,
        invoice: `/invoices/${id}`,
        relatedInvoice: null,
        relatedInvoiceUuid: uuidV4(rng),
        createdAt: isoDate(ts + 1),
        updatedAt: isoDate(ts + 1),
      });
    }
    const tags: JsonValue[] = [];
    if (rng.next() < 0.15) {
      const tag = rng.pick(INVOICE_TAGS);
      const tagId = newId(updatedAt, rng);
      tags.push({
        '@id': `/tags/${tagId}`,
        '@type': 'Tag',
        id: tagId,
        name: tag.name,
        resourceType: 'invoice',
        color: tag.color,
        createdAt: isoDate(updatedAt),
        updatedAt: isoDate(updatedAt),
      });
    }
    const blacklist = (): string | null => (rng.next() < 0.05 ? rng.pick(['presumed', 'definitive']) : null);
    const obj: JsonObject = {
      '@id': `/invoices/${id}`,
      '@type': 'Invoice',
      id,
      uuid,
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
      currency: usd ? 'USD' : 'MXN',
      discount: money(discountCents),
      tax: money(taxCents),
      subtotal: money(subtotalCents),
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
      issuedAt: isoDate(issuedAt),
      certifiedAt: isoDate(certifiedAt),
      cancellationStatus: canceled
        ? 'Cancelado sin aceptación'
        : rng.pick(['Cancelable con aceptación', 'Cancelable sin aceptación', 'No cancelable']),
      cancellationProcessStatus: null,
      canceledAt: canceled ? isoDate(updatedAt) : null,
      relations,
      xml: true,
      pdf: rng.next() < 0.5,
      tags,
      createdAt: isoDate(ts),
      updatedAt: isoDate(updatedAt),
    };
    return { obj, id, uuid, total: money(totalCents), totalCents, isIssuer, currency: obj.currency as string, exchangeRate };
  }

  const invoiceCollections = new Map<number, GeneratedCollection & { core(i: number): InvoiceCore }>();
  function invoices(t: number): GeneratedCollection & { core(i: number): InvoiceCore } {
    let c = invoiceCollections.get(t);
    if (c) return c;
    const ts = (i: number): number => invoiceTs(KIND.invoice, t, i);
    const id = (i: number): string => newId(ts(i), createRng(hash32(seed, KIND.invoice, t, i, 1)));
    let last: { i: number; core: InvoiceCore } | undefined;
    const core = (i: number): InvoiceCore => {
      if (last?.i === i) return last.core;
      const value = buildInvoice(t, createRng(hash32(seed, KIND.invoice, t, i, 2)), id(i), ts(i), i);
      last = { i, core: value };
      return value;
    };
    c = {
      count: nInvoices,
      context: '/contexts/Invoice',
      id,
      timestamp: ts,
      item: (i) => core(i).obj,
      core,
      make: (newIdValue, tsMs, serial) =>
        buildInvoice(t, createRng(hash32(seed, KIND.inserted, t, serial, 2)), newIdValue, tsMs, nInvoices + serial).obj,
      filters: ['status', 'type', 'currency', 'paymentType'],
    };
    invoiceCollections.set(t, c);
    return c;
  }

  const lineCount = (t: number, i: number): number =>
    avgLines === 0 ? 0 : 1 + (hash32(seed, KIND.lineCount, t, i) % (2 * avgLines - 1));

  const embedded = (inv: InvoiceCore): JsonObject => ({
    '@id': `/invoices/${inv.id}`,
    '@type': 'Invoice',
    id: inv.id,
    uuid: inv.uuid,
    type: inv.obj.type!,
    issuedAt: inv.obj.issuedAt!,
    total: inv.total,
    status: inv.obj.status!,
  });

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

  /** Line item `j` of invoice `i`: 1 + j ms after the invoice, so ids sort by (invoice, j). */
  const lineTs = (t: number, i: number, j: number): number => invoiceTs(KIND.invoice, t, i) + 1 + j;
  const lineId = (t: number, i: number, j: number): string =>
    newId(lineTs(t, i, j), createRng(hash32(seed, KIND.lineItem, t, i, 1000 + j)));
  const lineItem = (t: number, i: number, j: number): JsonObject =>
    buildLineItem(invoices(t).core(i), createRng(hash32(seed, KIND.lineItem, t, i, j)), lineId(t, i, j), lineTs(t, i, j));

  function invoiceLineItems(t: number, i: number): GeneratedCollection {
    const inv = invoices(t);
    const count = i < 0 ? 0 : lineCount(t, i);
    return {
      count,
      context: '/contexts/InvoiceLineItem',
      id: (j) => lineId(t, i, j),
      timestamp: (j) => lineTs(t, i, j),
      item: (j) => lineItem(t, i, j),
      make: (id, ts, serial) =>
        buildLineItem(
          i < 0 || inv.count === 0 ? insertedParent(t) : inv.core(i),
          createRng(hash32(seed, KIND.inserted, t, serial, 3)),
          id,
          ts,
        ),
      filters: [],
    };
  }

  /** Line items inserted into a collection whose invoice is not generated refer to the newest generated one. */
  const insertedParent = (t: number): InvoiceCore => {
    const inv = invoices(t);
    return inv.count > 0 ? inv.core(inv.count - 1) : buildInvoice(t, createRng(hash32(seed, KIND.inserted, t)), newId(SPAN_END, createRng(1)), SPAN_END, 0);
  };

  const taxpayerLines = new Map<number, GeneratedCollection>();
  function taxpayerLineItems(t: number): GeneratedCollection {
    let c = taxpayerLines.get(t);
    if (c) return c;
    // Prefix sums of line counts, built once on first use (4 bytes per invoice).
    const starts = new Float64Array(nInvoices + 1);
    for (let i = 0; i < nInvoices; i++) starts[i + 1] = starts[i]! + lineCount(t, i);
    const locate = (k: number): [number, number] => {
      let lo = 0;
      let hi = nInvoices - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (starts[mid]! <= k) lo = mid;
        else hi = mid - 1;
      }
      return [lo, k - starts[lo]!];
    };
    c = {
      count: starts[nInvoices]!,
      context: '/contexts/InvoiceLineItem',
      id: (k) => lineId(t, ...locate(k)),
      timestamp: (k) => lineTs(t, ...locate(k)),
      item: (k) => lineItem(t, ...locate(k)),
      make: (id, ts, serial) => buildLineItem(insertedParent(t), createRng(hash32(seed, KIND.inserted, t, serial, 4)), id, ts),
      filters: [],
    };
    taxpayerLines.set(t, c);
    return c;
  }

  function buildPayment(t: number, rng: Rng, id: string, ts: number): JsonObject {
    const inv = invoices(t);
    const core = inv.count > 0 ? inv.core(rng.int(inv.count)) : insertedParent(t);
    const installment = 1 + rng.int(3);
    const baseCents = Math.max(100, core.totalCents);
    const previousCents = Math.round((baseCents * (4 - installment)) / 3);
    const paidCents = Math.round(baseCents / 3);
    // Negative for expenses: the taxpayer received the invoice and paid it (real-service.md).
    const sign = core.isIssuer ? 1 : -1;
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
      batchPayment: `/invoices/batch-payments/${uuidV4(rng)}`,
      canceledAt: rng.next() < 0.03 ? isoDate(ts + DAY) : null,
      createdAt: isoDate(ts),
      updatedAt: isoDate(ts),
    };
  }

  const paymentCollections = new Map<number, GeneratedCollection>();
  function payments(t: number): GeneratedCollection {
    let c = paymentCollections.get(t);
    if (c) return c;
    const ts = (k: number): number => paymentTs(KIND.payment, t, k);
    const id = (k: number): string => newId(ts(k), createRng(hash32(seed, KIND.payment, t, k, 1)));
    c = {
      count: nPayments,
      context: '/contexts/InvoicePayment',
      id,
      timestamp: ts,
      item: (k) => buildPayment(t, createRng(hash32(seed, KIND.payment, t, k, 2)), id(k), ts(k)),
      make: (newIdValue, tsMs, serial) =>
        buildPayment(t, createRng(hash32(seed, KIND.inserted, t, serial, 5)), newIdValue, tsMs),
      filters: [],
    };
    paymentCollections.set(t, c);
    return c;
  }

  const entityParty = (i: number): Party =>
    i < taxpayers.length ? taxpayers[i]! : buildParty(seed, partyCount + i, taken);

  function buildEntity(party: Party, rng: Rng, id: string, ts: number): JsonObject {
    const credentialId = newId(ts - 60_000, rng);
    const tags: JsonValue[] = [];
    if (rng.next() < 0.4) {
      const tag = rng.pick(ENTITY_TAGS);
      const tagId = newId(ts + 3_600_000, rng);
      tags.push({
        '@id': `/entity-tags/${tagId}`,
        '@type': 'EntityTag',
        id: tagId,
        name: tag.name,
        color: tag.color,
        createdAt: isoDate(ts + 3_600_000),
        updatedAt: isoDate(ts + 3_600_000),
      });
    }
    return {
      '@id': `/entities/${id}`,
      '@type': 'Link',
      id,
      type: party.personType === 'legal' ? 'company' : 'person',
      taxpayer: taxpayerRef(party),
      credential: {
        '@id': `/credentials/${credentialId}`,
        '@type': 'Credential',
        id: credentialId,
        type: rng.pick(['ciec', 'ciec', 'efirma']),
        rfc: party.rfc,
        status: rng.pick(['valid', 'valid', 'valid', 'invalid', 'pending']),
        createdAt: isoDate(ts - 60_000),
        updatedAt: isoDate(ts - 55_000),
      },
      tags,
      createdAt: isoDate(ts),
      updatedAt: isoDate(ts + rng.int(30 * DAY)),
    };
  }

  let entitiesCollection: GeneratedCollection | undefined;
  function entities(): GeneratedCollection {
    if (entitiesCollection) return entitiesCollection;
    const count = Math.max(0, Math.floor(sizes.entities));
    // Synthetic entity parties are built once here, so RFC uniqueness does not depend on access order.
    const entityParties = Array.from({ length: count }, (_, i) => entityParty(i));
    const ts = (i: number): number => entityTs(KIND.entity, 0, i);
    const id = (i: number): string => newId(ts(i), createRng(hash32(seed, KIND.entity, i, 1)));
    entitiesCollection = {
      count,
      context: '/contexts/Link',
      id,
      timestamp: ts,
      item: (i) => buildEntity(entityParties[i]!, createRng(hash32(seed, KIND.entity, i, 2)), id(i), ts(i)),
      make: (newIdValue, tsMs, serial) =>
        buildEntity(
          buildParty(seed, 100_000 + serial, taken),
          createRng(hash32(seed, KIND.inserted, 0, serial, 6)),
          newIdValue,
          tsMs,
        ),
      filters: [],
    };
    return entitiesCollection;
  }

  function buildEvent(t: number, rng: Rng, id: string, ts: number): JsonObject {
    const party = taxpayers[t]!;
    const inv = invoices(t);
    const kind = inv.count > 0 ? rng.pick(['invoice.created', 'invoice.updated', 'credential.updated']) : 'credential.updated';
    let resource: string;
    let object: JsonObject;
    let changes: JsonObject;
    if (kind === 'credential.updated') {
      const credentialId = newId(ts - DAY, rng);
      resource = `/credentials/${credentialId}`;
      object = { id: credentialId, rfc: party.rfc, status: 'valid', updatedAt: isoDate(ts) };
      changes = { status: { old: 'pending', new: 'valid' } };
    } else {
      const core = inv.core(rng.int(inv.count));
      const o = core.obj;
      resource = `/invoices/${core.id}`;
      object = {
        id: core.id,
        uuid: core.uuid,
        status: o.status!,
        paidAmount: o.paidAmount!,
        dueAmount: o.dueAmount!,
        lastPaymentDate: o.lastPaymentDate!,
        updatedAt: isoDate(ts),
      };
      changes =
        kind === 'invoice.created'
          ? {}
          : {
              paidAmount: { old: 0, new: o.paidAmount! },
              dueAmount: { old: core.total, new: o.dueAmount! },
              lastPaymentDate: { old: null, new: o.lastPaymentDate! },
            };
    }
    return {
      '@id': `/events/${id}`,
      '@type': 'Event',
      id,
      taxpayer: taxpayerRef(party),
      type: kind,
      source: `/extractions/${uuidV4(rng)}`,
      resource,
      data: { object, changes },
      createdAt: isoDate(ts),
      updatedAt: isoDate(ts),
    };
  }

  let eventsCollection: GeneratedCollection | undefined;
  function events(): GeneratedCollection {
    if (eventsCollection) return eventsCollection;
    const ts = (i: number): number => eventTs(KIND.event, 0, i);
    const id = (i: number): string => newId(ts(i), createRng(hash32(seed, KIND.event, i, 1)));
    eventsCollection = {
      count: Math.max(0, Math.floor(sizes.events)),
      context: '/contexts/Event',
      id,
      timestamp: ts,
      item: (i) => buildEvent(i % taxpayers.length, createRng(hash32(seed, KIND.event, i, 2)), id(i), ts(i)),
      make: (newIdValue, tsMs, serial) =>
        buildEvent(serial % taxpayers.length, createRng(hash32(seed, KIND.inserted, 0, serial, 7)), newIdValue, tsMs),
      filters: ['type'],
    };
    return eventsCollection;
  }

  return {
    seed,
    sizes,
    taxpayers,
    taxpayerIndex: (rfc) => byRfc.get(rfc) ?? -1,
    entities,
    events,
    invoices,
    taxpayerLineItems,
    invoiceLineItems,
    payments,
  };
}
