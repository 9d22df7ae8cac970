/**
 * The path a library call names, e.g. `/taxpayers/PEIC211118IS0/invoices?status=paid`, checked as
 * `get` checks its path (`parseCollectionPath`): which row of the endpoint table it is (so its
 * ids, cursor support and date filter apply as on the command line), or a path of no row, which
 * `collection()` still pages through.
 */
import { isPathEndpoint, type Endpoint, type IdName, type Ids } from '../endpoints.js';
import { UsageError } from '../errors.js';
import { parseCollectionPath } from '../commands/export/collection-path.js';
import type { IncrementalPlan } from '../commands/export/export-plan.js';
import type { ExportTarget } from '../commands/export/export-plan.js';
import type { ExportFlags } from '../commands/flags.js';

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
 * Splits `path` and finds its row of the endpoint table (the command line's rows; `get`'s path
 * family is a path of no row here).
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
