/**
 * The ground floor: the {@link Context}. Everything below `commands/` gets from it what it would
 * otherwise read from `process` (streams, environment, clock, fetch, signals), so tests can run a
 * whole command in process with a virtual clock. Besides `cli/main.ts` and `bin/`, this is the only
 * module that touches `process`.
 */
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';
import type { FetchLike } from './http/fetch-like.js';
import { readFileSync } from 'node:fs';

export type { FetchLike };

/** A readable stream that may be a terminal. */
export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/** A writable stream that may be a terminal. */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Standard streams plus what is known about them (GitHub CLI's IOStreams). */
export interface IOStreams {
  stdin: InputStream;
  /** Data only; progress, warnings and errors go to stderr (README, "Output"). */
  stdout: OutputStream;
  /** Progress, warnings, errors and the summary. */
  stderr: OutputStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width in columns, when stdout or stderr is a terminal. */
  columns: number | undefined;
}

/** The termination signals an export handles (docs/files.md, "Files, checkpoints and `--resume`"). */
export type TerminationSignal = 'SIGINT' | 'SIGTERM';

/** Subscribes to SIGINT / SIGTERM; returns the function that unsubscribes. */
export type SignalSource = (listener: (signal: TerminationSignal) => void) => () => void;

/**
 * One rate-limit window as the processes sharing a key and base URL see it (http/governor.ts
 * reserves and records; config/shared-quota-file.ts keeps it). Never holds the key.
 */
export interface SharedWindow {
  /** `X-RateLimit-Limit`, when seen. */
  limit?: number;
  /** Smallest `X-RateLimit-Remaining` seen in this window, when seen. */
  remaining?: number;
  /** The window's reset, server epoch ms, when seen. */
  resetAt?: number;
  /** Requests reserved (about to be sent, or sent) in this window by every process. */
  reserved: number;
  /** 2xx answers recorded in this window by every process (how much the server has certainly counted). */
  seen?: number;
}

/**
 * What a reservation knew of its window, handed back with the response's headers: the window's
 * reset (server ms) and the 2xx answers recorded in it before the request was reserved.
 */
export interface SharedTicket {
  resetAt: number;
  seen: number;
}

/**
 * What several processes learn together about the quota of one API and key (docs/rate-limits.md, "Rate limits,
 * retries and safety"). Every method is synchronous and never throws: a store that cannot be used
 * answers `undefined` (or false) and the caller works alone.
 */
export interface SharedQuota {
  /**
   * Reserves one request of `scope` (a route template or a path) unless the window is spent.
   * @param nowServerMs the current time by the server's clock (best estimate), epoch ms
   * @returns `{ granted: true, ticket }` (a ticket once the window's reset is known); `{ granted:
   *   false, resetAt }` when the others' reservations fill the window until `resetAt` (server ms);
   *   undefined when the store could not be used
   */
  reserve(scope: string, nowServerMs: number): { granted: true; ticket?: SharedTicket } | { granted: false; resetAt: number } | undefined;
  /**
   * Records a response's `X-RateLimit-*` of `scope` (limit, remaining, reset in server ms; `status`
   * default 200, a 429 recorded as remaining 0), with the ticket of its reservation.
   * @returns true when the response shows that the API counts `scope` (a route) per concrete path:
   *   it was reserved after answers other processes recorded in the same window, yet the server
   *   counts fewer requests than those (recorded with {@link SharedQuota.learnPathScope})
   */
  observe(scope: string, seen: { limit?: number; remaining: number; resetAt: number; status?: number }, ticket?: SharedTicket): boolean;
  /**
   * Gives back a reservation whose request was never sent (aborted before sending, or no longer
   * needed), so the window is not held for a phantom. Only in the window it was made in (`ticket`'s
   * reset; none: a window whose reset was not known yet), and never below the server's own count
   * (limit − remaining). A reservation never given back (a crashed process) ends with its window.
   */
  cancel(scope: string, ticket?: SharedTicket): void;
  /** Records that the API counts `route` per concrete path (see http/governor-registry.ts). */
  learnPathScope(route: string): void;
  /** Whether some process learnt that the API counts `route` per concrete path. */
  isPathScope(route: string): boolean;
}

/**
 * The rate budget of one process: what its HTTP clients share about the quota ({@link createRateBudget};
 * cli/main.ts makes one per process, the test world one per world; http/governor-registry.ts uses it).
 */
export interface RateBudget {
  /** The value every client of the process shares under `key`, made by `create` the first time. */
  share<T>(key: string, create: () => T): T;
  /**
   * Opens what other processes share for one API (`origin`) and key (`keyHash`, a SHA-256 hex of
   * the key, never the key), possibly after loading its module; undefined: no sharing across
   * processes. Must not reject.
   */
  openShared?(origin: string, keyHash: string): SharedQuota | Promise<SharedQuota | undefined> | undefined;
}

/**
 * Creates a {@link RateBudget}: values shared by key in memory.
 * @param openShared opens what other processes share (cli/main.ts passes the cache file's); none: this process alone
 */
export function createRateBudget(openShared?: RateBudget['openShared']): RateBudget {
  const values = new Map<string, unknown>();
  return {
    share<T>(key: string, create: () => T): T {
      if (!values.has(key)) values.set(key, create());
      return values.get(key) as T;
    },
    ...(openShared === undefined ? {} : { openShared }),
  };
}

/** Everything a command needs from the outside world. */
export interface Context {
  io: IOStreams;
  /** Environment variables (`COLLECTIONS_API_KEY`, `COLLECTIONS_BASE_URL`, `COLLECTIONS_PROFILE`, `CI`, `NO_COLOR`…). */
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** HTTP; never follows redirects by itself (the client asks for `redirect: 'manual'`). */
  fetch: FetchLike;
  /** Uniform random numbers in [0, 1), for retry jitter; seeded in tests. */
  random: () => number;
  /** Working directory, against which `--out` paths resolve. */
  cwd: string;
  /** Folder of the config file; undefined means the default, the user's config folder (config/folder.ts defaultConfigDir). */
  configDir: string | undefined;
  /** Termination signals. */
  onSignal: SignalSource;
  /** The tool's version, for `--version` and `User-Agent`. */
  version: string;
  /**
   * Ends the process at once with `code` (a second Ctrl-C). Everything else returns its exit code
   * up to main() instead.
   */
  forceExit: (code: number) => void;
  /** What the HTTP clients of this process share about the quota; undefined: each client learns alone. */
  rateBudget?: RateBudget;
}

/**
 * Whether a standard stream is a terminal. Node's types declare `isTTY` a boolean, but only a
 * `tty.ReadStream`/`tty.WriteStream` has it: on a pipe or a file it is undefined.
 */
const isTerminal = (stream: { readonly isTTY?: unknown }): boolean => stream.isTTY === true;

/**
 * Builds the production context from `process`. The transport is created lazily on the first
 * request, so `--help` and `--version` load no HTTP code.
 * @param version the package version (read from package.json by {@link readPackageVersion})
 * @param loadTransport creates the production fetch (cli/main.ts passes undici's, from
 *   http/transport.ts); called once, on the first request
 */
export function createSystemContext(version: string, loadTransport: () => Promise<FetchLike>): Context {
  const { stdin, stdout, stderr } = process;
  // SIGXFSZ (a write past `ulimit -f`) stays ignored, as Node sets it at start-up, so the write
  // fails with EFBIG (exit 7) instead: a listener of its own keeps the exit hooks of libraries
  // (signal-exit via write-file-atomic, ora and proper-lockfile) from re-raising it to kill the process.
  if (process.listenerCount('SIGXFSZ') === 0) process.on('SIGXFSZ', () => undefined);
  let transport: Promise<FetchLike> | undefined;
  const fetch: FetchLike = async (input, init) => {
    transport ??= loadTransport();
    return (await transport)(input, init);
  };
  return {
    io: {
      stdin,
      stdout,
      stderr,
      stdinIsTTY: isTerminal(stdin),
      stdoutIsTTY: isTerminal(stdout),
      stderrIsTTY: isTerminal(stderr),
      columns: stdout.isTTY ? stdout.columns : stderr.isTTY ? stderr.columns : undefined,
    },
    env: process.env,
    clock: systemClock,
    fetch,
    random: Math.random,
    cwd: process.cwd(),
    configDir: process.env.COLLECTIONS_CONFIG_DIR,
    onSignal(listener) {
      const onInt = (): void => listener('SIGINT');
      const onTerm = (): void => listener('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
    version,
    forceExit: (code) => process.exit(code),
  };
}

/**
 * Reads the `version` of the package.json beside `dist/` and `src/` (synchronously: it runs once at
 * start-up and costs well under a millisecond).
 */
export function readPackageVersion(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
