/**
 * The hints that name the command line's flags and commands, kept out of the ground floor: errors.ts
 * knows what failed (its code, its HTTP status), this floor knows what the user can type to fix it.
 * A hint given where an error is made (`hint` of its options, e.g. the 404 hint of
 * commands/not-found.ts that names the ids given) wins over these.
 */
import { CollectionsError, HttpError, type ErrorCode } from '../errors.js';

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
