/**
 * The options and the path of the library's door (src/index.ts) and their translation into what
 * the export command hands its planner: the same `ExportFlags` (commands/flags.ts) and settings, so
 * the library and the command line plan pages, limits and outputs with one set of functions. Values
 * are checked against the ranges of the one flag table (config/flags.ts) before anything is sent.
 */
import { exportFlag } from '../config/flags.js';
import { parseApiKey, parseBaseUrl, parseBudgetUrl } from '../config/values.js';
import type { ExportFlagValues } from '../config/flags.js';
import type { ExportFlags } from '../commands/flags.js';
import type { ExportTarget, IncrementalPlan, ResolvedExportSettings } from '../export/plan/parts.js';
import { parseCollectionPath } from '../export/plan/collection-path.js';
import type { Clock } from '../time/clock.js';
import type { FetchLike } from '../context.js';
import { UsageError } from '../errors.js';
import { defined } from '../json/object.js';
import { ID_SPECS, isPathEndpoint, type Endpoint, type IdName, type Ids } from '../endpoints.js';
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
}

/** A number option checked against the range of a flag of the flag table. */
interface NumberRule {
  attribute: keyof ExportFlagValues;
  /** The option holds milliseconds where the flag holds seconds. */
  ms?: boolean;
}

const NUMBER_RULES: Readonly<Record<string, NumberRule>> = {
  itemsPerPage: { attribute: 'itemsPerPage' },
  page: { attribute: 'page' },
  maxItems: { attribute: 'maxItems' },
  concurrency: { attribute: 'concurrency' },
  retries: { attribute: 'retries' },
  maxBodyBytes: { attribute: 'maxBodySize' },
  timeoutMs: { attribute: 'timeout', ms: true },
  maxWaitMs: { attribute: 'maxWait', ms: true },
};

