/** What everything below `commands/` would otherwise read from `process`, so tests run a whole command in process. */
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';
import type { RateBudget } from './rate/budget.js';
import { createSecrets, type Secrets } from './secrets.js';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The subset of WHATWG `fetch` the client uses. Production binds undici's fetch to one shared
 * Agent; tests pass `globalThis.fetch` under nock, or a sandbox's handler.
 */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Standard streams plus what is known about them (GitHub CLI's IOStreams). */
export interface IOStreams {
  stdin: InputStream;
  /** Data only (README, "Output"). */
  stdout: OutputStream;
  stderr: OutputStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  columns: number | undefined;
  /**
   * `stdout` is the process's file descriptor 1, which `--out /dev/stdout` names: written through
   * this stream rather than opened again by name, which a socket (systemd, a Node parent) or a pipe
   * of another user refuses. Unset (a library call, a test) opens the name.
   */
  stdoutIsDescriptor1?: boolean;
}

export type TerminationSignal = 'SIGINT' | 'SIGTERM';

export type SignalSource = (listener: (signal: TerminationSignal) => void) => () => void;

export interface Context {
  io: IOStreams;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** Never follows redirects by itself (the client asks for `redirect: 'manual'`). */
  fetch: FetchLike;
  /** Uniform in [0, 1), for retry jitter; seeded in tests. */
  random: () => number;
  cwd: string;
  /** undefined: the user's config folder. */
  configDir: string | undefined;
  onSignal: SignalSource;
  version: string;
  /** Ends the process at once (a second Ctrl-C); everything else returns its exit code up to main(). */
  forceExit: (code: number) => void;
  /** undefined: each client learns alone. */
  rateBudget?: RateBudget;
  secrets: Secrets;
  /**
   * Starts importing what an export needs besides its own modules (the HTTP transport, the rate
   * budget's file store) while those load; the command line sets it, other contexts leave it out.
   */
  preloadExport?: () => void;
}

/**
 * One SIGINT and one SIGTERM listener on `process` for the whole run, however many exports listen
 * (one each would draw Node's MaxListenersExceededWarning under `--parallel`); each subscriber is
 * called in order, and the process listeners go when the last unsubscribes, so the default action
 * (and a library's re-raise) applies again.
 */
function processSignals(): SignalSource {
  const listeners = new Set<(signal: TerminationSignal) => void>();
  // Node calls a signal's listeners with its name.
  const deliver = (signal: TerminationSignal): void => {
    for (const listener of [...listeners]) listener(signal);
  };
  return (listener) => {
    // A function subscribed twice must be called twice, as process.on would: wrap it.
    const own = (signal: TerminationSignal): void => listener(signal);
    if (listeners.size === 0) {
      process.on('SIGINT', deliver);
      process.on('SIGTERM', deliver);
    }
    listeners.add(own);
    return () => {
      if (!listeners.delete(own) || listeners.size > 0) return;
      process.off('SIGINT', deliver);
      process.off('SIGTERM', deliver);
    };
  };
}

/** Node's types declare `isTTY` a boolean, but on a pipe or a file it is undefined. */
const isTerminal = (stream: { readonly isTTY?: unknown }): boolean => stream.isTTY === true;

/**
 * @param loadTransport called on each request and memoized by the caller (which also preloads it), so `--help`
 * and `--version` load no HTTP code
 */
export function createSystemContext(version: string, loadTransport: () => Promise<FetchLike>): Context {
  const { stdin, stdout, stderr } = process;
  return {
    io: {
      stdin,
      stdout,
      stderr,
      stdinIsTTY: isTerminal(stdin),
      stdoutIsTTY: isTerminal(stdout),
      stderrIsTTY: isTerminal(stderr),
      columns: stdout.isTTY ? stdout.columns : stderr.isTTY ? stderr.columns : undefined,
      stdoutIsDescriptor1: true,
    },
    env: process.env,
    clock: systemClock,
    fetch: async (input, init) => (await loadTransport())(input, init),
    random: Math.random,
    cwd: process.cwd(),
    configDir: process.env.COLLECTIONS_CONFIG_DIR,
    onSignal: processSignals(),
    version,
    forceExit: (code) => process.exit(code),
    secrets: createSecrets(),
  };
}

/** Synchronous: it runs once at start-up and costs well under a millisecond. */
export function readPackageVersion(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** `host pid`: how a shared rate budget names this process's reservations (never by key). */
export function processHolder(): string {
  return `${hostname()} ${process.pid}`;
}
