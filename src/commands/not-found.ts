/**
 * The hint of a 404 on an export (README, "Exit codes": 4). The HTTP layer knows only the path, so
 * it can only say "not found"; the command knows which ids the user gave, and names those alone.
 * With no id at all (`entities`, `events`) the path the API did not find is the base URL's own:
 * its path prefix is the likely mistake.
 */
import { ID_SPECS, type Ids } from '../endpoints.js';
import { HttpError } from '../errors.js';
import { inertText } from '../io/terminal-text.js';

/**
 * What to check after a 404: `check --taxpayer X` (or `check --taxpayer X and --invoice Y`), or
 * without ids `check the path of base-url …`.
 * @param ids the ids the export was given (endpoints.ts `idsFromFlags`)
 * @param baseUrl the configured base URL (origin and path prefix are shown; it holds no secret)
 * @param path the path given to `get`: the one to check
 */
function notFoundHint(ids: Ids, baseUrl: URL, path?: string): string {
  if (path !== undefined) return `check the path ${inertText(path)} (the API has no collection there under ${baseUrl.origin}${baseUrl.pathname})`;
  const given = ID_SPECS.filter((spec) => ids[spec.name] !== undefined).map((spec) => `${spec.flag} ${inertText(ids[spec.name]!)}`);
  const base = `${baseUrl.origin}${baseUrl.pathname}`;
  if (given.length > 0) return `check ${given.join(' and ')} (the API does not know ${given.length > 1 ? 'one of them' : 'it'} at ${base})`;
  return `no id was given, so the path of base-url ${base} is the likely mistake: check it (\`collections config get base-url\`, --base-url or COLLECTIONS_BASE_URL)`;
}

/**
 * Gives a 404 of an export the hint of {@link notFoundHint} (`path`: the one given to `get`); any other error is returned as it is.
 * @returns a new {@link HttpError} with the same details (the original as its `cause`), or `err`
 */
export function withNotFoundHint(err: unknown, ids: Ids, baseUrl: URL, path?: string): unknown {
  if (!(err instanceof HttpError) || err.details.status !== 404) return err;
  return new HttpError(err.details, { hint: notFoundHint(ids, baseUrl, path), cause: err });
}
