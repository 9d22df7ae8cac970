/**
 * The ground floor: the {@link Context}. Everything below `commands/` gets from it what it would
 * otherwise read from `process` (streams, environment, clock, fetch, signals), so tests can run a
 * whole command in process with a virtual clock. Besides `cli/main.ts` and `bin/`, this is the only
 * module that touches `process`.
 */
import type { Clock } from './time/clock.js';
import { systemClock } from './time/clock.js';
import type { FetchLike } from './http/fetch-like.js';
import type { RateBudget } from './rate/budget.js';
import { createSecrets, type Secrets } from './secrets.js';
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
  /**
   * The secrets of this run (the API key, added once known) and their removal from any text shown:
   * error lines, events, stacks (secrets.ts).
   */
  secrets: Secrets;
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
    secrets: createSecrets(),
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
