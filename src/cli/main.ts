/**
 * `main(argv, ctx) → exit code`, which bin/ ends the process with ({@link exitWhenFlushed}).
 * A failure nothing else caught is one line and an exit code (README, "Exit codes"), never a stack unasked.
 */
import type { EventEmitter } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import type { Context, FetchLike, IOStreams } from '../context.js';
import { createSystemContext, processHolder, readPackageVersion } from '../context.js';
import { createRateBudget, loadStoreOnUse, type QuotaStore } from '../rate/budget.js';
import { CollectionsError, errorCode, ExitCode, isPipeGone, toExitCode } from '../errors.js';
import { formatError } from '../commands/error-text.js';
import { readCommandLine, type CommandLine } from './argv.js';
import { inertText } from '../io/terminal-text.js';
import type { Secrets } from '../secrets.js';

/** A write failed whatever the call. */
const WRITE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EROFS']);

/** A permission error of one of these is a write error too. */
const WRITING_CALLS = new Set(['open', 'write', 'writev', 'fsync', 'fdatasync', 'rename', 'mkdir', 'ftruncate', 'copyfile', 'chmod', 'unlink']);

/**
 * A file-system write error that escaped as a plain `Error`, as an `OutputError` (exit 7) naming its
 * path and cause; any other `err` as it is. `fileError` is imported only then: `--help` loads no file code.
 */
export async function asWriteFailure(err: unknown): Promise<unknown> {
  if (err instanceof CollectionsError || !(err instanceof Error)) return err;
  const code = errorCode(err);
  const syscall = (err as NodeJS.ErrnoException).syscall;
  const writing = WRITE_FAILURES.has(code ?? '') || ((code === 'EACCES' || code === 'EPERM') && WRITING_CALLS.has(syscall ?? ''));
  if (!writing) return err;
  const { fileError } = await import('../io/files.js');
  return fileError('write', (err as NodeJS.ErrnoException).path ?? 'a file', err);
}

/** `--verbose` is read before commander, which may not have parsed it when the failure happens. */
export function wantsStack(line: Pick<CommandLine, 'verbose'>, env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.COLLECTIONS_DEBUG) || line.verbose;
}

/** The one line of {@link formatError}, then the stack of an unexpected error when `showStack`; secrets scrubbed from both. */
export function failureText(err: unknown, secrets: Pick<Secrets, 'redact'>, showStack: boolean): string {
  let text = `${formatError(err, secrets)}\n`;
  if (showStack && !(err instanceof CollectionsError) && err instanceof Error && err.stack)
    text += `${secrets.redact(err.stack).split('\n').map(inertText).join('\n')}\n`;
  return text;
}

interface OutputWatch {
  /** The first failure of stdout, its one line (if any) already printed: 0 when its reader left, 7 for another write error. */
  failure?: { code: number };
}

const watched = new WeakMap<object, OutputWatch>();

/**
 * An unhandled `'error'` event would crash with a stack. stdout: reader gone (`| head`, EPIPE) → `end(0)`, else one line, `end(7)`.
 * stderr errors are dropped: nowhere to report them.
 */
function watchOutputs(io: Pick<IOStreams, 'stdout' | 'stderr'>, end: (code: number) => void): OutputWatch {
  const known = watched.get(io.stdout);
  if (known) return known;
  const watch: OutputWatch = {};
  watched.set(io.stdout, watch);
  io.stdout.on('error', (err: unknown) => {
    if (watch.failure) return;
    if (isPipeGone(err)) {
      watch.failure = { code: ExitCode.Ok };
    } else {
      watch.failure = { code: ExitCode.Output };
      const cause = err instanceof Error ? err.message : String(err);
      io.stderr.write(`collections: cannot write to stdout: ${cause.replace(/[\r\n]+/g, ' ')}\n`);
    }
    end(watch.failure.code);
  });
  if (!watched.has(io.stderr)) {
    watched.set(io.stderr, watch);
    io.stderr.on('error', () => undefined);
  }
  return watch;
}

/**
 * An uncaught failure ends the run with its exit code (a write error's 7, a bug's 1). A broken pipe
 * is not quiet here: an EPIPE that reaches the guard came from a socket, not stdout.
 *
 * `SIGXFSZ` (a file grew past `ulimit -f`) keeps a listener so the write fails with EFBIG (exit 7):
 * signal-exit (loaded by write-file-atomic, ora and proper-lockfile) re-raises it when its listener
 * is the only one, and the process would die of it.
 * @param report writes the failure's text, key scrubbed
 */
export function installProcessGuard(proc: Pick<EventEmitter, 'on'>, report: (err: unknown) => void, end: (code: number) => void): void {
  const onFatal = (err: unknown): void => {
    void asWriteFailure(err)
      .catch(() => err)
      .then((failure) => {
        report(failure);
        end(toExitCode(failure));
      });
  };
  proc.on('uncaughtException', onFatal);
  proc.on('unhandledRejection', onFatal);
  proc.on('SIGXFSZ', () => undefined);
}

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
export async function main(argv: readonly string[], ctx: Context, line: CommandLine = readCommandLine(argv)): Promise<number> {
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
    await ctx.rateBudget.settle();
  } catch (thrown) {
    await ctx.rateBudget.settle();
    if (outputs.failure) return outputs.failure.code;
    const err = await asWriteFailure(thrown);
    // `--log-format json`: the failure is the `error` event, not the human line.
    if (line.logFormat === 'json') await reportErrorEvent(ctx, err);
    else ctx.io.stderr.write(failureText(err, ctx.secrets, wantsStack(line, ctx.env)));
    return toExitCode(err);
  }
  return outputs.failure?.code ?? code;
}

