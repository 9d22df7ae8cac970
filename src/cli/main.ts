/** `main(argv, ctx) → exit code`; nothing here calls `process.exit()`: bin/ sets `process.exitCode`. */
import type { Context, FetchLike } from '../context.js';
import { createSystemContext, readPackageVersion } from '../context.js';
import { createRateBudget, loadStoreOnUse } from '../rate/budget.js';
import { CollectionsError, ExitCode, toExitCode } from '../errors.js';
import { formatError } from '../commands/error-text.js';
import { readCommandLine, type CommandLine } from './argv.js';
import { asWriteFailure, failureText, installProcessGuard, wantsStack, watchOutputs } from './guard.js';
import { inertText } from '../io/terminal-text.js';

/** The `error` event of `--log-format json`. */
async function reportErrorEvent(ctx: Context, err: unknown): Promise<void> {
  // Loaded here: `--help` and `--version` load as little as they can.
  const { createEventWriter } = await import('../io/events.js');
  const message = formatError(err, ctx.secrets).slice('collections: '.length);
  const code = err instanceof CollectionsError ? err.code : 'E_INTERNAL';
  createEventWriter(ctx.io.stderr, ctx.clock)({ event: 'error', message, code, exitCode: toExitCode(err) });
}

/**
 * @param argv without `node` and the script
 * @returns the exit code (README, "Exit codes"); never throws
 */
export function main(argv: readonly string[], ctx: Context): Promise<number> {
  return runCommandLine(readCommandLine(argv), ctx);
}

async function runCommandLine(line: CommandLine, ctx: Context): Promise<number> {
  const outputs = watchOutputs(ctx.io, ctx.forceExit);
  // `--version` is answered without loading commander or anything else (start-up budget).
  if (line.versionOnly) {
    ctx.io.stdout.write(`${ctx.version}\n`);
    return ExitCode.Ok;
  }
  // The clients of one run share their rate-limit windows (rate/pool.ts).
  ctx.rateBudget ??= createRateBudget();
  let code: number;
  try {
    const { runProgram } = await import('./program.js');
    code = await runProgram(line, ctx);
  } catch (thrown) {
    if (outputs.failure) return outputs.failure.code;
    const err = await asWriteFailure(thrown);
    // `--log-format json`: the failure is the `error` event, not the human line.
    if (line.logFormat === 'json') await reportErrorEvent(ctx, err);
    else ctx.io.stderr.write(failureText(err, ctx.secrets, wantsStack(line, ctx.env), formatError));
    return toExitCode(err);
  }
  return outputs.failure?.code ?? code;
}

/** bin/collections.js's: {@link main} in the system context, with the process-wide guard. */
export async function run(argv: readonly string[]): Promise<number> {
  // A password in a PostgreSQL URL leaves the process's command line, which `ps` shows to every
  // user (docs/databases.md, "Passwords"): the title overwrites it.
  if (argv.some((word) => /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/i.test(word))) process.title = 'collections';
  const loadTransport = (): Promise<FetchLike> => import('../http/transport.js').then((m) => m.createTransportFetch({ env: ctx.env }));
  const ctx = createSystemContext(readPackageVersion(), loadTransport);
  const line = readCommandLine(argv);
  const verbose = wantsStack(line, ctx.env);
  const onTrouble = (message: string): void => {
    if (verbose) ctx.io.stderr.write(`collections: ${inertText(message)}\n`);
  };
  // Loaded with the first client (`--help` loads no store or config code); a failed load means working alone.
  const store = loadStoreOnUse(async () => {
    const [{ createFileStore }, { cacheDirOf }] = await Promise.all([import('../rate/store-file.js'), import('../config/folder.js')]);
    return createFileStore({ cacheDir: cacheDirOf(ctx.env, ctx.configDir), onTrouble });
  });
  ctx.rateBudget = createRateBudget({ store });
  installProcessGuard(process, (err) => ctx.io.stderr.write(failureText(err, ctx.secrets, verbose, formatError)), ctx.forceExit);
  return runCommandLine(line, ctx);
}
