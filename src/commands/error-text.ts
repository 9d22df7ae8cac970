/**
 * The one formatter of failures (README, "Exit codes"): the stderr line of main() and the process
 * guard, the `error` event of `--log-format json`, and the reason of one taxpayer's failure in a
 * run of many. Below cli/ so that commands (commands/batch.ts) use it too.
 */
import { CollectionsError } from '../errors.js';
import { inertText } from '../io/terminal-text.js';
import type { Secrets } from '../secrets.js';
import { hintOf } from './hints.js';

/** Options of {@link errorText}. */
export interface ErrorTextOptions {
  /** Whether the hint follows the message (`<message>; <hint>`); default true. */
  hint?: boolean;
}

/**
 * The text of a failure on one line, not yet made inert: a {@link CollectionsError}'s message (and
 * its hint, commands/hints.ts `hintOf`), else `internal error, please report: <message>` (a bug).
 * The secrets are scrubbed whatever the origin of the text (also their encoded forms), and line
 * breaks become one space.
 * @param secrets the run's secrets (the Context's); none: nothing to scrub
 */
export function errorText(err: unknown, secrets?: Pick<Secrets, 'redact'>, options: ErrorTextOptions = {}): string {
  let text: string;
  if (err instanceof CollectionsError) {
    const hint = options.hint === false ? undefined : hintOf(err);
    text = err.message + (hint ? `; ${hint}` : '');
  } else if (err instanceof Error) {
    text = `internal error, please report: ${err.message}`;
  } else {
    text = `internal error, please report: ${String(err)}`;
  }
  return (secrets ? secrets.redact(text) : text).replace(/[\r\n]+/g, ' ');
}

/**
 * Formats an error as the one stderr line of the README ("Exit codes"): `collections: <what happened>; <hint>`
 * ({@link errorText}), made inert for a terminal (io/terminal-text.ts: no escape sequences, controls
 * or bidi overrides), since a message may quote a server, a header, a URL or a checkpoint.
 * Unexpected errors (bugs) read `internal error, please report: <message>`; main() adds the stack
 * with `--verbose` or `COLLECTIONS_DEBUG=1` (cli/guard.ts `wantsStack`).
 * @param secrets the run's secrets (the Context's); none: nothing to scrub
 */
export function formatError(err: unknown, secrets?: Pick<Secrets, 'redact'>): string {
  return `collections: ${inertText(errorText(err, secrets))}`;
}
