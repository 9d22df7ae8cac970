/**
 * Pagination of the sandbox (the API documentation, pagination): parsing `page`,
 * `itemsPerPage` and the cursor parameters, choosing the slice of a collection, building the
 * `hydra:view` links and rendering the JSON-LD envelope by concatenating cached item bytes.
 */
import type { CollectionView } from './collection.js';
import { cursorMinus, firstPositionBelow, type CursorEnd } from './cursor.js';
import { encodeFrame, type WireEncoding } from './wire.js';

/** Default `itemsPerPage` (the API documentation, pagination). */
const DEFAULT_ITEMS_PER_PAGE = 20;
/** Largest accepted `itemsPerPage`; above it the sandbox answers 400. */
const MAX_ITEMS_PER_PAGE = 1000;

/** Query parameters that belong to pagination; every other parameter is kept in the links. */
const PAGING_PARAMS = new Set(['page', 'id[lt]', 'id[gt]']);

/**
 * How a request's paging mode is chosen on the endpoints that can page by cursor:
 * - `header` (the default, the deployment): `X-Pagination-Style: cursor` asks for cursor pages;
 * - `cursor-only` (the current invoice endpoints of the real service): cursor pages whatever the
 *   headers, and a request carrying `page` is a 400 {@link CURSOR_ONLY_MESSAGE};
 * - `ignore-header` (plain API Platform, which does not know that header): offset pages always.
 */
export type PagingRule = 'header' | 'cursor-only' | 'ignore-header';

/** The 400 message of a cursor-only endpoint asked for a `page`, as the real service words it. */
const CURSOR_ONLY_MESSAGE = 'Only cursor pagination is available for this endpoint.';

/** What a request asks of pagination. */
export interface PageQuery {
  mode: 'offset' | 'cursor';
  itemsPerPage: number;
  /** Offset mode: 1-based page number. */
  page: number;
  /** Cursor mode: `id[lt]`, the next page's boundary (items older than it). */
  before: string | undefined;
  /** Cursor mode: `id[gt]`, the previous page's boundary (items newer than it). */
  after: string | undefined;
  /** Cursor mode: include `hydra:totalItems` (`X-Pagination-Enable-Partial: 0`). */
  withTotal: boolean;
}

const POSITIVE_INTEGER = /^[0-9]+$/;

/**
 * Parses the pagination of a request.
 * @param cursorAllowed whether the endpoint supports cursor mode; `X-Pagination-Style: cursor` is
 *   ignored elsewhere (the API documentation, cursor pagination)
 * @param rule how the mode is chosen where cursor mode is allowed (see {@link PagingRule})
 * @returns the query, or an error message for a 400 (`itemsPerPage` not an integer in 1..1000,
 *   `page` not an integer ≥ 1, any `page` on a cursor-only endpoint)
 */
export function parsePageQuery(
  params: URLSearchParams,
  cursorAllowed: boolean,
  header: (name: string) => string | null,
  rule: PagingRule = 'header',
): PageQuery | { error: string } {
  const ippText = params.get('itemsPerPage');
  let itemsPerPage = DEFAULT_ITEMS_PER_PAGE;
  if (ippText !== null) {
    const n = POSITIVE_INTEGER.test(ippText) ? Number(ippText) : Number.NaN;
    if (!(n >= 1 && n <= MAX_ITEMS_PER_PAGE)) {
      return { error: `itemsPerPage must be an integer between 1 and ${MAX_ITEMS_PER_PAGE}` };
    }
    itemsPerPage = n;
  }
  const asked = header('x-pagination-style')?.trim().toLowerCase() === 'cursor';
  const cursor = cursorAllowed && rule !== 'ignore-header' && (rule === 'cursor-only' || asked);
  if (cursor && rule === 'cursor-only' && params.has('page')) return { error: CURSOR_ONLY_MESSAGE };
  let page = 1;
  const pageText = params.get('page');
  if (!cursor && pageText !== null) {
    const n = POSITIVE_INTEGER.test(pageText) ? Number(pageText) : Number.NaN;
    if (!(n >= 1 && Number.isSafeInteger(n))) return { error: 'page must be a positive integer' };
    page = n;
  }
  return {
    mode: cursor ? 'cursor' : 'offset',
    itemsPerPage,
    page,
    before: cursor ? (params.get('id[lt]') ?? undefined) : undefined,
    after: cursor ? (params.get('id[gt]') ?? undefined) : undefined,
    withTotal: cursor && header('x-pagination-enable-partial')?.trim() === '0',
  };
}

