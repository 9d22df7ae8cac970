/**
 * Error classes. Every failure the tool expects is a {@link CollectionsError} carrying the exit
 * code of cli-spec.md; `toExitCode()` in cli/main.ts is the one place that maps errors to codes.
 * Messages never carry the API key or request headers (conventions.md, rule 10).
 */
import { ExitCode } from './cli/exit-codes.js';

/** Options shared by every {@link CollectionsError}. */
export interface CollectionsErrorOptions {
  /** The underlying error, kept for `--verbose` diagnostics. */
  cause?: unknown;
  /** A one-line suggestion printed after the message (e.g. "run `collections config set base-url URL`"). */
  hint?: string;
}

/** Base class: a failure with a message fit for one stderr line and the process exit code. */
export class CollectionsError extends Error {
  /** The process exit code this failure maps to (cli-spec.md, "Exit codes"). */
  readonly exitCode: ExitCode;
  /** Optional one-line hint. */
  readonly hint: string | undefined;

  constructor(message: string, exitCode: ExitCode, options: CollectionsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** Bad flags, ids, paths or configuration (exit 2), raised before any request or file write. */
export class UsageError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, ExitCode.Usage, options);
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

/** Formats `GET /path: 404 Not Found: server message (X-Request-ID: …)`. */
function describeHttp(d: HttpErrorDetails, what: string): string {
  let s = `${what} (${d.method} ${d.path}: HTTP ${d.status})`;
  if (d.serverMessage) s += `: ${d.serverMessage}`;
  if (d.requestId) s += ` [X-Request-ID: ${d.requestId}]`;
  return s;
}

/**
 * An HTTP status the client does not retry: 400 (exit 2), 401/403 (exit 3), 404 (exit 4),
 * other 4xx (exit 6). 5xx after retries are {@link ApiUnavailableError}.
 */
export class HttpError extends CollectionsError {
  /** Method, path, status, server message and request id. */
  readonly details: HttpErrorDetails;

  constructor(details: HttpErrorDetails, options: CollectionsErrorOptions = {}) {
    const { status } = details;
    const [what, code, hint] =
      status === 400
        ? (['the API rejected the parameters', ExitCode.Usage, 'check --param values'] as const)
        : status === 401 || status === 403
          ? ([
              'the API key was rejected',
              ExitCode.Auth,
              'set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY',
            ] as const)
          : status === 404
            ? (['not found', ExitCode.NotFound, 'check the --taxpayer and --invoice ids'] as const)
            : (['unexpected response', ExitCode.Unavailable, undefined] as const);
    super(describeHttp(details, what), code, { hint: options.hint ?? hint, cause: options.cause });
    this.details = details;
  }
}

/** The API could not be read after retries: network errors, 5xx, unreadable bodies (exit 6). */
export class ApiUnavailableError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, ExitCode.Unavailable, options);
  }
}

/** A `hydra:next` link or redirect to another origin, or a link already fetched (exit 6). */
export class UnsafeLinkError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, ExitCode.Unavailable, options);
  }
}

/** A rate-limit wait longer than `--max-wait`, or too many 429s for one request (exit 5). */
export class RateLimitError extends CollectionsError {
  /** When the limit resets, epoch ms by the local clock, if known. */
  readonly resetAt: number | undefined;

  constructor(message: string, resetAt?: number, options: CollectionsErrorOptions = {}) {
    super(message, ExitCode.RateLimited, options);
    this.resetAt = resetAt;
  }
}

/** The output could not be written: unwritable path, a folder, disk full (exit 7). */
export class OutputError extends CollectionsError {
  constructor(message: string, options: CollectionsErrorOptions = {}) {
    super(message, ExitCode.Output, options);
  }
}

/** The export was stopped by SIGINT (exit 130) or SIGTERM (exit 143); the checkpoint is kept. */
export class InterruptedError extends CollectionsError {
  /** Which signal stopped the export. */
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(signal: 'SIGINT' | 'SIGTERM', message = `interrupted by ${signal}`, options: CollectionsErrorOptions = {}) {
    super(message, signal === 'SIGINT' ? ExitCode.Sigint : ExitCode.Sigterm, options);
    this.signal = signal;
  }
}
