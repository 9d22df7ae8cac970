/**
 * The ground floor of failures: every failure the user can see is a {@link CollectionsError} with a
 * stable string {@link ErrorCode} (for scripts and tests) and exactly one exit code, looked up in
 * {@link EXIT_CODE_OF}, the one table that maps failures to the exit codes of the README ("Exit
 * codes"). Messages never carry the API key or request headers.
 */

/**
 * The exit codes of the README ("Exit codes"), in the spirit of sysexits but numbered for scripts:
 * one code per kind of outcome a cron job must tell apart.
 */
export const ExitCode = {
  /** The export is complete. */
  Ok: 0,
  /** Unexpected internal error (a bug). */
  Internal: 1,
  /** Usage or configuration error, or the API rejected the parameters (400, or 422 from API Platform 4's parameter validation); nothing was written. */
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
  /** `verify`: an output is missing or its size, SHA-256 or item count is not its manifest's. */
  Verify: 8,
  /** Interrupted by SIGINT (128 + 2); the checkpoint is kept. */
  Sigint: 130,
  /** Interrupted by SIGTERM (128 + 15); the checkpoint is kept. */
  Sigterm: 143,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Every failure's stable code and its exit code: the one mapping of the README's exit-code table.
 * A code names what happened; scripts and tests match it instead of the message.
 */
export const EXIT_CODE_OF = {
  /** Bad flags, ids, values or combinations of them. */
  E_USAGE: ExitCode.Usage,
  /** Missing or invalid settings (key, base URL, profile, config file). */
  E_CONFIG: ExitCode.Usage,
  /** A checkpoint that cannot be resumed (other options, corrupt, tampered, missing partial file) or left without `--resume`. */
  E_CHECKPOINT: ExitCode.Usage,
  /** The API answered 400 or 422: it rejected the parameters. */
  E_API_REJECTED: ExitCode.Usage,
  /** The API answered 401 or 403: the key was rejected. */
  E_AUTH: ExitCode.Auth,
  /** The API answered 404: unknown taxpayer, invoice or path. */
  E_NOT_FOUND: ExitCode.NotFound,
  /** A rate-limit wait longer than `--max-wait`. */
  E_RATE_LIMIT_WAIT: ExitCode.RateLimited,
  /** Too many 429s in a row for one request. */
  E_RATE_LIMIT_REPEATED: ExitCode.RateLimited,
  /** Network errors, 5xx or unreadable bodies after the retries. */
  E_API_UNAVAILABLE: ExitCode.Unavailable,
  /** Another 4xx status the client does not know how to handle. */
  E_HTTP_UNEXPECTED: ExitCode.Unavailable,
  /** A link or redirect to another origin, or a link that loops. */
  E_UNSAFE_LINK: ExitCode.Unavailable,
  /** A response past a safety bound: body size, compression ratio, JSON depth, empty pages. */
  E_HOSTILE_RESPONSE: ExitCode.Unavailable,
  /** The output, checkpoint or another file could not be written. */
  E_OUTPUT_WRITE: ExitCode.Output,
  /** Another export holds the lock of the same `--out` (one writer per output). */
  E_LOCKED: ExitCode.Output,
  /** `verify`: an output does not match its manifest, or a manifest cannot be read. */
  E_VERIFY_MISMATCH: ExitCode.Verify,
  /** Stopped by SIGINT. */
  E_INTERRUPTED_SIGINT: ExitCode.Sigint,
  /** Stopped by SIGTERM. */
  E_INTERRUPTED_SIGTERM: ExitCode.Sigterm,
  /** Stopped by the caller's `AbortSignal` (the library's `signal` option): an interruption, as SIGINT is. */
  E_ABORTED: ExitCode.Sigint,
  /** A bug: anything that is not a {@link CollectionsError}. */
  E_INTERNAL: ExitCode.Internal,
} as const satisfies Record<string, ExitCode>;

/** The stable code of a failure, e.g. `E_RATE_LIMIT_WAIT`; see {@link EXIT_CODE_OF}. */
export type ErrorCode = keyof typeof EXIT_CODE_OF;

/** Options shared by every {@link CollectionsError}. */
export interface CollectionsErrorOptions {
  /** The underlying error, kept for `--verbose` diagnostics. */
  cause?: unknown;
  /** A one-line suggestion printed after the message (the usual ones of the command line are added where it is printed: commands/hints.ts). */
  hint?: string;
}

/** Base class: a failure with a message fit for one stderr line, a stable code and its exit code. */
export class CollectionsError extends Error {
  /** The stable code, e.g. `E_OUTPUT_WRITE`. */
  readonly code: ErrorCode;
  /** The process exit code, `EXIT_CODE_OF[code]` (README, "Exit codes"). */
  readonly exitCode: ExitCode;
  /** Optional one-line hint. */
  readonly hint: string | undefined;

  constructor(message: string, code: ErrorCode, options: CollectionsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = EXIT_CODE_OF[code];
    this.hint = options.hint;
  }
}

/**
 * The one mapping from a thrown value to the process exit code: a {@link CollectionsError}'s own
 * code, else 1 (an unexpected internal error).
 */
export function toExitCode(err: unknown): ExitCode {
  return err instanceof CollectionsError ? err.exitCode : ExitCode.Internal;
}

/** Options of a {@link UsageError}: which exit-2 code it is (default `E_USAGE`). */
export interface UsageErrorOptions extends CollectionsErrorOptions {
  code?: 'E_USAGE' | 'E_CONFIG' | 'E_CHECKPOINT';
}

/** Bad flags, ids, paths or configuration (exit 2), raised before any request or file write. */
export class UsageError extends CollectionsError {
  constructor(message: string, options: UsageErrorOptions = {}) {
    super(message, options.code ?? 'E_USAGE', options);
  }
}

/** Details of an HTTP response kept on errors: never request headers, never the key. */
export interface HttpErrorDetails {
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Path and query of the request (relative to the origin), e.g. `/entities?page=2`. */
  path: string;
  /** Response status, e.g. 404. */
  status: number;
  /** The server's own message (`message`, `hydra:description` or `detail` of the body), if any. */
  serverMessage?: string;
  /** The response's `X-Request-ID`, which support asks for. */
  requestId?: string;
}

/** Formats `what (GET /path: HTTP 404): server message [X-Request-ID: …]`. */
function describeHttp(d: HttpErrorDetails, what: string): string {
  let s = `${what} (${d.method} ${d.path}: HTTP ${d.status})`;
  if (d.serverMessage) s += `: ${d.serverMessage}`;
  if (d.requestId) s += ` [X-Request-ID: ${d.requestId}]`;
  return s;
}

/**
 * What a status the client does not retry means: the code and the words. The hint that tells the
 * user what to change is the command line's (commands/hints.ts), since it names flags and commands.
 */
const HTTP_STATUS_MEANING: Readonly<Record<number, { code: ErrorCode; what: string }>> = {
  400: { code: 'E_API_REJECTED', what: 'the API rejected the parameters' },
  // API Platform 4 validates query parameters and answers an invalid one with 422 and a
  // ConstraintViolationList (its features/filter/filter_validation.feature): a usage error, like 400.
  422: { code: 'E_API_REJECTED', what: 'the API rejected the parameters' },
  401: { code: 'E_AUTH', what: 'the API key was rejected' },
  403: { code: 'E_AUTH', what: 'the API key was rejected' },
  404: { code: 'E_NOT_FOUND', what: 'not found' },
};

/**
 * An HTTP status the client does not retry: 400 and 422 (`E_API_REJECTED`, exit 2), 401/403 (`E_AUTH`,
 * exit 3), 404 (`E_NOT_FOUND`, exit 4), other 4xx (`E_HTTP_UNEXPECTED`, exit 6). 5xx after retries
 * are {@link ApiUnavailableError}.
 */
export class HttpError extends CollectionsError {
  /** Method, path, status, server message and request id. */
  readonly details: HttpErrorDetails;

  constructor(details: HttpErrorDetails, options: CollectionsErrorOptions = {}) {
    const meaning = HTTP_STATUS_MEANING[details.status];
    super(describeHttp(details, meaning?.what ?? 'unexpected response'), meaning?.code ?? 'E_HTTP_UNEXPECTED', options);
    this.details = details;
  }
}

/** The API could not be read after retries: network errors, 5xx, unreadable bodies (exit 6). */
export class ApiUnavailableError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_API_UNAVAILABLE', options);
  }
}

