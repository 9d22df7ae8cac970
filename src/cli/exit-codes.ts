import { CollectionsError } from '../errors.js';

/**
 * The exit-code table of the product spec (cli-spec.md, "Exit codes"), based on sysexits'
 * spirit but numbered for scripts: one code per kind of outcome a cron job must tell apart.
 */
export const ExitCode = {
  /** The export is complete. */
  Ok: 0,
  /** Unexpected internal error (a bug). */
  Internal: 1,
  /** Usage or configuration error, or the API rejected the parameters (400); nothing was written. */
  Usage: 2,
  /** The API key was rejected (401 or 403). */
  Auth: 3,
  /** Not found (404): unknown taxpayer or invoice. */
  NotFound: 4,
  /** A rate-limit wait longer than `--max-wait`; the checkpoint is kept. */
  RateLimited: 5,
  /** The API could not be read: network errors or 5xx after retries, unreadable bodies, a cross-origin or looping link. */
  Unavailable: 6,
  /** The output could not be written (unwritable path, disk full). */
  Output: 7,
  /** Interrupted by SIGINT (128 + 2); the checkpoint is kept. */
  Sigint: 130,
  /** Interrupted by SIGTERM (128 + 15); the checkpoint is kept. */
  Sigterm: 143,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The one mapping from a thrown value to the process exit code: a {@link CollectionsError}'s own
 * code, else 1 (an unexpected internal error).
 */
export function toExitCode(err: unknown): ExitCode {
  return err instanceof CollectionsError ? err.exitCode : ExitCode.Internal;
}
