/**
 * `main(argv, ctx) → exit code`: parse, run, map any error to its exit code and one stderr line.
 * Nothing here calls `process.exit()`; bin/ sets `process.exitCode` from the result.
 */
import type { Context, FetchLike } from '../context.js';
import { createSystemContext, readPackageVersion } from '../context.js';
import { createRateBudget, loadStoreOnUse } from '../rate/budget.js';
import { CollectionsError, ExitCode, toExitCode } from '../errors.js';
import { redact } from '../http/redact.js';
import { asWriteFailure, failureText, installProcessGuard, wantsStack, watchOutputs } from './guard.js';
import { inertText } from '../io/terminal-text.js';

/**
 * The failure as the `error` event of `--log-format json` (io/events.ts): the message of
 * {@link formatError} without its `collections: ` prefix (key scrubbed, inert), the `E_…` code
 * (`E_INTERNAL` for a bug) and the exit code.
 */
async function reportErrorEvent(ctx: Context, err: unknown, secrets: readonly string[]): Promise<void> {
  // Loaded here: `--help` and `--version` load as little as they can.
  const { createEventWriter } = await import('../io/events.js');
  const message = formatError(err, secrets).slice('collections: '.length);
  const code = err instanceof CollectionsError ? err.code : 'E_INTERNAL';
  createEventWriter(ctx.io.stderr, ctx.clock)({ event: 'error', message, code, exitCode: toExitCode(err) });
}

/**
 * Formats an error as the one stderr line of the README ("Exit codes"): `collections: <what happened>; <hint>`.
 * Unexpected errors (bugs) read `internal error, please report: <message>`; main() adds the stack
 * with `--verbose` or `COLLECTIONS_DEBUG=1` (cli/guard.ts `wantsStack`).
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
    text = `internal error, please report: ${err.message}`;
  } else {
    text = `internal error, please report: ${String(err)}`;
  }
  return `collections: ${inertText(redact(text, secrets).replace(/[\r\n]+/g, ' '))}`;
}

/**
 * Runs the command line `argv` (without `node` and the script) in `ctx`. stdout and stderr are
 * watched (cli/guard.ts `watchOutputs`): the reader of stdout leaving ends the run with 0, another
 * stdout write error with 7, both through `ctx.forceExit` and as the returned code.
 * @param secrets where the secrets seen (the API key) are collected, so error text can scrub them;
 *   run() shares it with the process-wide guard
 * @returns the exit code (README, "Exit codes"); never throws.
 */
export async function main(argv: readonly string[], ctx: Context, secrets: string[] = []): Promise<number> {
  const outputs = watchOutputs(ctx.io, ctx.forceExit);
  // `--version` is answered without loading commander or anything else (start-up budget).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    ctx.io.stdout.write(`${ctx.version}\n`);
    return ExitCode.Ok;
  }
  // The clients of one run share their rate-limit windows (rate/pool.ts).
  ctx.rateBudget ??= createRateBudget();
  let code: number;
  try {
    const { runProgram } = await import('./program.js');
    code = await runProgram(argv, ctx, secrets);
  } catch (thrown) {
    if (outputs.failure) return outputs.failure.code;
    const err = await asWriteFailure(thrown);
    // `--log-format json`: the failure is the `error` event, not the human line.
    if (argv.some((a) => a === '--log-format' || a.startsWith('--log-format=')) && (await import('../io/events.js')).logFormatOf(argv) === 'json')
      await reportErrorEvent(ctx, err, secrets);
    else ctx.io.stderr.write(failureText(err, secrets, wantsStack(argv, ctx.env), formatError));
    return toExitCode(err);
  }
  return outputs.failure?.code ?? code;
}

/**
 * The production entry point used by bin/collections.js: the system context, and the process-wide
 * guard (cli/guard.ts) that turns an uncaught exception or unhandled rejection into one line and
 * an exit code instead of a stack trace.
 */
export async function run(argv: readonly string[]): Promise<number> {
  // The proxy variables are read from the Context's environment (called on the first request only).
  const loadTransport = (): Promise<FetchLike> => import('../http/transport.js').then((m) => m.createTransportFetch({ env: ctx.env }));
  const ctx = createSystemContext(readPackageVersion(), loadTransport);
  // Processes with the same key and base URL share their rate-limit windows through the cache folder.
  const verbose = wantsStack(argv, ctx.env);
  const onTrouble = (message: string): void => {
    if (verbose) ctx.io.stderr.write(`collections: ${inertText(message)}\n`);
  };
  // Loaded with the first client (`--help` loads no store or config code); a failed load means working alone.
  const store = loadStoreOnUse(async () => {
    const [{ createFileStore }, { cacheDirOf }] = await Promise.all([import('../rate/store-file.js'), import('../config/folder.js')]);
    return createFileStore({ cacheDir: cacheDirOf(ctx.env, ctx.configDir), onTrouble });
  });
  ctx.rateBudget = createRateBudget({ store });
  const secrets: string[] = [];
  installProcessGuard(process, (err) => ctx.io.stderr.write(failureText(err, secrets, wantsStack(argv, ctx.env), formatError)), ctx.forceExit);
  return main(argv, ctx, secrets);
}
