/**
 * The options and the path of the library's door (src/index.ts), turned into the export's own
 * `ExportOptions`: the names are the same, each value checked by its row of the flag table
 * (config/flags.ts) before anything is sent.
 */
import { checkOptionNumber, EXPORT_FLAGS, optionNamer, PAGING_PARAMS, withHeader } from '../config/flags.js';
import { parseApiKey, parseBaseUrl, parseBudgetUrl } from '../config/values.js';
import type { ResolvedExportSettings } from '../export/plan/parts.js';
import type { ExportOptions } from '../export/plan/options.js';
import { parseCollectionPath } from '../export/plan/collection-path.js';
import type { Clock } from '../time/clock.js';
import type { FetchLike } from '../context.js';
import { UsageError } from '../errors.js';
import { ENDPOINTS, GET_COMMAND, idSpec, type IdFlagValues, type IdName } from '../endpoints.js';
import { checkHeader } from '../http/request-headers.js';
import type { CollectionEvent } from './events.js';

/** Query parameters: an object, or pairs in order (an array of pairs, a `URLSearchParams`). */
export type Params = Readonly<Record<string, string>> | Iterable<readonly [string, string]>;

/** What every function of the library that calls the API takes. */
export interface ConnectionOptions {
  /** The API's base URL, e.g. `https://api.example.com` (a path prefix is kept). Requests and links never leave its origin. */
  baseUrl: string | URL;
  /** Sent as `X-Api-Key`, to the base URL's origin only; never in an error, event or file. */
  apiKey: string;
  /** Retries of a network error, a 5xx or an unreadable body, 0 to 100 (default 5). Rate-limit waits are not retries. */
  retries?: number;
  /** Per attempt, ms (default 60 000). */
  timeoutMs?: number;
  /** Longest single rate-limit wait accepted, ms (default `Infinity`); a longer one throws `RateLimitError` without waiting. */
  maxWaitMs?: number;
  /** Largest response body accepted, bytes, 1 KiB to 512 MiB (default 256 MiB). */
  maxBodyBytes?: number;
  /** Stops the work: requests and waits in flight end, and the call throws an `AbortError`. */
  signal?: AbortSignal;
  /**
   * Told of every page, response, rate-limit wait and retry, as they happen. Called synchronously;
   * an error it throws stops the work and is thrown by the call.
   */
  onEvent?: (event: CollectionEvent) => void;
  /**
   * The HTTP transport (default: undici with one keep-alive pool per process). Tests inject one;
   * it is called with `redirect: 'manual'` and must not follow redirects itself.
   */
  fetch?: FetchLike;
  /** Time and waiting (default the system clock); a virtual clock makes waits instant in tests. */
  clock?: Clock;
  /**
   * Where the default transport reads `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (pass
   * `process.env` to honour them); default none: no proxy. Nothing else is read from it.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * A `postgres://` URL: the rate budget (per API origin, SHA-256 of the key, and endpoint) kept in
   * that database and shared by every process and host that names it, so pods of one service with
   * one key spend one quota between them (the command line's `--budget`). The table
   * `collections_rate_budget` is created when missing; the key is never stored. The password comes
   * from the URL, else `PGPASSWORD` or the password file of `env`; it appears in no error or event.
   * A database that cannot be used (at the start or later) leaves the call pacing by the server's
   * headers alone, told once as a `budget` event. Needs the optional package `pg`. Default none:
   * the calls of this process share one budget in memory.
   */
  budget?: string;
}

/** Which pages to ask for, as the export commands' flags of the same names. */
export interface PagingOptions {
  /** Cursor pagination (`X-Pagination-Style: cursor`) instead of page numbers (default false). */
  cursor?: boolean;
  /** With `cursor`: ask for `hydra:totalItems` (`X-Pagination-Enable-Partial: 0`). */
  total?: boolean;
  /** Items per request, 1 to 1000 (default 1000, or `maxItems` when smaller). */
  itemsPerPage?: number;
  /** Offset mode: the first page to fetch (default 1). */
  page?: number;
  /** Stop after exactly this many items; no page past the one that completes them is requested. */
  maxItems?: number;
  /** Offset mode: pages in flight, 1 to 16 (default 4); items still come in order. */
  concurrency?: number;
  /** Query parameters sent with every page, after those of `path`; `page` and `itemsPerPage` are the options'. */
  params?: Params;
  /** Only items changed since this time (the endpoint's documented date filter); an ISO 8601 text or a `Date`. */
  since?: string | Date;
  /**
   * The date field `since` filters on, sent as `<field>[after]`, for a path whose field the
   * library does not know (default: the known field of the path, e.g. `updatedAt`).
   */
  sinceField?: string;
}

/**
 * The pairs of `params` in order, checked.
 * @throws {UsageError} for an empty key or `page` / `itemsPerPage`
 */
function paramPairs(params: Params | undefined): Array<[string, string]> {
  if (params === undefined) return [];
  const iterable = Symbol.iterator in params ? (params as Iterable<readonly [string, string]>) : Object.entries(params);
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of iterable) {
    if (typeof key !== 'string' || key === '' || typeof value !== 'string') {
      throw new UsageError(`params must map non-empty names to strings (got ${JSON.stringify(key)})`);
    }
    const paging = PAGING_PARAMS.get(key.toLowerCase());
    if (paging !== undefined) throw new UsageError(`params: ${key} is set by the ${optionNamer(paging)} option`);
    pairs.push([key, value]);
  }
  return pairs;
}

/** What a library call may give beyond {@link ConnectionOptions} and {@link PagingOptions}: the rest of the table's rows, by option name. */
type LibraryValues = ConnectionOptions &
  PagingOptions & { readonly headers?: Readonly<Record<string, string>>; readonly fields?: string | readonly string[] };

