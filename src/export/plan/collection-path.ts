/** `get`'s path (docs/get.md) becomes an endpoint row, so the export machinery treats it as any other. */
import { buildPath, ENDPOINTS, GET_COMMAND, idsFromFlags, PATH_FAMILY, resolveEndpoint, type Endpoint, type Ids } from '../../endpoints.js';
import { UsageError, hint, option } from '../../errors.js';
import { flagNamer, PAGING_PARAMS, type OptionNamer } from '../../config/flags.js';
import type { ExportOptions } from './options.js';

/** `path` as sent (percent-encoded), `query` as typed (no `?`). */
export interface CollectionPath {
  readonly path: string;
  readonly query: string;
  readonly known: Endpoint | undefined;
}

function fitsTemplate(segments: readonly string[], template: string): boolean {
  const pattern = template.split('/').slice(1);
  return pattern.length === segments.length && pattern.every((t, i) => (t.startsWith('{') ? segments[i] !== '' : t === segments[i]));
}

function checkSegments(input: string, path: string): string[] {
  const segments = path.split('/').slice(1);
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new UsageError(`path ${JSON.stringify(input)} holds invalid percent-encoding ('${segment}')`);
    }
    if (segment === '') throw new UsageError(`path ${JSON.stringify(input)} has an empty segment ('//' or a final '/')`);
    if (decoded === '.' || decoded === '..')
      throw new UsageError(`path ${JSON.stringify(input)} has a '${decoded}' segment`, { hint: 'give the collection path itself, e.g. /entities' });
  }
  return segments;
}

/**
 * Checks a path relative to the base URL (the leading `/` optional, as `gh api` takes it). Refused:
 * a URL (so a request only goes to the base URL's origin), a fragment, an empty or dot segment
 * (also percent-encoded: URL parsing would resolve it elsewhere, RFC 3986 §5.2.4), `\`, white
 * space, control characters, a `{…}` left in, and `page` or `itemsPerPage` in the query.
 * @throws {UsageError} (exit 2) naming the path and what is wrong
 */
export function parseCollectionPath(input: string, name: OptionNamer = flagNamer): CollectionPath {
  const shown = JSON.stringify(input);
  const example = 'write the ids in the path, percent-encoded, e.g. /entities/0190a6e4-…/invoices';
  if (input === '') throw new UsageError('get needs a collection path', { hint: example });
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(input) || input.startsWith('//'))
    throw new UsageError(`path ${shown} is a URL; give the path under the base URL`, { hint: example });
  if (input.includes('#')) throw new UsageError(`path ${shown} has a fragment ('#'); a collection path has none`);
  // eslint-disable-next-line no-control-regex -- control characters are refused on purpose
  const bad = /[\\\s\u0000-\u001f\u007f{}]/u.exec(input);
  if (bad) {
    const what = bad[0] === '\\' ? "'\\'" : bad[0] === '{' || bad[0] === '}' ? "a '{…}' placeholder" : 'white space or control characters';
    throw new UsageError(`path ${shown} holds ${what}`, { hint: example });
  }
  const withSlash = input.startsWith('/') ? input : `/${input}`;
  const mark = withSlash.indexOf('?');
  const typed = mark < 0 ? withSlash : withSlash.slice(0, mark);
  const query = mark < 0 ? '' : withSlash.slice(mark + 1);
  const segments = checkSegments(input, typed);
  // As sent (`Ñ` → `%C3%91`): keys and manifests name the path requested.
  const path = new URL(typed, 'http://path.invalid').pathname;
  for (const key of new URLSearchParams(query).keys()) {
    const paging = PAGING_PARAMS.get(key.toLowerCase());
    const flag = paging === undefined ? undefined : name(paging);
    if (flag !== undefined) throw new UsageError(`path ${shown} sets ${key}, which ${flag} sets`, { hint: `drop it from the path, or use ${flag}` });
  }
  const known = [...PATH_FAMILY, ...ENDPOINTS].find((e) => fitsTemplate(segments, e.path));
  return { path, query, known };
}

/** Keyed by the path (state file, rate-limit cache); the rest is the fitted template's, none otherwise. */
export function pathEndpoint(target: CollectionPath, sinceField?: string): Endpoint {
  const { known, path } = target;
  return {
    key: path,
    command: GET_COMMAND,
    path: known?.path ?? path,
    ids: [],
    cursor: known?.cursor ?? false,
    watermark: sinceField ?? known?.watermark,
    description: known?.description ?? `the collection at ${path}`,
    tableFields: known?.tableFields ?? [],
  };
}

export interface ExportSource {
  readonly endpoint: Endpoint;
  readonly ids: Ids;
  /** Ids filled in, or the path given to `get`. */
  readonly path: string;
  /** `get`'s query (no `?`), sent first as typed; empty otherwise. */
  readonly query: string;
}

const SINCE_FIELD = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * @throws {UsageError} (exit 2) for an invalid path, `--since-field` or id, or ids no endpoint of the command takes
 */
export function resolveSource(command: string, options: ExportOptions, name: OptionNamer = flagNamer): ExportSource {
  const { path, sinceField } = options;
  if (command !== GET_COMMAND) {
    const ids = idsFromFlags(options);
    const endpoint = resolveEndpoint(command, ids);
    return { endpoint, ids, path: buildPath(endpoint, ids), query: '' };
  }
  if (sinceField !== undefined && !SINCE_FIELD.test(sinceField)) {
    throw new UsageError(`${name('sinceField')} ${JSON.stringify(sinceField)} is not a field name`, {
      hint: hint`e.g. ${option('sinceField', 'updatedAt')}`,
    });
  }
  const target = parseCollectionPath(path ?? '', name);
  return { endpoint: pathEndpoint(target, sinceField), ids: {}, path: target.path, query: target.query };
}
