/**
 * An in-memory {@link Context} for tests: captured stdout/stderr, injected fetch and clock, signals
 * raised by hand, and a forceExit that records instead of exiting.
 */
import { PassThrough, Writable } from 'node:stream';
import type { Context, FetchLike, TerminationSignal } from '../../src/context.js';
import { type Clock } from '../../src/time/clock.js';
import { createVirtualClock } from './virtual-clock.js';
import { createSecrets } from '../../src/secrets.js';

/** A writable that keeps everything written, as text. */
export class CaptureStream extends Writable {
  chunks: Buffer[] = [];
  isTTY: boolean;
  columns: number | undefined;

  constructor(isTTY = false, columns?: number) {
    super();
    this.isTTY = isTTY;
    this.columns = columns;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (error?: Error | null) => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    cb();
  }

  /** Everything written so far, as UTF-8 text. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** A terminal stream with the cursor methods of tty.WriteStream, reporting `columns`. */
export class FakeTerminal extends CaptureStream {
  constructor(columns: number) {
    super(true, columns);
  }
  cursorTo(): boolean {
    return this.write('\x1b[1G');
  }
  clearLine(): boolean {
    return this.write('\x1b[0K');
  }
  moveCursor(): boolean {
    return this.write('\x1b[1A');
  }
}

/** Options of {@link createTestContext}. */
export interface TestContextOptions {
  fetch?: FetchLike;
  clock?: Clock;
  env?: Record<string, string | undefined>;
  cwd?: string;
  configDir?: string;
  stdinText?: string;
  stdinIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  columns?: number;
  /** Seeded random for jitter (default: a fixed sequence). */
  random?: () => number;
}

/** A test context plus handles on its streams and signals. */
export interface TestContext {
  ctx: Context;
  stdout: CaptureStream;
  stderr: CaptureStream;
  /** Raises SIGINT / SIGTERM as the OS would. */
  raise(signal: TerminationSignal): void;
  /** Codes passed to forceExit. */
  forcedExits: number[];
  /** Calls made to fetch (URLs). */
  fetched: string[];
}

/** A small seeded PRNG (mulberry32), uniform in [0, 1). */
export function seededRandom(seed = 42): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds a {@link TestContext}. fetch defaults to one that fails the test if called. */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  const stdout = new CaptureStream(options.stdoutIsTTY ?? false, options.columns);
  const stderr = new CaptureStream(options.stderrIsTTY ?? false, options.columns);
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = options.stdinIsTTY ?? false;
  if (options.stdinText !== undefined) stdin.end(options.stdinText);
  const listeners = new Set<(s: TerminationSignal) => void>();
  const forcedExits: number[] = [];
  const fetched: string[] = [];
  const inner: FetchLike = options.fetch ?? ((input) => Promise.reject(new Error(`unexpected request to ${String(input)}`)));
  const fetch: FetchLike = (input, init) => {
    fetched.push(String(input));
    return inner(input, init);
  };
  const ctx: Context = {
    io: {
      stdin,
      stdout,
      stderr,
      stdinIsTTY: options.stdinIsTTY ?? false,
      stdoutIsTTY: options.stdoutIsTTY ?? false,
      stderrIsTTY: options.stderrIsTTY ?? false,
      columns: options.columns,
    },
    env: options.env ?? {},
    clock: options.clock ?? createVirtualClock(),
    fetch,
    random: options.random ?? seededRandom(),
    cwd: options.cwd ?? process.cwd(),
    configDir: options.configDir,
    onSignal(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    version: '0.0.0-test',
    forceExit: (code) => {
      forcedExits.push(code);
    },
    secrets: createSecrets(),
  };
  return {
    ctx,
    stdout,
    stderr,
    raise: (signal) => {
      for (const l of [...listeners]) l(signal);
    },
    forcedExits,
    fetched,
  };
}