/** A `hydra:next` link or redirect to another origin, or a link already fetched (exit 6). */
export class UnsafeLinkError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_UNSAFE_LINK', options);
  }
}

/**
 * A response past one of the safety bounds (docs/security.md, "Security and safety"): a body over
 * `--max-body-size` bytes after decompression, a compression ratio past the limit, JSON nested
 * too deep, or too many empty pages in a row that still link to a next one (exit 6). Never
 * retried: a server that answers this way once is not having a transient failure.
 */
export class HostileResponseError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_HOSTILE_RESPONSE', options);
  }
}

/** Options of a {@link RateLimitError}: which exit-5 code it is (default `E_RATE_LIMIT_WAIT`). */
export interface RateLimitErrorOptions extends CollectionsErrorOptions {
  code?: 'E_RATE_LIMIT_WAIT' | 'E_RATE_LIMIT_REPEATED';
}

/** A rate-limit wait longer than `--max-wait`, or too many 429s for one request (exit 5). */
export class RateLimitError extends CollectionsError {
  /** When the limit resets, epoch ms by the local clock, if known. */
  readonly resetAt: number | undefined;

  constructor(message: string, resetAt?: number, options: RateLimitErrorOptions = {}) {
    super(message, options.code ?? 'E_RATE_LIMIT_WAIT', options);
    this.resetAt = resetAt;
  }
}

/** The output could not be written: unwritable path, a folder, disk full (exit 7). */
export class OutputError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_OUTPUT_WRITE', options);
  }
}

/** The export was stopped by SIGINT (exit 130) or SIGTERM (exit 143); the checkpoint is kept. */
export class InterruptedError extends CollectionsError {
  /** Which signal stopped the export. */
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(signal: 'SIGINT' | 'SIGTERM', message = `interrupted by ${signal}`, options: CollectionsErrorOptions = {}) {
    super(message, signal === 'SIGINT' ? 'E_INTERRUPTED_SIGINT' : 'E_INTERRUPTED_SIGTERM', options);
    this.signal = signal;
  }
}

/**
 * `collections verify` found an output that is missing or whose size, SHA-256 or item count is not
 * what its manifest says, or a manifest it could not read (exit 8, README "Exit codes").
 */
export class VerifyError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_VERIFY_MISMATCH', options);
  }
}

/**
 * The caller's `AbortSignal` stopped the work (the library's `signal` option; the command line's
 * interruptions are {@link InterruptedError}s). Named `AbortError` like the errors of fetch and
 * Node's timers, so `err.name === 'AbortError'` checks hold; the signal's reason is its `cause`.
 */
export class AbortError extends CollectionsError {
  constructor(message = 'aborted', options: CollectionsErrorOptions = {}) {
    super(message, 'E_ABORTED', options);
  }
}
