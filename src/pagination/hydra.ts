/**
 * Pure parsing of one JSON-LD/Hydra collection page (api-contract.md §2). Accepts the prefixed
 * (`hydra:member`) and unprefixed (`member`) spellings, as API Platform emits both (real-service.md).
 * Also parses the server's error bodies into a one-line message (real-service.md, "Error bodies").
 */

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

/** One parsed collection page. */
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
  constructor(message: string) {
    super(message);
    this.name = 'PageFormatError';
  }
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/** Longest server message kept, characters: one stderr line, not a page of HTML. */
const MAX_MESSAGE_CHARS = 300;

function oneLine(text: string): string | undefined {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return undefined;
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}

function violationsText(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const parts: string[] = [];
  for (const v of value) {
    if (!isObject(v)) continue;
    const message = str(v.message) ?? str(v.title);
    if (message === undefined) continue;
    const path = str(v.propertyPath);
    parts.push(path !== undefined ? `${path}: ${message}` : message);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * Extracts the server's own message from an error body (real-service.md, "Error bodies"), as one
 * line of at most 300 characters:
 * - API Platform `ConstraintViolation` (422): its `violations[]` joined as `path: message; …`;
 * - `{"message": "…"}` (400/401/404/429);
 * - a Hydra error (403/422): `hydra:description` or `description`;
 * - RFC 7807 / RFC 9457 problem details (`application/problem+json`): `detail`, else `title`
 *   (also `hydra:title`);
 * - `text/plain`: the text itself.
 * HTML and anything unparseable give undefined (a page of markup is no message).
 * @param contentType the response's `Content-Type` (may be null)
 * @param bodyText the body as text
 */
export function parseServerMessage(contentType: string | null | undefined, bodyText: string): string | undefined {
  const type = (contentType ?? '').toLowerCase();
  const trimmed = bodyText.trim();
  if (trimmed.length === 0) return undefined;
  if (type.includes('html') || trimmed.startsWith('<')) return undefined;
  if (type.includes('json') || trimmed.startsWith('{')) {
    let body: unknown;
    try {
      body = JSON.parse(trimmed);
    } catch {
      return undefined;
    }
    if (!isObject(body)) return typeof body === 'string' ? oneLine(body) : undefined;
    const found =
      violationsText(body.violations) ??
      str(body.message) ??
      str(body['hydra:description']) ??
      str(body.description) ??
      str(body.detail) ??
      str(body['hydra:title']) ??
      str(body.title) ??
      (isObject(body.error) ? str(body.error.message) : str(body.error));
    return found === undefined ? undefined : oneLine(found);
  }
  if (type.startsWith('text/plain') || type === '') return oneLine(trimmed);
  return undefined;
}
