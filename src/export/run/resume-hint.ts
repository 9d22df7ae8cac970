/**
 * The "resume with: …" hint on failures that keep a checkpoint (README, "Exit codes": 5, 6, 130
 * and 143 keep it, and the next run's `--resume` continues).
 */
import { CollectionsError, ExitCode, InterruptedError, RateLimitError } from '../../errors.js';

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
