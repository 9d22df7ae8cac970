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

/** `'ENOSPC'`, `'EPIPE'`…; undefined when `error` carries no string `code`. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The reader of a stream went away: EPIPE from the OS, or Node's own once it closed the stream. */
export function isPipeGone(error: unknown): boolean {
  return ['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET'].includes(errorCode(error) ?? '');
}

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

/**
 * An option by its name in the library (`itemsPerPage`). The command line spells it as its flag
 * (`--items-per-page 50`), the library as the option (`itemsPerPage: 50`); `true` is a switch.
 */
export interface OptionTerm {
  readonly option: HintOption;
  readonly value?: string | number | true;
}

/** The options a hint may name; each door has a word for each. */
export const HINT_OPTIONS = [
  'resume',
  'restart',
  'cursor',
  'page',
  'itemsPerPage',
  'maxWaitMs',
  'maxBodyBytes',
  'sinceField',
  'table',
  'key',
  'fields',
  'compress',
  'out',
  'port',
  'host',
] as const;

export type HintOption = (typeof HINT_OPTIONS)[number];

/** A step that is a command on the command line and a call or an option in the library. */
export type StepTerm =
  /** Run the same export again, continuing its checkpoint; `command` is the command line to repeat. */
  | { readonly step: 'resume'; readonly command: string }
  /** A stream (stdout) export has no checkpoint to continue. */
  | { readonly step: 'streamOut' }
  /** Where the base URL comes from. */
  | { readonly step: 'checkBaseUrl' }
  | { readonly step: 'useBaseUrl'; readonly url: string }
  /** A 404 of a path no caller named the ids of. */
  | { readonly step: 'checkPath'; readonly path: string }
  | { readonly step: 'startSandbox' }
  | { readonly step: 'setApiKey' }
  /** An optional database driver to install. */
  | { readonly step: 'install'; readonly packageName: string };

/** A hint as data: text and the terms each door words its way ({@link HintWords}). */
export type Hint = ReadonlyArray<string | OptionTerm | StepTerm>;

/** The words of a door: one for each option and each step, so no door can lack one. */
export interface HintWords {
  option(term: OptionTerm): string;
  step: { readonly [S in StepTerm['step']]: (term: Extract<StepTerm, { step: S }>) => string };
}

/** `hint\`use ${option('resume', true)} to continue it\``: a {@link Hint} from text and terms. */
export function hint(text: TemplateStringsArray, ...terms: ReadonlyArray<string | OptionTerm | StepTerm | Hint>): Hint {
  return text.flatMap((part, k) => [part, ...(k < terms.length ? [terms[k]!].flat() : [])]).filter((part) => part !== '');
}

export const option = (name: HintOption, value?: OptionTerm['value']): OptionTerm =>
  value === undefined ? { option: name } : { option: name, value };

export function renderHint(advice: Hint, words: HintWords): string {
  const say = words.step as Record<string, (term: StepTerm) => string>;
  return advice.map((part) => (typeof part === 'string' ? part : 'option' in part ? words.option(part) : say[part.step]!(part))).join('');
}

/** The library's words: the option as a caller writes it, and the call to make. */
const LIBRARY_WORDS: HintWords = {
  option: ({ option: name, value }) => (value === undefined ? name : `${name}: ${typeof value === 'string' ? `'${value}'` : String(value)}`),
  step: {
    resume: () => 'run it again with resume: true',
    streamOut: () => 'stream exports cannot resume; give out a file path',
    checkBaseUrl: () => 'check baseUrl',
    useBaseUrl: ({ url }) => `use ${url} as baseUrl`,
    checkPath: ({ path }) => `check the path ${path} (the ids in it, and the path of baseUrl)`,
    startSandbox: () => 'to try the library locally, call startSandbox() and use the baseUrl it resolves to',
    setApiKey: () => 'check apiKey',
    install: ({ packageName }) => `install it beside collections (npm install ${packageName}), or write a file`,
  },
};

export interface CollectionsErrorOptions {
  /** Kept for `--verbose` diagnostics. */
  cause?: unknown;
  /** One line printed after the message: text, or a {@link Hint} that each door words its way. */
  hint?: string | Hint;
}

/** A failure with a message fit for one stderr line, a stable code and its exit code. */
export class CollectionsError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  /** The hint as data, for a door with other words: the command line renders it with its flags. */
  readonly advice: Hint | undefined;
  /** The hint in the library's words (`resume: true`, `startSandbox()`). */
  readonly hint: string | undefined;

  constructor(message: string, code: ErrorCode, options: CollectionsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = EXIT_CODE_OF[code];
    this.advice = typeof options.hint === 'string' ? [options.hint] : options.hint;
    this.hint = this.advice && renderHint(this.advice, LIBRARY_WORDS);
  }
}