/** Relative links of a page's `hydra:view`. */
export interface PageLinks {
  view: string;
  first?: string;
  last?: string;
  previous?: string;
  next?: string;
}

/** The slice a request gets and its links. */
export interface PagePlan {
  mode: 'offset' | 'cursor';
  /** First position (inclusive) in the view. */
  start: number;
  /** Last position (exclusive). */
  end: number;
  /** Items in the view. */
  total: number;
  /** Whether the envelope carries `hydra:totalItems`. */
  includeTotal: boolean;
  /** Offset page number; in cursor mode the page the slice would be at (`floor(start / itemsPerPage) + 1`), for fault scoping. */
  pageNumber: number;
  links: PageLinks;
}

/**
 * Chooses the slice and links of a page.
 * @param path the request's path as received (percent-encoded), used in every link
 * @param params the request's query; non-paging parameters (filters, `itemsPerPage`) are kept in the links
 * @param cursorEnd how a cursor chain ends (sandbox/cursor.ts; default `endless`, API Platform ≥ 4.3.5)
 */
export function planPage(view: CollectionView, query: PageQuery, path: string, params: URLSearchParams, cursorEnd: CursorEnd = 'endless'): PagePlan {
  const kept = new URLSearchParams();
  for (const [k, v] of params) if (!PAGING_PARAMS.has(k)) kept.append(k, v);
  const keptText = kept.toString();
  const withQuery = (extra: string): string =>
    extra === '' ? (keptText === '' ? path : `${path}?${keptText}`) : `${path}?${keptText === '' ? '' : `${keptText}&`}${extra}`;
  const total = view.length;
  const ipp = query.itemsPerPage;

  if (query.mode === 'offset') {
    const lastPage = Math.max(1, Math.ceil(total / ipp));
    const start = Math.min(total, (query.page - 1) * ipp);
    const end = Math.min(total, start + ipp);
    const pageLink = (n: number): string => withQuery(`page=${n}`);
    const links: PageLinks = { view: pageLink(query.page) };
    // Like the real API, a single page carries no first/last/next (the API documentation's sample pages).
    if (lastPage > 1 || query.page > 1) {
      links.first = pageLink(1);
      if (query.page > 1) links.previous = pageLink(query.page - 1);
      if (query.page < lastPage) links.next = pageLink(query.page + 1);
      links.last = pageLink(lastPage);
    }
    return { mode: 'offset', start, end, total, includeTotal: true, pageNumber: query.page, links };
  }

  let start: number;
  let end: number;
  let viewLink: string;
  if (query.before !== undefined) {
    start = firstPositionBelow(view, query.before, true);
    end = Math.min(total, start + ipp);
    viewLink = withQuery(`id%5Blt%5D=${encodeURIComponent(query.before)}`);
  } else if (query.after !== undefined) {
    end = firstPositionBelow(view, query.after, false);
    start = Math.max(0, end - ipp);
    viewLink = withQuery(`id%5Bgt%5D=${encodeURIComponent(query.after)}`);
  } else {
    start = 0;
    end = Math.min(total, ipp);
    viewLink = withQuery('');
  }
  const links: PageLinks = { view: viewLink };
  const next = (cursor: string): string => withQuery(`id%5Blt%5D=${encodeURIComponent(cursor)}`);
  if (end > start) {
    // Cursors are the boundary ids themselves, so a page never shifts when items come or go.
    if (start > 0) links.previous = withQuery(`id%5Bgt%5D=${encodeURIComponent(view.id(start))}`);
    // API Platform's PartialCollectionViewNormalizer links next from any non-empty page, the last one too.
    if (end < total || cursorEnd !== 'last-page') links.next = next(view.id(end - 1));
  } else if (cursorEnd === 'endless' && query.before !== undefined) {
    const on = cursorMinus(query.before, ipp);
    if (on !== undefined) links.next = next(on);
  }
  return {
    mode: 'cursor',
    start,
    end,
    total,
    includeTotal: query.withTotal,
    pageNumber: Math.floor(start / ipp) + 1,
    links,
  };
}

