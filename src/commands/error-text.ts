/**
 * The one error line (README, "Exit codes") and the command line's words for hints: an error's
 * `advice` names options and steps, worded here as flags and commands; the 404 and 400/422 hints of
 * what the user typed (ids, `--param`, the path's query).
 */
import { EXPORT_FLAGS, longFlag } from '../config/flags.js';
import { ID_SPECS, type Ids } from '../endpoints.js';
import { CollectionsError, HttpError, renderHint, type HintWords } from '../errors.js';
import { inertText } from '../io/terminal-text.js';
import type { Secrets } from '../secrets.js';

/**
 * One line, not yet inert (others than {@link CollectionsError} are bugs); secrets scrubbed from all text, encoded too.
 * @param options.hint `<message>; <hint>`; default true
 */
export function errorText(err: unknown, secrets?: Pick<Secrets, 'redact'>, options: { hint?: boolean } = {}): string {
  const hint = err instanceof CollectionsError && options.hint !== false ? hintOf(err) : undefined;
  const text =
    err instanceof CollectionsError
      ? err.message + (hint ? `; ${hint}` : '')
      : `internal error, please report: ${err instanceof Error ? err.message : String(err)}`;
  return (secrets ? secrets.redact(text) : text).replace(/[\r\n]+/g, ' ');
}

/** `collections: <what happened>; <hint>`, made inert: a message may quote a server, a header, a URL or a checkpoint. */
export function formatError(err: unknown, secrets?: Pick<Secrets, 'redact'>): string {
  return `collections: ${inertText(errorText(err, secrets))}`;
}

export const KEY_HINT = 'set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY';

const BASE_URL_SOURCES = '`collections config get base-url`, --base-url or COLLECTIONS_BASE_URL';

/** The command line's words for a hint: flags, and the commands to run. */
export const CLI_WORDS: HintWords = {
  option: ({ option: name, value }) => {
    // The flag table's row of the option; the sandbox's options (`port`, `host`) are their flags.
    const row = EXPORT_FLAGS.find((f) => (f.option ?? f.attribute) === name);
    const flag = row === undefined ? `--${name}` : longFlag(row);
    return value === undefined || value === true ? flag : `${flag} ${value}`;
  },
  step: {
    resume: ({ command }) => `resume with: ${command} --resume`,
    streamOut: () => 'stdout exports cannot resume; use --out FILE',
    checkBaseUrl: () => `check base-url (${BASE_URL_SOURCES})`,
    useBaseUrl: ({ url }) => `use ${url} as base-url`,
    checkPath: ({ path }) => `check the path ${path} (the ids in it, and the path of base-url)`,
    startSandbox: () => 'to try the tool locally, run `collections sandbox` and use the base URL it prints',
    setApiKey: () => KEY_HINT,
    install: ({ packageName }) => `install it beside collections (npm install -g ${packageName}), or write a file`,
  },
};

export function hintOf(err: CollectionsError): string | undefined {
  return err.advice && renderHint(err.advice, CLI_WORDS);
}

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
  if (err.code !== 'E_API_REJECTED' || err.advice !== undefined) return err;
  const hint = rejectedHint(given);
  return hint === undefined ? err : new HttpError(err.details, { hint, cause: err });
}
