/**
 * Pure parsing of one JSON-LD/Hydra collection page (Hydra Core Vocabulary: `member`, `totalItems`,
 * `view` with `first`/`next`/`previous`/`last`). Accepts the prefixed (`hydra:member`) and
 * unprefixed (`member`) spellings, as API Platform emits both (docs/rate-limits.md, "Rate limits, retries and
 * safety": links).
 */
import { HostileResponseError } from '../errors.js';
import { isObject, type JsonObject } from '../json/object.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

/** Links of a page's `hydra:view` (all as they appear in the body: relative or absolute URI strings). */
export interface HydraView {
  /** `@id`: the current page. */
  id?: string;
  first?: string;
  /** Absent on the last page. */
  next?: string;
  previous?: string;
  last?: string;
}

/**
 * One collection page parsed by `JSON.parse` (the envelope of every page, page-scan.ts; and the
 * verdict on a page the scan refuses, fetch-page.ts).
 */
export interface HydraPage {
  /** `hydra:member` / `member`: the items, as parsed JSON values. */
  members: unknown[];
  /** `hydra:totalItems` / `totalItems` when present (always in offset mode; in cursor mode only with `X-Pagination-Enable-Partial: 0`). */
  totalItems?: number;
  /** `hydra:view` / `view`; undefined when the page has none (a single-page collection). */
  view?: HydraView;
}

/** The body is not a Hydra collection (retryable: the page is never emitted). */
export class PageFormatError extends Error {
  /**
   * @param message short, e.g. `invalid JSON` or `not a Hydra collection: …`; becomes the reason of
   *   the retry
   * @param options.cause the JSON parser's error, when there was one
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PageFormatError';
  }
}

/** The value of `hydra:<term>` or, failing that, of the unprefixed `<term>` (API Platform 3+). */
function term(obj: JsonObject, name: string): unknown {
  const prefixed = obj[`hydra:${name}`];
  return prefixed !== undefined ? prefixed : obj[name];
}

function link(obj: JsonObject, name: string): string | undefined {
  const value = term(obj, name);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function parseView(value: unknown): HydraView | undefined {
  if (!isObject(value)) return undefined;
  const view: HydraView = {};
  const id = value['@id'];
  if (typeof id === 'string' && id.length > 0) view.id = id;
  const first = link(value, 'first');
  if (first !== undefined) view.first = first;
  const next = link(value, 'next');
  if (next !== undefined) view.next = next;
  const previous = link(value, 'previous');
  if (previous !== undefined) view.previous = previous;
  const last = link(value, 'last');
  if (last !== undefined) view.last = last;
  return view;
}

/**
 * Parses a decoded JSON body into a {@link HydraPage}. Does no per-item work (the members array is
 * returned as is), since pages hold up to 1000 items.
 * @throws {PageFormatError} when the body is not an object, or `member` is present but not an array,
 *   or neither `member`, `totalItems` nor `view` is present (not a collection).
 */
export function parsePage(body: unknown): HydraPage {
  if (!isObject(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
    throw new PageFormatError(`not a Hydra collection: the body is ${kind}, not an object`);
  }
  const rawMembers = term(body, 'member');
  const rawTotal = term(body, 'totalItems');
  const rawView = term(body, 'view');
  let members: unknown[];
  if (rawMembers === undefined) {
    // An empty collection may omit `member`, but then it still says how many items (0) or where it is.
    if (rawTotal === undefined && rawView === undefined) {
      throw new PageFormatError('not a Hydra collection: no member, totalItems or view');
    }
    members = [];
  } else if (Array.isArray(rawMembers)) {
    members = rawMembers;
  } else {
    throw new PageFormatError(`not a Hydra collection: member is ${rawMembers === null ? 'null' : typeof rawMembers}, not an array`);
  }
  const page: HydraPage = { members };
  if (typeof rawTotal === 'number' && Number.isSafeInteger(rawTotal) && rawTotal >= 0) page.totalItems = rawTotal;
  const view = parseView(rawView);
  if (view !== undefined) page.view = view;
  return page;
}

/**
 * Refuses a body whose `Content-Type` says HTML (a proxy's or a maintenance page).
 * @throws {PageFormatError} `HTML instead of JSON`
 */
export function refuseHtml(contentType: string | null | undefined): void {
  if ((contentType ?? '').toLowerCase().includes('html')) throw new PageFormatError('HTML instead of JSON');
}

/**
 * Parses a 2xx body as a Hydra page: refuses HTML (a proxy's or a maintenance page) and JSON
 * nested deeper than {@link MAX_JSON_DEPTH}, then `JSON.parse`s the text once and
 * {@link parsePage}s it.
 * @param contentType the response's `Content-Type` (may be null)
 * @throws {PageFormatError} `HTML instead of JSON`, `invalid JSON` (cause: the SyntaxError), or
 *   what {@link parsePage} throws
 * @throws {HostileResponseError} (exit 6, not retried) for JSON nested too deep
 */
export function parsePageText(text: string, contentType: string | null | undefined): HydraPage {
  refuseHtml(contentType);
  if (exceedsJsonDepth(text)) {
    throw new HostileResponseError(`the page is JSON nested more than ${MAX_JSON_DEPTH} levels deep`, {
      hint: 'the server sent a page no collection needs; not retried',
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new PageFormatError('invalid JSON', { cause: err });
  }
  return parsePage(body);
}
