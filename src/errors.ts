/** The exit codes of the README ("Exit codes"): sysexits in spirit, one per outcome a cron job must tell apart. */
export const ExitCode = {
  Ok: 0,
  Internal: 1,
  /** Usage or configuration, or the API rejected the parameters (400, 422); nothing was written. */
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  /** A rate-limit wait longer than `--max-wait`; the checkpoint is kept. */
  RateLimited: 5,
  /** Network errors or 5xx after retries, unreadable bodies, a cross-origin or looping link. */
  Unavailable: 6,
  Output: 7,
  /** `verify`: an output is not what its manifest says. */
  Verify: 8,
  /** 128 + signal number; the checkpoint is kept. */
  Sigint: 130,
  Sigterm: 143,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The one table from a failure's stable code (scripts and tests match it, not the message) to its exit code. */
export const EXIT_CODE_OF = {
  E_USAGE: ExitCode.Usage,
  /** Missing or invalid settings (key, base URL, profile, config file). */
  E_CONFIG: ExitCode.Usage,
  /** A checkpoint that cannot be resumed, or left without `--resume`. */
  E_CHECKPOINT: ExitCode.Usage,
  /** 400 or 422. */
  E_API_REJECTED: ExitCode.Usage,
  /** 401 or 403. */
  E_AUTH: ExitCode.Auth,
  E_NOT_FOUND: ExitCode.NotFound,
  E_RATE_LIMIT_WAIT: ExitCode.RateLimited,
  /** Too many 429s in a row for one request. */
  E_RATE_LIMIT_REPEATED: ExitCode.RateLimited,
  E_API_UNAVAILABLE: ExitCode.Unavailable,
  /** Another 4xx. */
  E_HTTP_UNEXPECTED: ExitCode.Unavailable,
  /** A link or redirect to another origin, or a link that loops. */
  E_UNSAFE_LINK: ExitCode.Unavailable,
  /** Past a safety bound: body size, compression ratio, JSON depth, empty pages. */
  E_HOSTILE_RESPONSE: ExitCode.Unavailable,
  E_OUTPUT_WRITE: ExitCode.Output,
  /** Another export holds the lock of the same `--out`. */
  E_LOCKED: ExitCode.Output,
  E_VERIFY_MISMATCH: ExitCode.Verify,
  /** A complete database export that kept items apart (`collections_rejects`): the table is not the whole collection, and a rerun would not change it. */
  E_ITEMS_REJECTED: ExitCode.Verify,
  E_INTERRUPTED_SIGINT: ExitCode.Sigint,
  E_INTERRUPTED_SIGTERM: ExitCode.Sigterm,
  /** The library's `signal` option: an interruption, as SIGINT is. */
  E_ABORTED: ExitCode.Sigint,
  /** Anything that is not a {@link CollectionsError}. */
  E_INTERNAL: ExitCode.Internal,
} as const satisfies Record<string, ExitCode>;

export type ErrorCode = keyof typeof EXIT_CODE_OF;

export interface CollectionsErrorOptions {
  /** Kept for `--verbose` diagnostics. */
  cause?: unknown;
  /** One line printed after the message. */
  hint?: string;
}

/** A failure with a message fit for one stderr line, a stable code and its exit code. */
export class CollectionsError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(message: string, code: ErrorCode, options: CollectionsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = EXIT_CODE_OF[code];
    this.hint = options.hint;
  }
}

/** A {@link CollectionsError}'s own exit code, else 1 (a bug). */
export function toExitCode(err: unknown): ExitCode {
  return err instanceof CollectionsError ? err.exitCode : ExitCode.Internal;
}

export interface UsageErrorOptions extends CollectionsErrorOptions {
  code?: 'E_USAGE' | 'E_CONFIG' | 'E_CHECKPOINT';
}

/** Exit 2, raised before any request or file write. */
export class UsageError extends CollectionsError {
  constructor(message: string, options: UsageErrorOptions = {}) {
    super(message, options.code ?? 'E_USAGE', options);
  }
}

