/**
 * The sandbox's collections by route: one {@link CollectionState} per concrete collection (e.g.
 * the invoices of one taxpayer), created on first use over the generated dataset.
 */
import { createCollectionState, type ByteBudget, type CollectionState } from './collection.js';
import { pickFilters } from './filters.js';
import type { Dataset, GeneratedCollection } from './data.js';
import { matchRoute, type Route } from './routes.js';
import { validateFilters, type Violation } from './validation.js';
import type { WireEncoding } from './wire.js';
import type { DateStyle } from './records/values.js';

/** Finds the state of the collection a route or path names; see {@link createCollectionRegistry}. */
export interface CollectionRegistry {
  /** The collection a route names, or undefined for an unknown taxpayer or invoice (a 404). */
  resolve(route: Route): CollectionState | undefined;
  /**
   * The collection a path names (a query is ignored; ids raw or percent-encoded).
   * @throws {Error} `not a sandbox collection: <path>` when it names none
   */
  resolvePath(path: string): CollectionState;
  /** The invoices of taxpayer `t` (an index into the dataset's taxpayers). */
  invoicesOf(t: number): CollectionState;
  /**
   * Filters of the collection's generated type (sandbox/filters.ts; invoices, events and entities
   * have some); `cursor`: the request pages by cursor, so `order[...]` is ignored.
   */
  filtersFor(route: Route, url: URL, cursor?: boolean): ReadonlyMap<string, string> | undefined;
  /** The violations of the request's filter values (sandbox/validation.ts); [] when all are valid. */
  violationsFor(route: Route, url: URL): Violation[];
}

/** Routes of the current path family that serve an older route's collection (that taxpayer's). */
const SAME_COLLECTION: Readonly<Record<string, string>> = {
  'entity-invoices': 'invoices',
  'entity-line-items': 'taxpayer-line-items',
  'entity-payments': 'payments',
};

/** -1 when the route names none, undefined for an unknown one (a 404). */
function taxpayerOf(dataset: Dataset, route: Route): number | undefined {
  const t =
    route.taxpayerId !== undefined
      ? dataset.taxpayerIndex(route.taxpayerId)
      : route.entityId !== undefined
        ? dataset.entityTaxpayer(route.entityId)
        : -1;
  return t < 0 && (route.taxpayerId !== undefined || route.entityId !== undefined) ? undefined : t;
}

/** Remembered invoice owners before the cache is cleared. */
const MAX_KNOWN_OWNERS = 10_000;

/** The generated type of a route's collection when it has filters (invoices, events, entities; an entity's invoices and events too). */
function filteredBase(dataset: Dataset, route: Route): GeneratedCollection | undefined {
  const key = route.endpoint.key;
  if (key === 'invoices' || key === 'entity-invoices') return dataset.invoices(0);
  if (key === 'events' || key === 'entity-events') return dataset.events();
  return key === 'entities' ? dataset.entities() : undefined;
}

/** Filters of the collection's generated type (see {@link CollectionRegistry.filtersFor}). */
function filtersOf(dataset: Dataset, route: Route, url: URL, cursor: boolean): ReadonlyMap<string, string> | undefined {
  const base = filteredBase(dataset, route);
  return base ? pickFilters(base, url.searchParams, cursor) : undefined;
}

/** The violations of a request's filter values on the route's collection (see {@link CollectionRegistry.violationsFor}). */
function violationsOf(dataset: Dataset, route: Route, url: URL): Violation[] {
  const base = filteredBase(dataset, route);
  return base ? validateFilters(base, url.searchParams) : [];
}

/**
 * Creates the registry of a dataset.
 * @param budget bytes of item JSON all collections may cache, shared
 * @param seed the sandbox seed (seeds the ids of inserted items)
 * @param churn brings a collection's churn up to the clock's time each time it is resolved (sandbox/churn.ts)
 * @param wire how item bytes are written (sandbox/wire.ts)
 * @param dates how item dates are written (records/values.ts `DateStyle`)
 */
export function createCollectionRegistry(
  dataset: Dataset,
  budget: ByteBudget,
  seed: number,
  churn?: (state: CollectionState) => void,
  wire: WireEncoding = 'apiplatform',
  dates: DateStyle = 'iso',
): CollectionRegistry {
  const states = new Map<string, CollectionState>();
  const invoiceOwner = new Map<string, number>();

  const state = (key: string, make: () => GeneratedCollection): CollectionState => {
    const s = states.get(key) ?? createCollectionState(key, make(), budget, seed, wire, dates);
    states.set(key, s);
    churn?.(s);
    return s;
  };
  const invoicesOf = (t: number): CollectionState => state(`invoices:${t}`, () => dataset.invoices(t));

  /** Finds the taxpayer owning a current invoice, or -1. */
  const ownerOf = (invoiceId: string): number => {
    const known = invoiceOwner.get(invoiceId);
    if (known !== undefined && invoicesOf(known).has(invoiceId)) return known;
    for (let t = 0; t < dataset.taxpayers.length; t++) {
      if (invoicesOf(t).has(invoiceId)) {
        if (invoiceOwner.size > MAX_KNOWN_OWNERS) invoiceOwner.clear();
        invoiceOwner.set(invoiceId, t);
        return t;
      }
    }
    return -1;
  };

  /** The line items of an invoice, when it exists and belongs to taxpayer `t` (-1: any taxpayer). */
  const lineItemsOf = (invoiceId: string, t: number): CollectionState | undefined => {
    const owner = ownerOf(invoiceId);
    if (owner < 0 || (t >= 0 && owner !== t)) return undefined;
    const index = invoicesOf(owner).baseIndexOf(invoiceId);
    return state(`line-items:${invoiceId}`, () => dataset.invoiceLineItems(owner, index));
  };

  const resolve = (route: Route): CollectionState | undefined => {
    const t = taxpayerOf(dataset, route);
    if (t === undefined) return undefined;
    switch (SAME_COLLECTION[route.endpoint.key] ?? route.endpoint.key) {
      case 'entity-events':
        return state(`entity-events:${t}`, () => dataset.taxpayerEvents(t));
      case 'organisation-payments':
        return state('organisation-payments', () => dataset.organisationPayments());
      case 'entities':
        return state('entities', () => dataset.entities());
      case 'events':
        return state('events', () => dataset.events());
      case 'invoices':
        return invoicesOf(t);
      case 'taxpayer-line-items':
        return state(`taxpayer-line-items:${t}`, () => dataset.taxpayerLineItems(t));
      case 'payments':
        return state(`payments:${t}`, () => dataset.payments(t));
      case 'taxpayer-invoice-line-items':
      case 'invoice-line-items':
        return lineItemsOf(route.invoiceId!, t);
      default:
        return undefined;
    }
  };

  return {
    resolve,
    invoicesOf,
    resolvePath(path) {
      const route = matchRoute(new URL(path, 'http://sandbox.invalid').pathname);
      const s = route && resolve(route);
      if (!s) throw new Error(`not a sandbox collection: ${path}`);
      return s;
    },
    filtersFor: (route, url, cursor = false) => filtersOf(dataset, route, url, cursor),
    violationsFor: (route, url) => violationsOf(dataset, route, url),
  };
}
