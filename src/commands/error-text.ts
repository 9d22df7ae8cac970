/**
 * The one error line (README, "Exit codes") and the hints that name the command line's flags, kept
 * out of the ground floor: errors.ts knows what failed, this floor what the user can type to fix it.
 */
import { ID_SPECS, type Ids } from '../endpoints.js';
import { CollectionsError, HttpError, type ErrorCode } from '../errors.js';
import { inertText } from '../io/terminal-text.js';
import type { Secrets } from '../secrets.js';

/**
 * One line, not yet made inert: any other error than a {@link CollectionsError} is a bug. The
 * secrets are scrubbed whatever the origin of the text (also their encoded forms).
 * @param options.hint `<message>; <hint>`; default true
 */
export function errorText(err: unknown, secrets?: Pick<Secrets, 'redact'>, options: { hint?: boolean } = {}): string {
  let text: string;
  if (err instanceof CollectionsError) {
    const hint = options.hint === false ? undefined : hintOf(err);
    text = err.message + (hint ? `; ${hint}` : '');
  } else {
    text = `internal error, please report: ${err instanceof Error ? err.message : String(err)}`;
  }
  return (secrets ? secrets.redact(text) : text).replace(/[\r\n]+/g, ' ');
}

/** `collections: <what happened>; <hint>`, made inert: a message may quote a server, a header, a URL or a checkpoint. */
export function formatError(err: unknown, secrets?: Pick<Secrets, 'redact'>): string {
  return `collections: ${inertText(errorText(err, secrets))}`;
}

export const KEY_HINT = 'set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY';

/** `E_API_REJECTED`: API Platform 4 answers an invalid query parameter with 422. Other 4xx have no hint. */
const HTTP_HINTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  E_API_REJECTED: 'check --param values',
  E_AUTH: KEY_HINT,
};

/** `itemsPerPage` is API Platform's parameter, and a violation's `propertyPath`. */
const PAGE_SIZE_REFUSED = /itemsPerPage|items per page|page size/i;

/** The path alone is absolute: read against a placeholder origin. */
const requestUrl = (err: HttpError): URL => new URL(err.details.path, 'http://h');

function pageSizeHint(err: HttpError): string | undefined {
  if (err.code !== 'E_API_REJECTED' || !PAGE_SIZE_REFUSED.test(err.details.serverMessage ?? '')) return undefined;
  const asked = requestUrl(err).searchParams.get('itemsPerPage');
  return `the API refuses this page size${asked === null ? '' : ` (itemsPerPage=${asked})`}: give a smaller --items-per-page, e.g. 100`;
}

/** Of a 404 no command has named the ids of. */
function notFoundHintOf(err: HttpError): string {
  return `check the path ${requestUrl(err).pathname} (the ids in it, and the path of base-url)`;
}

/** Its own, else for an {@link HttpError} the one of its status. */
export function hintOf(err: CollectionsError): string | undefined {
  if (err.hint !== undefined) return err.hint;
  if (!(err instanceof HttpError)) return undefined;
  if (err.code === 'E_NOT_FOUND') return notFoundHintOf(err);
  return pageSizeHint(err) ?? HTTP_HINTS[err.code];
}

const BASE_URL_SOURCES = '`collections config get base-url`, --base-url or COLLECTIONS_BASE_URL';

/**
 * A 404 says the ids given may be wrong, or the path itself (a base URL's prefix, a path given to
 * `get`, a route this deployment does not serve): never name an id that was not given.
 * @param path without its query
 * @param baseUrl shown: it holds no secret
 */
export function notFoundHint(ids: Ids, path: string, baseUrl: URL): string {
  const given = ID_SPECS.filter((spec) => ids[spec.name] !== undefined).map((spec) => `${spec.flag} ${inertText(ids[spec.name]!)}`);
  const where = `${baseUrl.origin}${path}`;
  if (given.length > 0) return `check ${given.join(' and ')}, or whether the API serves ${where} at all`;
  return `check the path ${path} and the path of base-url ${baseUrl.origin}${baseUrl.pathname} (${BASE_URL_SOURCES})`;
}

/** Any other error than a 404 is returned as it is. */
export function withNotFoundHint(err: unknown, ids: Ids, baseUrl: URL): unknown {
  if (!(err instanceof HttpError) || err.details.status !== 404) return err;
  const path = new URL(err.details.path, baseUrl.origin).pathname;
  return new HttpError(err.details, { hint: notFoundHint(ids, path, baseUrl), cause: err });
}