/**
 * How a page that links nowhere (a collection that fits one page, an empty one) is written: with
 * its `view` (`view`, the default) or, as a recorded page of the real service, without `view` and
 * with a `hydra:search` IRI template (`no-view`).
 */
export type SinglePage = 'view' | 'no-view';

/** How the envelope is spelled and written. */
export interface EnvelopeStyle {
  /** `hydra:member` etc. (true) or the unprefixed terms of current API Platform (`member`, `view`…). */
  prefixed: boolean;
  /** Name of the previous link in cursor mode: the guide's `previous`, or the OpenAPI example's `last`. */
  cursorPrevious: 'previous' | 'last';
  /** The bytes: API Platform's escapes, JSON.stringify's, or the debug-mode pretty print (sandbox/wire.ts). */
  wire: WireEncoding;
  /** A page that links nowhere: with its `view` or without (default `view`). */
  singlePage?: SinglePage;
}

/** The `view` object of a page: its links in the order API Platform writes them. */
function viewObject(plan: PagePlan, links: PageLinks, style: EnvelopeStyle): Record<string, string> {
  const p = style.prefixed ? 'hydra:' : '';
  const obj: Record<string, string> = { '@id': links.view, '@type': `${p}PartialCollectionView` };
  const add = (name: string, value: string | undefined): void => {
    if (value !== undefined) obj[`${p}${name}`] = value;
  };
  add('first', links.first);
  if (plan.mode === 'offset') {
    add('previous', links.previous);
    add('next', links.next);
    add('last', links.last);
  } else {
    add(style.cursorPrevious, links.previous);
    add('next', links.next);
    if (style.cursorPrevious !== 'last') add('last', links.last);
  }
  return obj;
}

/**
 * The `hydra:search` of a collection, as API Platform's CollectionFiltersNormalizer writes it: an
 * IRI template of the filters and one mapping per variable (`createdAt[after]` maps to `createdAt`).
 */
function searchObject(collectionId: string, variables: readonly string[], p: string): Record<string, unknown> {
  return {
    '@type': `${p}IriTemplate`,
    [`${p}template`]: `${collectionId}{?${variables.join(',')}}`,
    [`${p}variableRepresentation`]: 'BasicRepresentation',
    [`${p}mapping`]: variables.map((variable) => ({
      '@type': 'IriTemplateMapping',
      variable,
      property: variable.replace(/^order\[(.*)\]$/, '$1').replace(/\[.*\]$/, ''),
      required: false,
    })),
  };
}

/**
 * Renders a collection page as JSON-LD (a Hydra collection, as in the API documentation's sample
 * pages) into one Buffer: the envelope's head and tail in the style's encoding around the cached
 * bytes of each member (already in that encoding), without re-serialising them.
 * @param collectionId the collection's `@id` (the request path without query)
 * @param links the links to write (possibly altered by faults)
 * @param search the collection's filter variables, for the `hydra:search` of a page without `view`
 */
export function renderPage(
  view: CollectionView,
  plan: PagePlan,
  links: PageLinks,
  collectionId: string,
  context: string,
  style: EnvelopeStyle,
  search: readonly string[] = [],
): Buffer {
  const p = style.prefixed ? 'hydra:' : '';
  const envelope: Record<string, unknown> = { '@context': context, '@id': collectionId, '@type': `${p}Collection` };
  if (plan.includeTotal) envelope[`${p}totalItems`] = plan.total;
  envelope[`${p}member`] = [];
  const alone = links.first === undefined && links.previous === undefined && links.next === undefined && links.last === undefined;
  if (style.singlePage !== 'no-view' || !alone) envelope[`${p}view`] = viewObject(plan, links, style);
  else if (search.length > 0) envelope[`${p}search`] = searchObject(collectionId, search, p);
  const frame = encodeFrame(envelope, `${p}member`, style.wire);
  if (plan.end <= plan.start) return Buffer.from(frame.empty);
  const separator = Buffer.from(frame.separator);
  const parts: Buffer[] = [Buffer.from(frame.head)];
  for (let pos = plan.start; pos < plan.end; pos++) {
    if (pos > plan.start) parts.push(separator);
    parts.push(view.bytes(pos));
  }
  parts.push(Buffer.from(frame.tail));
  return Buffer.concat(parts);
}