/**
 * The call's options as the export's, every row of the flag table the library has (not the
 * command line's own), each value checked by its row: a number against its range in the option's
 * unit, `params` and `headers` into pairs, `since` into ISO 8601 text, `fields` into one list.
 * @throws {UsageError} for a number out of its range, bad `params` or `headers`
 */
export function exportOptionsOf(options: LibraryValues): ExportOptions {
  const given = options as unknown as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const spec of EXPORT_FLAGS) {
    const name = spec.option ?? spec.attribute;
    const value = given[name];
    if (spec.cliOnly === true || value === undefined) continue;
    checkOptionNumber(spec, value);
    out[name] = value;
  }
  const since = options.since instanceof Date ? options.since.toISOString() : options.since;
  const params = paramPairs(options.params);
  const headers = headerPairs(options.headers);
  return {
    ...out,
    since,
    params: params.length > 0 ? params : undefined,
    headers: headers.length > 0 ? headers : undefined,
    fields: Array.isArray(options.fields) ? options.fields.join(',') : (options.fields as string | undefined),
  };
}

/**
 * The settings of a call: its key and base URL, checked as the command line checks them, and no
 * profile defaults (the library reads no config file).
 * @throws {UsageError} for a base URL that is not absolute http(s), holds a user name, a query or
 *   a fragment, for an empty key or one with spaces or control characters, and a `budget` that is no postgres:// URL
 */
export function settingsOf(options: Pick<ConnectionOptions, 'baseUrl' | 'apiKey' | 'budget'>): ResolvedExportSettings {
  // Checked as unknown: a JavaScript caller may leave either out.
  const [raw, key]: unknown[] = [options.baseUrl, options.apiKey];
  if (typeof raw !== 'string' && !(raw instanceof URL)) throw new UsageError('baseUrl is required', { code: 'E_CONFIG' });
  if (typeof key !== 'string') throw new UsageError('apiKey is required', { code: 'E_CONFIG' });
  const baseUrl = parseBaseUrl(raw instanceof URL ? raw.href : raw, 'baseUrl');
  const budget: unknown = options.budget;
  if (budget !== undefined && typeof budget !== 'string') throw new UsageError('budget must be a postgres:// URL');
  return { apiKey: parseApiKey(key, 'apiKey'), baseUrl, defaults: {}, ...(budget === undefined ? {} : { budget: parseBudgetUrl(budget, 'budget') }) };
}

/** What a path asks of the export: the command of its row and its ids, else `get` with the path. */
export interface PathRequest {
  readonly command: string;
  readonly options: ExportOptions;
}

/** The ids in `path` at the template's placeholders, as the id flags give them (`{ taxpayer: 'ABC' }`). */
function idFlagsOf(template: string, path: string): IdFlagValues {
  const segments = path.split('/');
  const ids: IdFlagValues = {};
  template.split('/').forEach((part, k) => {
    const placeholder = /^\{(\w+)\}$/.exec(part);
    if (placeholder !== null) ids[idSpec(placeholder[1] as IdName).attribute] = decodeURIComponent(segments[k]!);
  });
  return ids;
}

/**
 * The path a call names, e.g. `/taxpayers/PEIC211118IS0/invoices?status=paid`, with the call's
 * options: a row of the endpoint table is its command's export, with its ids and its query sent
 * before `params` (as `--param`s); any other path, the current path family included, is `get`'s
 * (its query sent first, as typed).
 * @throws {UsageError} for a path that does not start with `/`, holds a fragment, or a segment
 *   `get` refuses (empty, as in a final `/`; `.` or `..`; invalid percent-encoding; white space)
 */
export function requestOf(path: string, options: ExportOptions): PathRequest {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new UsageError(`path must start with / (got ${JSON.stringify(path)})`, { hint: 'e.g. /taxpayers/PEIC211118IS0/invoices' });
  }
  if (path.includes('#')) throw new UsageError('path must not hold a fragment (#)');
  const parsed = parseCollectionPath(path, optionNamer);
  const endpoint = ENDPOINTS.find((e) => e === parsed.known);
  if (endpoint === undefined) return { command: GET_COMMAND, options: { ...options, path } };
  const params = [...paramPairs(new URLSearchParams(parsed.query)), ...(options.params ?? [])];
  const ids = idFlagsOf(endpoint.path, parsed.path);
  return { command: endpoint.command, options: { ...options, ...ids, params: params.length > 0 ? params : undefined } };
}

/** The headers the library sets itself, and what sets each (the command line words `--header`'s). */
const OWN_HEADERS: ReadonlyMap<string, string> = new Map([
  ['x-api-key', 'the apiKey option sets it'],
  ['accept', 'the library reads JSON-LD/Hydra and always sends Accept: application/ld+json; Accept-Version pins the API version'],
  ['x-pagination-style', 'the cursor option sets it'],
  ['x-pagination-enable-partial', 'the total option sets it (with cursor)'],
]);

/**
 * The caller's extra request headers, checked as `--header`s are.
 * @throws {UsageError} as `checkHeader` and for a name given twice in two cases; the value is never shown
 */
function headerPairs(headers: Readonly<Record<string, string>> = {}): Array<[string, string]> {
  return Object.entries(headers).reduce<Array<[string, string]>>((pairs, [name, value]) => {
    if (typeof value !== 'string') throw new UsageError(`headers: the value of ${name} must be a string without CR, LF or NUL`);
    return withHeader(pairs, checkHeader(name, value, 'headers:', OWN_HEADERS), 'headers:');
  }, []);
}
