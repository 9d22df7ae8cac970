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

/**
 * Other 4xx have no hint here. A 400/422 (`E_API_REJECTED`, API Platform 4's answer to an invalid
 * query parameter) gets one from {@link withRequestHint}, which knows what the user gave.
 */
const HTTP_HINTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  E_AUTH: KEY_HINT,
};

/** `itemsPerPage` is API Platform's parameter, and a violation's `propertyPath`. */
const PAGE_SIZE_REFUSED = /itemsPerPage|items per page|page size/i;

/** The path alone is absolute: read against a placeholder origin. */
const requestUrl = (err: HttpError): URL => new URL(err.details.path, 'http://h');

/** Words of a largest value, inclusive (Symfony's LessThanOrEqual and Range, API Platform's own, and plainer ones). */
const INCLUSIVE_MAXIMUM =
  /(?:less than or equal to|at most|no more than|not (?:be )?(?:greater|more) than|not exceed|maximum(?: value)?(?: is| of)?|max(?:imum)?:|between \d+ and|<=|≤)\s*(\d+)/i;
/** Symfony's LessThan: `should be less than 51`. */
const EXCLUSIVE_MAXIMUM = /less than\s*(\d+)/i;

/** The largest page size a server message allows, when it says; undefined otherwise. */
export function pageSizeMaximum(message: string): number | undefined {
  const inclusive = INCLUSIVE_MAXIMUM.exec(message);
  if (inclusive) return Number(inclusive[1]);
  const exclusive = EXCLUSIVE_MAXIMUM.exec(message);
  return exclusive ? Number(exclusive[1]) - 1 : undefined;
}

/** A suggestion without a maximum, only when it is smaller than what was asked. */
const SMALLER_PAGE_SIZE = 100;

function pageSizeHint(err: HttpError): string | undefined {
  const message = err.details.serverMessage ?? '';
  if (err.code !== 'E_API_REJECTED' || !PAGE_SIZE_REFUSED.test(message)) return undefined;
  const asked = requestUrl(err).searchParams.get('itemsPerPage');
  const refused = `the API refuses this page size${asked === null ? '' : ` (itemsPerPage=${asked})`}`;
  const maximum = pageSizeMaximum(message);
  if (maximum !== undefined && maximum >= 1) return `${refused}: give --items-per-page ${maximum} or less`;
  const example = asked !== null && Number(asked) > SMALLER_PAGE_SIZE ? `, e.g. ${SMALLER_PAGE_SIZE}` : '';
  return `${refused}: give a smaller --items-per-page${example}`;
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

/** What the user gave that a 404 or a 400/422 may be about. */
export interface RequestGiven {
  ids: Ids;
  baseUrl: URL;
  /** `--param` pairs. */
  params: ReadonlyArray<readonly [string, string]>;
  /** The query of `get`'s path as typed (no `?`); empty otherwise. */
  query: string;
}

/** Longer queries are cut in the hint. */
const SHOWN_QUERY_LENGTH = 100;

/** Of a 400/422 that is not about the page size: `--param` only when given, else the path's own query. */
function rejectedHint(given: RequestGiven): string | undefined {
  if (given.params.length > 0) return 'check --param values';
  if (given.query === '') return undefined;
  const query = given.query.length > SHOWN_QUERY_LENGTH ? `${given.query.slice(0, SHOWN_QUERY_LENGTH)}…` : given.query;
  return `check the query of the path (?${query})`;
}

/** A 404 and a 400/422 get the hint of what was given; any other error is returned as it is. */
export function withRequestHint(err: unknown, given: RequestGiven): unknown {
  if (!(err instanceof HttpError)) return err;
  if (err.details.status === 404) {
    const path = new URL(err.details.path, given.baseUrl.origin).pathname;
    return new HttpError(err.details, { hint: notFoundHint(given.ids, path, given.baseUrl), cause: err });
  }
  if (err.code !== 'E_API_REJECTED' || err.hint !== undefined || pageSizeHint(err) !== undefined) return err;
  const hint = rejectedHint(given);
  return hint === undefined ? err : new HttpError(err.details, { hint, cause: err });
}