export interface FlushableStream {
  readonly writableLength: number;
  readonly destroyed: boolean;
  write(chunk: string, done: () => void): unknown;
  once(event: 'close' | 'error', listener: () => void): unknown;
}

/** Resolves once `stream` has handed all it holds to its descriptor, or can no longer: closed, broken. */
function flushed(stream: FlushableStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', resolve);
    stream.once('error', resolve);
    // Written in order: this callback comes after every earlier chunk reached the descriptor.
    stream.write('', resolve);
  });
}

/**
 * bin/collections.js's end: exits with `code` once both streams are flushed (slow readers' pipes buffer),
 * not naturally: Node then frees V8's heap page by page (slow for big exports).
 */
export async function exitWhenFlushed(
  code: number,
  proc: { stdout: FlushableStream; stderr: FlushableStream; exit(code: number): void } = process,
): Promise<void> {
  // A stream error is emitted a tick after the write (/dev/full): {@link watchOutputs} still ends with its code.
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all([flushed(proc.stdout), flushed(proc.stderr)]);
  proc.exit(code);
}

/**
 * The `--budget` database's store. Its failure is said once, whatever `--verbose` says (the run
 * then paces as one host): a warning line, or a `warning` event with `--log-format json`.
 */
async function loadBudgetStore(url: string, ctx: Context, line: Pick<CommandLine, 'logFormat'>): Promise<QuotaStore> {
  const [{ createPostgresStore }, { openBudgetSession }] = await Promise.all([
    import('../rate/store-postgres.js'),
    import('../export/destinations/budget-session.js'),
  ]);
  const { createEventWriter } = line.logFormat === 'json' ? await import('../io/events.js') : { createEventWriter: undefined };
  return createPostgresStore({
    connect: () => openBudgetSession(url, ctx.env),
    holder: processHolder(),
    onTrouble: (message) => {
      const shown = ctx.secrets.redact(message);
      if (createEventWriter !== undefined) createEventWriter(ctx.io.stderr, ctx.clock)({ event: 'warning', message: shown });
      else ctx.io.stderr.write(`collections: warning: ${inertText(shown)}\n`);
    },
  });
}

/** bin/collections.js's: {@link main} in the system context, with the process-wide guard. */
export async function run(argv: readonly string[]): Promise<number> {
  // undici parses HTTP with WebAssembly (llhttp); V8 recompiles it with TurboFan on background threads, which Node
  // waits for before it can exit. Liftoff's code parses a page's headers and chunk framing as fast (bench: latency,
  // throughput); compiled whole as `createTransportFetch`'s module loads, not function by function on first call, so
  // the first answer waits for no compiler (test/bench/results.md, «Start-up: the HTTP parser compiled ahead, the modules imported together»).
  // A young generation kept at its first size scavenges often: dead pages' bytes, off the heap, wait less (docs/architecture.md, "Memory").
  setFlagsFromString('--liftoff-only --no-wasm-lazy-compilation --semi-space-growth-factor=1');
  // A password in a PostgreSQL URL leaves the process's command line, which `ps` shows to every
  // user (docs/databases.md, "Passwords"): the title overwrites it.
  if (argv.some((word) => /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/i.test(word))) process.title = 'collections';
  let transport: Promise<FetchLike> | undefined;
  const loadTransport = (): Promise<FetchLike> =>
    (transport ??= import('../http/transport.js').then((m) => m.createTransportFetch({ env: ctx.env })));
  const ctx = createSystemContext(readPackageVersion(), loadTransport);
  const line = readCommandLine(argv);
  const verbose = wantsStack(line, ctx.env);
  const onTrouble = (message: string): void => {
    if (verbose) ctx.io.stderr.write(`collections: ${inertText(message)}\n`);
  };
  // Loaded with the first client (`--help` loads no store or config code); a failed load means working alone.
  let fileStore: Promise<QuotaStore> | undefined;
  const loadFileStore = (): Promise<QuotaStore> =>
    (fileStore ??= Promise.all([import('../rate/store-file.js'), import('../config/folder.js')]).then(([{ createFileStore }, { cacheDirOf }]) =>
      createFileStore({ cacheDir: cacheDirOf(ctx.env, ctx.configDir), onTrouble }),
    ));
  ctx.rateBudget = createRateBudget({ store: loadStoreOnUse(loadFileStore), remote: (url) => loadStoreOnUse(() => loadBudgetStore(url, ctx, line)) });
  // An export's other imports (the transport too: `--dry-run` sends a request), loaded with its modules so the loader links
  // them together (results.md, same section). Started by the export runner: a usage error waits for none. Memoized: failures meet their user.
  ctx.preloadExport = () => {
    for (const load of [loadTransport, loadFileStore]) load().catch(() => undefined);
  };
  installProcessGuard(process, (err) => ctx.io.stderr.write(failureText(err, ctx.secrets, verbose)), ctx.forceExit);
  return main(argv, ctx, line);
}
