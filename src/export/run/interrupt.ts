/**
 * How an export stops short. SIGINT / SIGTERM (docs/files.md, "Files, checkpoints and `--resume`"): the
 * first signal stops the export after the current write, keeping the checkpoint; a second one ends
 * the process at once, which is safe because the checkpoint only ever describes bytes already on
 * disk. And the "resume with: …" hint on failures that keep a checkpoint (README, "Exit codes": 5,
 * 6, 130 and 143 keep it, and the next run's `--resume` continues).
 */
import type { Context, TerminationSignal } from '../../context.js';
import { CollectionsError, ExitCode, InterruptedError, RateLimitError } from '../../errors.js';

/**
 * How long after the first SIGINT / SIGTERM a repeat of the same signal counts as its echo rather
 * than a second press, ms. A person cannot press Ctrl-C twice this fast on purpose.
 */
export const SIGNAL_ECHO_MS = 250;

/** The signal handling of one export, from {@link createInterrupt}. */
export interface Interrupt {
  /** Aborted by the first signal, with an {@link InterruptedError} as reason; given to the client. */
  readonly signal: AbortSignal;
  /** The first signal received, once there was one. */
  readonly stopped: TerminationSignal | undefined;
  /** @throws {InterruptedError} (exit 130 / 143) once a signal was received */
  throwIfStopped(): void;
  /**
   * Stops the export now for a reason that is not a signal (the output lock was lost:
   * export/files/output-lock.ts): aborts {@link Interrupt.signal} with `reason`, so a request or a wait in
   * flight ends at once instead of after it, unless a signal or another failure came first.
   */
  fail(reason: Error): void;
  /**
   * What to throw for an error of the page loop: once a signal was received, an abort of the
   * request in flight (AbortError, TimeoutError or the reason itself) becomes a fresh
   * {@link InterruptedError}; after {@link Interrupt.fail}, such an abort becomes its reason; any
   * other error is returned as it is.
   */
  explain(err: unknown): unknown;
  /**
   * Unsubscribes, unless a signal was received: then the listener stays for the rest of the process,
   * since without it the echo (or a late second Ctrl-C) would kill the process by the signal before
   * the message is out.
   */
  release(): void;
}

/** True for the errors an aborted request or wait rejects with. */
function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/**
 * Subscribes to SIGINT / SIGTERM for one export. The first signal aborts {@link Interrupt.signal};
 * the export checks {@link Interrupt.stopped} after each write. A second signal calls
 * `onSecondSignal` (to stop the spinner and print one line) and then `ctx.forceExit` with the
 * signal's exit code (130 / 143). A repeat of the first signal within {@link SIGNAL_ECHO_MS} is not
 * a second Ctrl-C but the echo of a library that re-raises the signal it saw so the process dies of
 * it (`process.kill(process.pid, signal)`): counted as a second press it would skip the message.
 * when-exit, which re-raised unconditionally, left with the `conf` package; signal-exit (ora's
 * restore-cursor, proper-lockfile, write-file-atomic) re-raises only when it is the signal's sole
 * listener, which it is not while this subscription lasts. The guard is kept for any such library.
 */
export function createInterrupt(
  ctx: Pick<Context, 'onSignal' | 'clock' | 'forceExit'>,
  onSecondSignal: (signal: TerminationSignal) => void,
): Interrupt {
  const controller = new AbortController();
  let stopped: TerminationSignal | undefined;
  let stoppedAt = 0;
  let failure: Error | undefined;
  const unsubscribe = ctx.onSignal((signal) => {
    if (stopped !== undefined) {
      if (signal === stopped && ctx.clock.monotonic() - stoppedAt < SIGNAL_ECHO_MS) return;
      onSecondSignal(signal);
      ctx.forceExit(new InterruptedError(signal).exitCode);
      return;
    }
    stopped = signal;
    stoppedAt = ctx.clock.monotonic();
    controller.abort(new InterruptedError(signal));
  });
  return {
    signal: controller.signal,
    get stopped() {
      return stopped;
    },
    throwIfStopped() {
      if (stopped !== undefined) throw new InterruptedError(stopped);
    },
    fail(reason) {
      if (stopped !== undefined || failure !== undefined) return;
      failure = reason;
      controller.abort(reason);
    },
    explain(err) {
      if (failure !== undefined && (err === failure || isAbort(err))) return failure;
      if (stopped !== undefined && (err instanceof InterruptedError || isAbort(err))) return new InterruptedError(stopped);
      return err;
    },
    release() {
      if (stopped === undefined) unsubscribe();
    },
  };
}

/** What {@link addResumeHint} needs to know about the export. */
export interface ResumeHintOptions {
  /** Whether the export writes a file (stdout exports cannot resume). */
  toFile: boolean;
  /** Whether `--out` is a FIFO or device, written straight through: no checkpoint, no hint. */
  device?: boolean;
  /** Whether a checkpoint is kept: a page was written, or the run itself was a resume. */
  resumable: boolean;
  /** The command line to repeat with `--resume`, without the key. */
  resumeCommand: string;
}

/**
 * Adds the "resume with" hint to failures that keep a checkpoint, and words an interruption:
 * `interrupted by SIGINT; checkpoint kept` with the hint for files, `stdout exports cannot resume;
 * use --out FILE` for stdout. A {@link RateLimitError} (exit 5) and any exit-6 failure get the hint
 * when resumable; everything else is returned unchanged.
 * @returns a new error of the same class and code (the original as its `cause`), or `err` itself
 */
export function addResumeHint(err: unknown, options: ResumeHintOptions): unknown {
  if (!(err instanceof CollectionsError)) return err;
  const { toFile, resumable, resumeCommand } = options;
  const resumeHint = toFile && resumable ? `resume with: ${resumeCommand} --resume` : undefined;
  if (err instanceof InterruptedError && options.device) return new InterruptedError(err.signal, `interrupted by ${err.signal}`);
  if (err instanceof InterruptedError) {
    const hint = resumeHint ?? (toFile ? undefined : 'stdout exports cannot resume; use --out FILE');
    return new InterruptedError(err.signal, `interrupted by ${err.signal}${toFile ? '; checkpoint kept' : ''}`, { hint });
  }
  if (err instanceof RateLimitError && resumeHint) {
    const code = err.code === 'E_RATE_LIMIT_REPEATED' ? err.code : 'E_RATE_LIMIT_WAIT';
    return new RateLimitError(err.message, err.resetAt, { code, hint: resumeHint, cause: err });
  }
  if (resumeHint && err.exitCode === ExitCode.Unavailable) {
    return new CollectionsError(err.message, err.code, { hint: `${err.hint ? `${err.hint}; ` : ''}${resumeHint}`, cause: err });
  }
  return err;
}