/** Never request headers, never the key. */
export interface HttpErrorDetails {
  method: string;
  /** Path and query, e.g. `/entities?page=2`. */
  path: string;
  status: number;
  serverMessage?: string;
  /** Support asks for it. */
  requestId?: string;
}

function describeHttp(d: HttpErrorDetails, what: string): string {
  let s = `${what} (${d.method} ${d.path}: HTTP ${d.status})`;
  if (d.serverMessage) s += `: ${d.serverMessage}`;
  if (d.requestId) s += ` [X-Request-ID: ${d.requestId}]`;
  return s;
}

/** The hint that says what to change is the command line's: it names flags. */
const HTTP_STATUS_MEANING: Readonly<Record<number, { code: ErrorCode; what: string }>> = {
  400: { code: 'E_API_REJECTED', what: 'the API rejected the parameters' },
  // API Platform 4 validates query parameters and answers an invalid one with 422 and a
  // ConstraintViolationList (its features/filter/filter_validation.feature): a usage error, like 400.
  422: { code: 'E_API_REJECTED', what: 'the API rejected the parameters' },
  401: { code: 'E_AUTH', what: 'the API key was rejected' },
  403: { code: 'E_AUTH', what: 'the API key was rejected' },
  404: { code: 'E_NOT_FOUND', what: 'not found' },
};

/** A status the client does not retry: 400, 422 (exit 2), 401, 403 (exit 3), 404 (exit 4), another 4xx (exit 6). */
export class HttpError extends CollectionsError {
  readonly details: HttpErrorDetails;

  constructor(details: HttpErrorDetails, options: CollectionsErrorOptions = {}) {
    const meaning = HTTP_STATUS_MEANING[details.status];
    super(describeHttp(details, meaning?.what ?? 'unexpected response'), meaning?.code ?? 'E_HTTP_UNEXPECTED', options);
    this.details = details;
  }
}

/** Network errors, 5xx or unreadable bodies after retries (exit 6). */
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
 * A response past a safety bound: body size, compression ratio, JSON depth, empty pages (exit 6).
 * Never retried: a server that answers this way once is not having a transient failure.
 */
export class HostileResponseError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_HOSTILE_RESPONSE', options);
  }
}

export interface RateLimitErrorOptions extends CollectionsErrorOptions {
  code?: 'E_RATE_LIMIT_WAIT' | 'E_RATE_LIMIT_REPEATED';
}

/** A rate-limit wait longer than `--max-wait`, or too many 429s for one request (exit 5). */
export class RateLimitError extends CollectionsError {
  /** Epoch ms by the local clock, if known. */
  readonly resetAt: number | undefined;

  constructor(message: string, resetAt?: number, options: RateLimitErrorOptions = {}) {
    super(message, options.code ?? 'E_RATE_LIMIT_WAIT', options);
    this.resetAt = resetAt;
  }
}

/** Unwritable path, a folder, disk full (exit 7). */
export class OutputError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_OUTPUT_WRITE', options);
  }
}

/** Exit 130 or 143; the checkpoint is kept. */
export class InterruptedError extends CollectionsError {
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(signal: 'SIGINT' | 'SIGTERM', message = `interrupted by ${signal}`, options: CollectionsErrorOptions = {}) {
    super(message, signal === 'SIGINT' ? 'E_INTERRUPTED_SIGINT' : 'E_INTERRUPTED_SIGTERM', options);
    this.signal = signal;
  }
}

/** An output missing or not what its manifest says (size, SHA-256, item count), or an unreadable manifest (exit 8). */
export class VerifyError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, 'E_VERIFY_MISMATCH', options);
  }
}

/**
 * The library's `signal` stopped the work. Named like fetch's and Node's timers' errors, so
 * `err.name === 'AbortError'` checks hold; the signal's reason is its `cause`.
 */
export class AbortError extends CollectionsError {
  constructor(message = 'aborted', options: CollectionsErrorOptions = {}) {
    super(message, 'E_ABORTED', options);
  }
}
