/**
 * The process-wide guard of the command line: what happens to failures nothing else caught.
 * - A write error of stdout or stderr (an `'error'` event of the stream): the reader leaving
 *   (`| head`, EPIPE) ends the run quietly with exit 0; any other error of stdout ends it with one
 *   line and exit 7; stderr errors are dropped (there is nowhere left to report them).
 * - An `uncaughtException` or `unhandledRejection`: one line and the exit code of the failure
 *   (a `CollectionsError`'s own, a file-system write error's 7, else 1 as an internal error), the
 *   stack only when asked for ({@link wantsStack}).
 * The README ("Exit codes") lists the codes; the key is scrubbed from every line (the Context's `secrets`).
 */
import type { IOStreams } from '../context.js';
import { CollectionsError, ExitCode, toExitCode } from '../errors.js';
import { inertText } from '../io/terminal-text.js';
import type { Secrets } from '../secrets.js';
import type { CommandLine } from './argv.js';

/** Error codes meaning the reader of a stream went away (EPIPE from the OS, or Node's own once it closed the stream). */
const PIPE_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

/** File-system error codes that mean a write failed whatever the call (disk full, quota, size limit, I/O, read-only). */
const WRITE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EROFS']);

/** Calls that write: a permission error of one of these is a write error too. */
const WRITING_CALLS = new Set(['open', 'write', 'writev', 'fsync', 'fdatasync', 'rename', 'mkdir', 'ftruncate', 'copyfile', 'chmod', 'unlink']);

/** The string `code` of an error, if any. */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `err` says the reader of a pipe went away (`| head -1`). */
function isBrokenPipe(err: unknown): boolean {
  return PIPE_GONE.has(codeOf(err) ?? '');
}

/**
 * Turns a file-system write error that escaped as a plain `Error` (ENOSPC, EDQUOT, EFBIG, EIO,
 * EROFS, or EACCES/EPERM of a writing call) into an `OutputError` (exit 7) naming its path and cause
 * (io/files.ts `fileError`, imported only then, so `--help` loads no file code).
 * @returns the `OutputError`, or `err` itself when it is not such an error
 */
export async function asWriteFailure(err: unknown): Promise<unknown> {
  if (err instanceof CollectionsError || !(err instanceof Error)) return err;
  const code = codeOf(err);
  const syscall = (err as NodeJS.ErrnoException).syscall;
  const writing = WRITE_FAILURES.has(code ?? '') || ((code === 'EACCES' || code === 'EPERM') && WRITING_CALLS.has(syscall ?? ''));
  if (!writing) return err;
  const { fileError } = await import('../io/files.js');
  return fileError('write', (err as NodeJS.ErrnoException).path ?? 'a file', err);
}

/**
 * Whether an internal error should be shown with its stack: `--verbose` (or `-v`) on the command
 * line before any `--` (cli/argv.ts, read before commander: `--verbose` is an export flag that
 * commander may not have parsed when the failure happens), or `COLLECTIONS_DEBUG` set and not empty.
 */
export function wantsStack(line: Pick<CommandLine, 'verbose'>, env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.COLLECTIONS_DEBUG) || line.verbose;
}

/**
 * The stderr text of a failure: one line `collections: <message>[; <hint>]`, where an unexpected
 * error reads `internal error, please report: <message>`, then its stack when `showStack` (an
 * unexpected error only). The run's `secrets` are scrubbed from both.
 * @param formatLine the one-line formatter (commands/error-text.ts `formatError`)
 * @returns the text, ending with a newline
 */
export function failureText(
  err: unknown,
  secrets: Pick<Secrets, 'redact'>,
  showStack: boolean,
  formatLine: (err: unknown, secrets: Pick<Secrets, 'redact'>) => string,
): string {
  let text = `${formatLine(err, secrets)}\n`;
  if (showStack && !(err instanceof CollectionsError) && err instanceof Error && err.stack)
    text += `${secrets.redact(err.stack).split('\n').map(inertText).join('\n')}\n`;
  return text;
}

/** How the guard of the standard streams ended a run (its one line, if any, is already printed). */
export interface OutputFailure {
  /** 0 when the reader of stdout left, 7 for another write error of stdout. */
  code: number;
}

/** What {@link watchOutputs} reports to. */
export interface OutputWatch {
  /** The first failure of stdout, once one happened. */
  readonly failure: OutputFailure | undefined;
}

const watched = new WeakMap<object, OutputWatch>();

/**
 * Listens for `'error'` on stdout and stderr (an unhandled `'error'` event would crash the process
 * with a stack). stdout: the reader leaving (EPIPE) → `end(0)` quietly; another error → the line
 * `collections: cannot write to stdout: <cause>` and `end(7)`. stderr: errors are dropped. Each
 * stream is watched once, however often this is called.
 * @param end ends the run with an exit code (`Context.forceExit`)
 * @returns the watch, whose `failure` main() returns as the exit code when the command returns
 */
export function watchOutputs(io: Pick<IOStreams, 'stdout' | 'stderr'>, end: (code: number) => void): OutputWatch {
  const known = watched.get(io.stdout);
  if (known) return known;
  let failure: OutputFailure | undefined;
  const watch: OutputWatch = {
    get failure() {
      return failure;
    },
  };
  watched.set(io.stdout, watch);
  io.stdout.on('error', (err: unknown) => {
    if (failure) return;
    if (isBrokenPipe(err)) {
      failure = { code: ExitCode.Ok };
    } else {
      failure = { code: ExitCode.Output };
      const cause = err instanceof Error ? err.message : String(err);
      io.stderr.write(`collections: cannot write to stdout: ${cause.replace(/[\r\n]+/g, ' ')}\n`);
    }
    end(failure.code);
  });
  if (!watched.has(io.stderr)) {
    watched.set(io.stderr, watch);
    io.stderr.on('error', () => undefined);
  }
  return watch;
}

/** The events of `process` the guard listens to (a `process`, or an EventEmitter in tests). */
export interface GuardedProcess {
  on(event: 'uncaughtException', listener: (err: unknown) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'SIGXFSZ', listener: () => void): unknown;
}

/**
 * Installs the process-wide guard: an `uncaughtException` or `unhandledRejection` is reported with
 * `report` (one line, see {@link failureText}) and ends the run with `end(code)`: a
 * `CollectionsError` with its own code, a file-system write error with 7 ({@link asWriteFailure}),
 * anything else with 1. A broken pipe is not quiet here: stdout and stderr are watched by
 * {@link watchOutputs}, so an EPIPE that reaches the guard came from elsewhere (a socket).
 *
 * It also keeps `SIGXFSZ` (a file grew past `ulimit -f`, POSIX setrlimit RLIMIT_FSIZE) handled, so
 * the write fails with EFBIG and is reported as exit 7. Node ignores the signal by itself, but
 * signal-exit (loaded by write-file-atomic, ora's restore-cursor and proper-lockfile) hooks it and,
 * when its listener is the only one, re-raises it after its own handler ran: without a listener of
 * ours the process would then die of it.
 * @param report writes the failure's text (cli/main.ts passes one that scrubs the key)
 */
export function installProcessGuard(proc: GuardedProcess, report: (err: unknown) => void, end: (code: number) => void): void {
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
