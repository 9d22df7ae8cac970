/**
 * `main(argv, ctx) → exit code`: parse, run, map any error to its exit code and one stderr line.
 * Nothing here calls `process.exit()`; bin/ sets `process.exitCode` from the result.
 */
import type { Context, FetchLike } from '../context.js';
import { createSystemContext, readPackageVersion } from '../context.js';
import { CollectionsError, ExitCode, toExitCode } from '../errors.js';
import { redact } from '../http/redact.js';
import { inertText } from '../io/terminal-text.js';

/**
 * Formats an error as the one stderr line of the README ("Exit codes"): `collections: <what happened>; <hint>`.
 * Unexpected errors (bugs) get their message only; the stack is shown with `COLLECTIONS_DEBUG=1`.
 * `secrets` are scrubbed from the text whatever its origin (http/redact.ts, also their encoded forms).
 * Line breaks become one space, and the text is made inert for a terminal (io/terminal-text.ts: no
 * escape sequences, controls or bidi overrides), since a message may quote a server, a header, a
 * URL or a checkpoint.
 */
export function formatError(err: unknown, secrets: readonly string[] = []): string {
  let text: string;
  if (err instanceof CollectionsError) {
    text = err.message + (err.hint ? `; ${err.hint}` : '');
  } else if (err instanceof Error) {
    text = `internal error: ${err.message}`;
  } else {
    text = `internal error: ${String(err)}`;
  }
  return `collections: ${inertText(redact(text, secrets).replace(/[\r\n]+/g, ' '))}`;
}

/**
 * Runs the command line `argv` (without `node` and the script) in `ctx`.
 * @returns the exit code (README, "Exit codes"); never throws.
 */
export async function main(argv: readonly string[], ctx: Context): Promise<number> {
  // `--version` is answered without loading commander or anything else (start-up budget).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    ctx.io.stdout.write(`${ctx.version}\n`);
    return ExitCode.Ok;
  }
  const secrets: string[] = [];
  try {
    const { runProgram } = await import('./program.js');
    return await runProgram(argv, ctx, secrets);
  } catch (err) {
    ctx.io.stderr.write(`${formatError(err, secrets)}\n`);
    if (!(err instanceof CollectionsError) && ctx.env.COLLECTIONS_DEBUG && err instanceof Error && err.stack) {
      ctx.io.stderr.write(`${redact(err.stack, secrets).split('\n').map(inertText).join('\n')}\n`);
    }
    return toExitCode(err);
  }
}

/** The production entry point used by bin/collections.js. */
export async function run(argv: readonly string[]): Promise<number> {
  const loadTransport = (): Promise<FetchLike> => import('../http/transport.js').then((m) => m.createTransportFetch());
  return main(argv, createSystemContext(readPackageVersion(), loadTransport));
}
