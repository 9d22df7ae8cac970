/**
 * The {@link Context}: everything below `commands/` gets from it what it would otherwise read from
 * `process` (conventions.md, rule 3). This is the only module besides `bin/` that touches `process`.
 */
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { readFileSync } from 'node:fs';

/**
 * The subset of WHATWG `fetch` the client uses. Production binds undici's fetch to one shared Agent
 * (http/transport.ts); tests pass `globalThis.fetch` under nock, or a sandbox's handler.
 */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** A readable stream that may be a terminal. */
export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/** A writable stream that may be a terminal. */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Standard streams plus what is known about them (GitHub CLI's IOStreams). */
export interface IOStreams {
  stdin: InputStream;
  /** Data only (conventions.md, rule 4). */
  stdout: OutputStream;
  /** Progress, warnings, errors and the summary. */
  stderr: OutputStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width in columns, when stdout or stderr is a terminal. */
  columns: number | undefined;
}

/** The termination signals an export handles (cli-spec.md, "Signals and pipes"). */
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
  /** Folder of the config file; undefined means conf's default (the user's config folder). */
  configDir: string | undefined;
  /** Termination signals. */
  onSignal: SignalSource;
  /** The tool's version, for `--version` and `User-Agent`. */
  version: string;
  /**
   * Ends the process at once with `code` (a second Ctrl-C). Everything else returns its exit code
   * up to main() instead (conventions.md, rule 9).
   */
  forceExit: (code: number) => void;
}

/**
 * Builds the production context from `process`. undici is imported lazily on the first request,
 * so `--help` and `--version` load no HTTP code.
 * @param version the package version (read by bin/ from package.json)
 */
export function createSystemContext(version: string): Context {
  const { stdin, stdout, stderr } = process;
  let transport: Promise<FetchLike> | undefined;
  const fetch: FetchLike = async (input, init) => {
    transport ??= import('../http/transport.js').then((m) => m.createTransportFetch());
    return (await transport)(input, init);
  };
  return {
    io: {
      stdin,
      stdout,
      stderr,
      stdinIsTTY: stdin.isTTY === true,
      stdoutIsTTY: stdout.isTTY === true,
      stderrIsTTY: stderr.isTTY === true,
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
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
