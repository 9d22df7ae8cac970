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
 * 403 (`E_AUTH`), 404 (`E_NOT_FOUND`). Other 4xx (`E_HTTP_UNEXPECTED`) have no hint.
 */
const HTTP_HINTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  E_API_REJECTED: 'check --param values',
  E_AUTH: KEY_HINT,
  E_NOT_FOUND: 'check the --taxpayer and --invoice ids',
};

/**
 * The hint shown after a failure's message: its own, else for an {@link HttpError} the one of its
 * code ({@link HTTP_HINTS}); undefined when there is none.
 */
export function hintOf(err: CollectionsError): string | undefined {
  if (err.hint !== undefined) return err.hint;
  return err instanceof HttpError ? HTTP_HINTS[err.code] : undefined;
}