/** The base of the errors below that differ by their code alone. */
function ofCode(code: ErrorCode): new (message: string, options?: CollectionsErrorOptions) => CollectionsError {
  return class extends CollectionsError {
    constructor(message: string, options: CollectionsErrorOptions = {}) {
      super(message, code, options);
    }
  };
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

/** `itemsPerPage` is API Platform's parameter, and a violation's `propertyPath`. */
const PAGE_SIZE_REFUSED = /itemsPerPage|items per page|page size/i;

/** Words of a largest value, inclusive (Symfony's LessThanOrEqual and Range, API Platform's own, and plainer ones). */
const INCLUSIVE_MAXIMUM =
  /(?:less than or equal to|at most|no more than|not (?:be )?(?:greater|more) than|not exceed|maximum(?: value)?(?: is| of)?|max(?:imum)?:|between \d+ and|<=|≤)\s*(\d+)/i;
/** Symfony's LessThan: `should be less than 51`. */
const EXCLUSIVE_MAXIMUM = /less than\s*(\d+)/i;

/** The largest page size a server message allows, when it says; undefined otherwise. */
export function pageSizeMaximum(message: string): number | undefined {
  const inclusive = INCLUSIVE_MAXIMUM.exec(message);
  if (inclusive) return Number(inclusive[1]);
  const exclusive = EXCLUSIVE_MAXIMUM.exec(message);
  return exclusive ? Number(exclusive[1]) - 1 : undefined;
}

/** A suggestion without a maximum, only when it is smaller than what was asked. */
const SMALLER_PAGE_SIZE = 100;

/** The path alone is absolute: read against a placeholder origin. */
const requestUrl = (d: HttpErrorDetails): URL => new URL(d.path, 'http://h');

function pageSizeHint(d: HttpErrorDetails): Hint | undefined {
  const message = d.serverMessage ?? '';
  if (!PAGE_SIZE_REFUSED.test(message)) return undefined;
  const asked = requestUrl(d).searchParams.get('itemsPerPage');
  const refused = `the API refuses this page size${asked === null ? '' : ` (itemsPerPage=${asked})`}`;
  const maximum = pageSizeMaximum(message);
  if (maximum !== undefined && maximum >= 1) return hint`${refused}: give ${option('itemsPerPage', maximum)} or less`;
  const example = asked !== null && Number(asked) > SMALLER_PAGE_SIZE ? `, e.g. ${SMALLER_PAGE_SIZE}` : '';
  return hint`${refused}: give a smaller ${option('itemsPerPage')}${example}`;
}

/** What a status means, and its hint when the thrower has none: the key, the path, or a page size the server names. */
const HTTP_STATUS_MEANING: Readonly<Record<number, { code: ErrorCode; what: string; hint: (d: HttpErrorDetails) => Hint | undefined }>> = {
  400: { code: 'E_API_REJECTED', what: 'the API rejected the parameters', hint: pageSizeHint },
  // API Platform 4 validates query parameters and answers an invalid one with 422 and a
  // ConstraintViolationList (its features/filter/filter_validation.feature): a usage error, like 400.
  422: { code: 'E_API_REJECTED', what: 'the API rejected the parameters', hint: pageSizeHint },
  401: { code: 'E_AUTH', what: 'the API key was rejected', hint: () => [{ step: 'setApiKey' }] },
  403: { code: 'E_AUTH', what: 'the API key was rejected', hint: () => [{ step: 'setApiKey' }] },
  404: { code: 'E_NOT_FOUND', what: 'not found', hint: (d) => [{ step: 'checkPath', path: requestUrl(d).pathname }] },
};

/** A status the client does not retry: 400, 422 (exit 2), 401, 403 (exit 3), 404 (exit 4), another 4xx (exit 6). */
export class HttpError extends CollectionsError {
  readonly details: HttpErrorDetails;

  constructor(details: HttpErrorDetails, options: CollectionsErrorOptions = {}) {
    const meaning = HTTP_STATUS_MEANING[details.status];
    const advice = options.hint ?? meaning?.hint(details);
    super(describeHttp(details, meaning?.what ?? 'unexpected response'), meaning?.code ?? 'E_HTTP_UNEXPECTED', { ...options, hint: advice });
    this.details = details;
  }
}

/** Network errors, 5xx or unreadable bodies after retries (exit 6). */
export class ApiUnavailableError extends ofCode('E_API_UNAVAILABLE') {}

/** A `hydra:next` link or redirect to another origin, or a link already fetched (exit 6). */
export class UnsafeLinkError extends ofCode('E_UNSAFE_LINK') {}

/**
 * A response past a safety bound: body size, compression ratio, JSON depth, empty pages (exit 6).
 * Never retried: a server that answers this way once is not having a transient failure.
 */
export class HostileResponseError extends ofCode('E_HOSTILE_RESPONSE') {}

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
export class OutputError extends ofCode('E_OUTPUT_WRITE') {}

/** Exit 130 or 143; the checkpoint is kept. */
export class InterruptedError extends CollectionsError {
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor(signal: 'SIGINT' | 'SIGTERM', message = `interrupted by ${signal}`, options: CollectionsErrorOptions = {}) {
    super(message, signal === 'SIGINT' ? 'E_INTERRUPTED_SIGINT' : 'E_INTERRUPTED_SIGTERM', options);
    this.signal = signal;
  }
}

/** An output missing or not what its manifest says (size, SHA-256, item count), or an unreadable manifest (exit 8). */
export class VerifyError extends ofCode('E_VERIFY_MISMATCH') {}

/**
 * The library's `signal` stopped the work. Named like fetch's and Node's timers' errors, so
 * `err.name === 'AbortError'` checks hold; the signal's reason is its `cause`.
 */
export class AbortError extends CollectionsError {
  constructor(message = 'aborted', options: CollectionsErrorOptions = {}) {
    super(message, 'E_ABORTED', options);
  }
}
