/**
 * The hints that name the command line's flags and commands, kept out of the ground floor: errors.ts
 * knows what failed (its code, its HTTP status), this floor knows what the user can type to fix it.
 * A hint given where an error is made (e.g. {@link withNotFoundHint}) wins over these.
 */
import { ID_SPECS, type Ids } from '../endpoints.js';
import { CollectionsError, HttpError, type ErrorCode } from '../errors.js';
import { inertText } from '../io/terminal-text.js';

/** The key hint of a 401 or 403. */
export const KEY_HINT = 'set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY';

/**
 * What to do about an HTTP status the client does not retry, by the code errors.ts gives it: 400
 * and 422 (`E_API_REJECTED`: API Platform 4 answers an invalid query parameter with 422), 401 and
 * 403 (`E_AUTH`). Other 4xx (`E_HTTP_UNEXPECTED`) have no hint; a 404's is {@link notFoundHintOf}.
 */
const HTTP_HINTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  E_API_REJECTED: 'check --param values',
  E_AUTH: KEY_HINT,
};

/**
 * A server's refusal of the page size: its message names `itemsPerPage` (API Platform's
 * parameter, or a violation's `propertyPath`), or speaks of items per page or the page size.
 */
const PAGE_SIZE_REFUSED = /itemsPerPage|items per page|page size/i;

/** The path and query of an error's request, read against a placeholder origin (the path alone is absolute). */
const requestUrl = (err: HttpError): URL => new URL(err.details.path, 'http://h');

/** The hint of a 400 or 422 whose message refuses the page size: the value asked, and `--items-per-page`. */
function pageSizeHint(err: HttpError): string | undefined {
  if (err.code !== 'E_API_REJECTED' || !PAGE_SIZE_REFUSED.test(err.details.serverMessage ?? '')) return undefined;
  const asked = requestUrl(err).searchParams.get('itemsPerPage');
  return `the API refuses this page size${asked === null ? '' : ` (itemsPerPage=${asked})`}: give a smaller --items-per-page, e.g. 100`;
}

/** The hint of a 404 no command has named the ids of: the path itself (the ids in it, a prefix of base-url). */
function notFoundHintOf(err: HttpError): string {
  return `check the path ${requestUrl(err).pathname} (the ids in it, and the path of base-url)`;
}

/**
 * The hint shown after a failure's message: its own, else for an {@link HttpError} the one of its
 * status ({@link HTTP_HINTS}, the page size refused, the path not found); undefined when there is none.
 */
export function hintOf(err: CollectionsError): string | undefined {
  if (err.hint !== undefined) return err.hint;
  if (!(err instanceof HttpError)) return undefined;
  if (err.code === 'E_NOT_FOUND') return notFoundHintOf(err);
  return pageSizeHint(err) ?? HTTP_HINTS[err.code];
}

/*
 * A 404 says the API has nothing at that path: the ids given may be wrong, or the path itself (a
 * base URL's prefix, a path given to `get`, a route this deployment does not serve), so the hint
 * names what was given and the path, never an id that was not given.
 */
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
