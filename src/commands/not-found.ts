/**
 * The hint of a 404 (README, "Exit codes": 4). The HTTP layer knows only the path; the command
 * knows which ids the user gave. A 404 says that the API has nothing at that path: the ids given
 * may be wrong, or the path itself (a base URL's prefix, a path given to `get`, a route this
 * deployment does not serve), so the hint names what was given and the path, never an id that
 * was not given.
 */
import { ID_SPECS, type Ids } from '../endpoints.js';
import { HttpError } from '../errors.js';
import { inertText } from '../io/terminal-text.js';

const BASE_URL_SOURCES = '`collections config get base-url`, --base-url or COLLECTIONS_BASE_URL';

/**
 * What to check after a 404 of `path`: the ids given (`check --taxpayer X, or whether …`), or
 * without ids the path itself and base-url's.
 * @param ids the ids the command was given (endpoints.ts `idsFromFlags`; none for `get`)
 * @param path the path that was not found, without its query (e.g. `/v1/entities`)
 * @param baseUrl the configured base URL (origin and path prefix are shown; it holds no secret)
 */
export function notFoundHint(ids: Ids, path: string, baseUrl: URL): string {
  const given = ID_SPECS.filter((spec) => ids[spec.name] !== undefined).map((spec) => `${spec.flag} ${inertText(ids[spec.name]!)}`);
  const where = `${baseUrl.origin}${path}`;
  if (given.length > 0) return `check ${given.join(' and ')}, or whether the API serves ${where} at all`;
  return `check the path ${path} and the path of base-url ${baseUrl.origin}${baseUrl.pathname} (${BASE_URL_SOURCES})`;
}

/**
 * Gives a 404 the hint of {@link notFoundHint}; any other error is returned as it is.
 * @returns a new {@link HttpError} with the same details (the original as its `cause`), or `err`
 */
export function withNotFoundHint(err: unknown, ids: Ids, baseUrl: URL): unknown {
  if (!(err instanceof HttpError) || err.details.status !== 404) return err;
  const path = new URL(err.details.path, baseUrl.origin).pathname;
  return new HttpError(err.details, { hint: notFoundHint(ids, path, baseUrl), cause: err });
}
