/** How an export stops short: signals, and the "resume with: …" hint on failures that keep a checkpoint. */
import type { Context, TerminationSignal } from '../../context.js';
import { CollectionsError, ExitCode, InterruptedError, RateLimitError, hint, type Hint } from '../../errors.js';

/** ms after the first signal in which a repeat is its echo: a person cannot press Ctrl-C twice this fast. */
export const SIGNAL_ECHO_MS = 250;

export interface Interrupt {
  /** Aborted by the first signal, with an {@link InterruptedError} as reason. */
  readonly signal: AbortSignal;
  readonly stopped: TerminationSignal | undefined;
  /** @throws {InterruptedError} (exit 130 / 143) once a signal was received */
  throwIfStopped(): void;
  /** Stops the export now for a reason that is not a signal (the output lock was lost), unless one came first. */
  fail(reason: Error): void;
  /** After a signal, an abort of the request in flight becomes a fresh {@link InterruptedError}; after `fail`, its reason. */
  explain(err: unknown): unknown;
  /** Unsubscribes, unless a signal was received: without the listener its echo would kill the process before the message is out. */
  release(): void;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/**
 * The first signal stops the export after the current write; a second calls `onSecondSignal` and
 * `ctx.forceExit` (130 / 143), safe since the checkpoint only describes bytes on disk. A repeat within
 * {@link SIGNAL_ECHO_MS} is a library re-raising the signal it saw (signal-exit, as sole listener).
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

export interface ResumeHintOptions {
  toFile: boolean;
  /** `--out` is a FIFO or device, written straight through: no checkpoint, no hint. */
  device?: boolean;
  /** A checkpoint is kept: a page was written, or the run itself was a resume. */
  resumable: boolean;
  /** Without the key. */
  resumeCommand: string;
}

/** Adds the "resume with" hint to failures that keep a checkpoint (exit 5, 6, 130, 143); a new error of the same class and code. */
export function addResumeHint(err: unknown, options: ResumeHintOptions): unknown {
  if (!(err instanceof CollectionsError)) return err;
  const { toFile, resumable, resumeCommand } = options;
  const resumeHint: Hint | undefined = toFile && resumable ? [{ step: 'resume', command: resumeCommand }] : undefined;
  if (err instanceof InterruptedError && options.device) return new InterruptedError(err.signal, `interrupted by ${err.signal}`);
  if (err instanceof InterruptedError) {
    const advice = resumeHint ?? (toFile ? undefined : [{ step: 'streamOut' } as const]);
    return new InterruptedError(err.signal, `interrupted by ${err.signal}${toFile ? '; checkpoint kept' : ''}`, { hint: advice });
  }
  if (err instanceof RateLimitError && resumeHint) {
    const code = err.code === 'E_RATE_LIMIT_REPEATED' ? err.code : 'E_RATE_LIMIT_WAIT';
    return new RateLimitError(err.message, err.resetAt, { code, hint: resumeHint, cause: err });
  }
  if (resumeHint && err.exitCode === ExitCode.Unavailable) {
    return new CollectionsError(err.message, err.code, { hint: err.advice ? hint`${err.advice}; ${resumeHint}` : resumeHint, cause: err });
  }
  return err;
}
