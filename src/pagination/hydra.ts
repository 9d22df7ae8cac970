// A Hydra Core Vocabulary collection page, prefixed (`hydra:member`) or not (API Platform 3+).
import { HostileResponseError } from '../errors.js';
import { UnreadableBodyError } from '../http/client.js';
import { defined, isObject, type JsonObject } from '../json/object.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-scan.js';

/** Links of a page's `hydra:view`, as the body has them (relative or absolute). */
export interface HydraView {
  /** `@id`: the current page. */
  id?: string;
  first?: string;
  next?: string;
  previous?: string;
  last?: string;
}

/** A page parsed by `JSON.parse`: the envelope of every page, and a page the scan refused. */
export interface HydraPage {
  members: unknown[];
  /** Always in offset mode; in cursor mode only with `X-Pagination-Enable-Partial: 0`. */
  totalItems?: number;
  /** Undefined on a single-page collection. */
  view?: HydraView;
}

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
  for (const name of ['first', 'next', 'previous', 'last'] as const) {
    const uri = link(value, name);
    if (uri !== undefined) view[name] = uri;
  }
  return view;
}

/** @throws {UnreadableBodyError} for a body that is no object, a `member` that is no array, or none of `member`, `totalItems`, `view` */
export function parsePage(body: unknown): HydraPage {
  if (!isObject(body)) {
    const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
    throw new UnreadableBodyError(`not a Hydra collection: the body is ${kind}, not an object`);
  }
  const rawMembers = term(body, 'member');
  const rawTotal = term(body, 'totalItems');
  const rawView = term(body, 'view');
  let members: unknown[];
  if (rawMembers === undefined) {
    // An empty collection may omit `member`, but then it still says how many items (0) or where it is.
    if (rawTotal === undefined && rawView === undefined) {
      throw new UnreadableBodyError('not a Hydra collection: no member, totalItems or view');
    }
    members = [];
  } else if (Array.isArray(rawMembers)) {
    members = rawMembers;
  } else {
    throw new UnreadableBodyError(`not a Hydra collection: member is ${rawMembers === null ? 'null' : typeof rawMembers}, not an array`);
  }
  const totalItems = typeof rawTotal === 'number' && Number.isSafeInteger(rawTotal) && rawTotal >= 0 ? rawTotal : undefined;
  return { members, ...defined({ totalItems, view: parseView(rawView) }) };
}

/** @throws {UnreadableBodyError} when the `Content-Type` says HTML (a proxy's or a maintenance page) */
export function refuseHtml(contentType: string | null | undefined): void {
  if ((contentType ?? '').toLowerCase().includes('html')) throw new UnreadableBodyError('HTML instead of JSON');
}

/**
 * @throws {UnreadableBodyError} `invalid JSON`, or {@link parsePage}'s
 * @throws {HostileResponseError} (exit 6, not retried) for JSON nested deeper than {@link MAX_JSON_DEPTH}
 */
export function parsePageText(text: string): HydraPage {
  if (exceedsJsonDepth(text)) {
    throw new HostileResponseError(`the page is JSON nested more than ${MAX_JSON_DEPTH} levels deep`, {
      hint: 'the server sent a page no collection needs; not retried',
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new UnreadableBodyError('invalid JSON', { cause: err });
  }
  return parsePage(body);
}