/** @throws {UsageError} naming the option, its flag's range and the value given */
function checkNumber(name: string, value: unknown): void {
  const rule = NUMBER_RULES[name];
  if (value === undefined || rule === undefined) return;
  const spec = exportFlag(rule.attribute).value;
  if (spec.kind !== 'integer' && spec.kind !== 'seconds' && spec.kind !== 'bytes') return;
  const [min, max] = rule.ms ? [spec.min * 1000, spec.max * 1000] : [spec.min, spec.max];
  const shown = typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (rule.ms) {
    // `maxWaitMs: Infinity` is the default itself: no limit.
    const ok = typeof value === 'number' && ((value >= min && value <= max) || (name === 'maxWaitMs' && value === Infinity));
    if (!ok) throw new UsageError(`${name} must be a number of milliseconds from ${min} to ${max} (got ${shown})`);
    return;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${name} must be a whole number ${range} (got ${shown})`);
  }
}

/** Query parameters the options set themselves (as `--param` refuses them). */
const RESERVED_PARAMS: Readonly<Record<string, string>> = { page: 'page', itemsperpage: 'itemsPerPage' };

/**
 * The pairs of `params` in order, checked.
 * @throws {UsageError} for an empty key or `page` / `itemsPerPage`
 */
export function paramPairs(params: Params | undefined): Array<[string, string]> {
  if (params === undefined) return [];
  const iterable = Symbol.iterator in params ? (params as Iterable<readonly [string, string]>) : Object.entries(params);
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of iterable) {
    if (typeof key !== 'string' || key === '' || typeof value !== 'string') {
      throw new UsageError(`params must map non-empty names to strings (got ${JSON.stringify(key)})`);
    }
    const reserved = RESERVED_PARAMS[key.toLowerCase()];
    if (reserved !== undefined) throw new UsageError(`params: ${key} is set by the ${reserved} option`);
    pairs.push([key, value]);
  }
  return pairs;
}

/**
 * The flags an export command would have been given for these options: the ids, the paging
 * options, the client's limits, and no progress (the library prints nothing of its own).
 * @param extra flags of the caller (exportCollection's output options), already in flag form
 * @throws {UsageError} for a number out of its flag's range or bad `params`
 */
export function flagsOf(options: ConnectionOptions & PagingOptions, ids: Ids, extra: ExportFlags = {}): ExportFlags {
  const numbers: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(NUMBER_RULES)) {
    const value = (options as unknown as Record<string, unknown>)[name];
    checkNumber(name, value);
    numbers[rule.attribute] = value;
  }
  const since = options.since instanceof Date ? options.since.toISOString() : options.since;
  const param = paramPairs(options.params);
  return {
    ...defined(Object.fromEntries(ID_SPECS.map((spec) => [spec.attribute, ids[spec.name]]))),
    ...defined({ cursor: options.cursor, total: options.total, since, ...numbers }),
    ...(param.length > 0 ? { param } : {}),
    quiet: true,
    progress: false,
    ...extra,
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

/** A path split into its row of the endpoint table (if any), its ids and its query. */
export interface PathTarget {
  /** The row whose template the path fills; undefined for a path of no row. */
  endpoint: Endpoint | undefined;
  /** The ids the template's placeholders matched, decoded. */
  ids: Ids;
  /** The path without its query, percent-encoded as sent. */
  path: string;
  /** The query's pairs, in order. */
  query: Array<[string, string]>;
}

function idsOf(template: string, path: string): Ids {
  const segments = path.split('/');
  const ids: Ids = {};
  template.split('/').forEach((part, k) => {
    const placeholder = /^\{(\w+)\}$/.exec(part);
    if (placeholder !== null) ids[placeholder[1] as IdName] = decodeURIComponent(segments[k]!);
  });
  return ids;
}

/**
 * The path a call names, e.g. `/taxpayers/PEIC211118IS0/invoices?status=paid`, checked as `get`
 * checks its path (`parseCollectionPath`), split, and its row of the endpoint table (the command
 * line's rows, so their ids, cursor support and date filter apply; `get`'s path family and any
 * other path are a path of no row, which `collection()` still pages through).
 * @throws {UsageError} for a path that does not start with `/`, holds a fragment, or a segment
 *   `get` refuses (empty, as in a final `/`; `.` or `..`; invalid percent-encoding; white space)
 */
export function targetOfPath(path: string): PathTarget {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new UsageError(`path must start with / (got ${JSON.stringify(path)})`, { hint: 'e.g. /taxpayers/PEIC211118IS0/invoices' });
  }
  if (path.includes('#')) throw new UsageError('path must not hold a fragment (#)');
  const q = path.indexOf('?');
  const parsed = parseCollectionPath(q === -1 ? path : path.slice(0, q));
  const query = q === -1 ? [] : [...new URLSearchParams(path.slice(q + 1))];
  const endpoint = parsed.known === undefined || isPathEndpoint(parsed.known) ? undefined : parsed.known;
  return { endpoint, ids: endpoint ? idsOf(endpoint.path, parsed.path) : {}, path: parsed.path, query };
}

const FULL_EXPORT: IncrementalPlan = { incremental: false, filter: undefined, state: undefined };

/**
 * The export target of a path of no row: its paging mode from the flags, checked as the command
 * line checks a row's (commands/export/export-plan.ts `planTarget`), and no date filter.
 * @throws {UsageError} for `since` (no documented filter), `total` without `cursor`, `page` with `cursor`
 */
export function targetOfOtherPath(path: string, flags: ExportFlags): ExportTarget {
  if (flags.since !== undefined) throw new UsageError(`since needs a collection with a documented date filter; ${path} is not one`);
  const cursor = flags.cursor === true;
  if (flags.total === true && !cursor) throw new UsageError('--total goes with --cursor (offset mode always reports the total)');
  if (cursor && flags.page !== undefined) throw new UsageError('--page is for offset mode; cursor mode starts at the first page');
  const endpoint: Endpoint = { key: 'path', command: '', path, ids: [], cursor: true, watermark: undefined, description: path, tableFields: [] };
  return { endpoint, ids: {}, path, query: '', inc: FULL_EXPORT, cursor };
}
