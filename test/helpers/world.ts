/**
 * THE test world of the export suites: a sandbox (answered in process through
 * `createSandboxFetch` on a virtual clock, or served on 127.0.0.1 by `startSandboxServer` on the
 * system clock), a temp folder (cwd and config folder, so no real config is touched), and
 * `main(argv, ctx)` run in it with a captured Context ({@link createTestContext}: in-memory
 * stdout/stderr, injected fetch and clock, signals raised by hand). {@link useTempDir} and
 * {@link useWorld} give each test its own folder and world. Spawned runs of the built bin use
 * test/helpers/cli.ts with {@link cliEnv}.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { Context, FetchLike, TerminationSignal } from '../../src/context.js';
import { createRateBudget, type RateBudget } from '../../src/rate/budget.js';
import { createSandbox, type RequestLogEntry, type Sandbox, type SandboxOptions } from '../../src/sandbox/app.js';
import { createSandboxFetch, type ForeignRequest } from '../../src/sandbox/fetch.js';
import { startSandboxServer, type RunningServer } from '../../src/sandbox/server.js';
import { createSecrets } from '../../src/secrets.js';
import { systemClock, type Clock } from '../../src/time/clock.js';
import { afterEach, beforeEach } from 'vitest';
import { createVirtualClock, type VirtualClock } from './virtual-clock.js';

/** The canary key of every world: it must appear in no output, file or message, only in `X-Api-Key`. */
export const CANARY = 'canary-KEY-7f3a-do-not-print';
/** Another canary, for a key the sandbox rejects (401): it must not be printed either. */
export const WRONG_KEY = 'canary-KEY-0000-do-not-print';
/** The key the hand-driven fake API of the client tests accepts (test/helpers/fake-api.ts). */
export const FAKE_API_KEY = 'canary-KEY-1234';
/** Base URL of an in-process world (loopback, so no plain-http warning; no socket is opened). */
export const BASE = 'http://127.0.0.1:9';
/** Virtual start time of an in-process world, epoch ms (2024-04-16T18:00:00Z). */
export const START = Date.UTC(2024, 3, 16, 18, 0, 0);
/** Collection sizes of a world unless its options say otherwise. */
const DEFAULT_SIZES = { taxpayers: 1, invoicesPerTaxpayer: 60 };

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

/** A temp folder, removed by {@link TempDir.remove} or {@link removeTempDirs}. */
export interface TempDir {
  /** Absolute path of the folder. */
  path: string;
  /** Absolute path of a file in it. */
  file(name: string): string;
  /** Whether `name` exists in it. */
  has(name: string): boolean;
  /** Contents of `name`, as bytes. @throws {Error} ENOENT when it does not exist */
  read(name: string): Buffer;
  remove(): void;
}

const live = new Set<string>();

/** Creates a temp folder under the OS temp folder (removed with its contents by `remove()`). */
export function tempDir(prefix = 'collections-test-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  live.add(path);
  return {
    path,
    file: (name) => join(path, name),
    has: (name) => existsSync(join(path, name)),
    read: (name) => readFileSync(join(path, name)),
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      live.delete(path);
    },
  };
}

/** A temp folder of {@link useTempDir}: each test's own. */
export interface TestTempDir extends TempDir {
  /** Removes this test's folder and makes a fresh one in its place (for a test that starts over). */
  recreate(): void;
}

/**
 * Each test's temp folder: made before it (`beforeEach`), removed after it (`afterEach`), in place
 * of the same hooks written in every test file; the members read the current test's folder.
 */
export function useTempDir(prefix?: string): TestTempDir {
  let current: TempDir | undefined;
  beforeEach(() => {
    current = tempDir(prefix);
  });
  afterEach(() => {
    current?.remove();
    current = undefined;
  });
  const now = (): TempDir => {
    if (current === undefined) throw new Error('useTempDir: the folder is made in beforeEach');
    return current;
  };
  return {
    get path() {
      return now().path;
    },
    file: (name) => now().file(name),
    has: (name) => now().has(name),
    read: (name) => now().read(name),
    remove: () => now().remove(),
    recreate: () => {
      now().remove();
      current = tempDir(prefix);
    },
  };
}

/** Every file below `dir`, relative, sorted; the tool's own config folder aside. */
export function filesBelow(dir: TempDir): string[] {
  const walk = (path: string): string[] =>
    readdirSync(path, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(path, e.name)) : [relative(dir.path, join(path, e.name))],
    );
  return walk(dir.path)
    .filter((f) => !f.startsWith('config/'))
    .sort();
}

/** Removes every temp folder of this test file not removed yet (for `afterAll`). */
export function removeTempDirs(): void {
  for (const path of live) rmSync(path, { recursive: true, force: true });
  live.clear();
}

/** Sandbox options of a world: the sandbox's own, its clock excepted (the world chooses it). */
export type WorldSandboxOptions = Omit<SandboxOptions, 'clock'>;

/**
 * A sandbox with the world's defaults: keyed with {@link CANARY}, no rate limit, 1 taxpayer with 60
 * invoices, and otherwise the sandbox's own defaults, the ones users meet: API Platform's escapes on
 * the wire and its ≥ 4.3.5 endless cursor chain (every cursor page links next, so a cursor export
 * ends at the first empty page: one request past the last item); `options` override each. Without
 * a clock it runs on the system clock.
 */
export function createWorldSandbox(options: WorldSandboxOptions = {}, clock?: VirtualClock): Sandbox {
  return createSandbox({ apiKey: CANARY, limit: 0, sizes: DEFAULT_SIZES, ...(clock ? { clock } : {}), ...options });
}

/** Options of {@link createWorld}. */
export interface WorldOptions extends WorldSandboxOptions {
  /** Virtual start time, epoch ms (default {@link START}). */
  start?: number;
  /** Base URL the runs use (default {@link BASE}). */
  base?: string;
  /**
   * Only the base URL's origin is the sandbox: a request elsewhere fails like a refused connection
   * and is recorded in {@link RunOutcome.foreign}. Default false: every origin is the sandbox.
   */
  strictOrigin?: boolean;
}

/** An in-process world: a sandbox on a virtual clock shared with the runs that use it. */
export interface SandboxWorld {
  sandbox: Sandbox;
  clock: VirtualClock;
  /** RFC of the first generated taxpayer. */
  taxpayer: string;
  /** The key the sandbox accepts. */
  key: string;
  /** Base URL of the runs. */
  base: string;
  strictOrigin: boolean;
}

/** Creates an in-process world (see {@link createWorldSandbox} for the sandbox's defaults). */
export function createWorld(options: WorldOptions = {}): SandboxWorld {
  const { start = START, base = BASE, strictOrigin = false, ...sandboxOptions } = options;
  const clock = createVirtualClock(start);
  const sandbox = createWorldSandbox(sandboxOptions, clock);
  return { sandbox, clock, taxpayer: sandbox.taxpayers()[0]!, key: sandbox.apiKey, base, strictOrigin };
}

/** A world of {@link useWorld}: each test's own. */
export interface TestWorld extends SandboxWorld {
  /** Replaces this test's world by one made with `options` (for a test that needs another sandbox). */
  recreate(options?: WorldOptions): void;
}

/** The world a {@link useWorld} handle stands for in the test running now. */
const currentWorlds = new WeakMap<object, () => SandboxWorld>();

/**
 * Each test's in-process world, made with `options` before it (`beforeEach`) in place of the same
 * hook written in every test file; the members read the current test's world.
 */
export function useWorld(options: WorldOptions = {}): TestWorld {
  let current: SandboxWorld | undefined;
  beforeEach(() => {
    current = createWorld(options);
  });
  const now = (): SandboxWorld => {
    if (current === undefined) throw new Error('useWorld: the world is made in beforeEach');
    return current;
  };
  const handle: TestWorld = {
    get sandbox() {
      return now().sandbox;
    },
    get clock() {
      return now().clock;
    },
    get taxpayer() {
      return now().taxpayer;
    },
    get key() {
      return now().key;
    },
    get base() {
      return now().base;
    },
    get strictOrigin() {
      return now().strictOrigin;
    },
    recreate: (given) => {
      current = createWorld(given);
    },
  };
  currentWorlds.set(handle, now);
  return handle;
}

/** Options of {@link serveWorld}. */
export interface ServeWorldOptions extends WorldSandboxOptions {
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  /** Serve this sandbox instead of a new one (the sandbox options are then ignored). */
  sandbox?: Sandbox;
}

/** A world served on 127.0.0.1 over real sockets, on the system clock. */
export interface ServedWorld {
  sandbox: Sandbox;
  server: RunningServer;
  /** RFC of the first generated taxpayer. */
  taxpayer: string;
  key: string;
  /** The server's URL, e.g. `http://127.0.0.1:40123`. */
  base: string;
  /** Stops the server (and every open connection). */
  close(): Promise<void>;
}

/** Starts a sandbox (a new one with the world's defaults, or `options.sandbox`) on 127.0.0.1. */
export async function serveWorld(options: ServeWorldOptions = {}): Promise<ServedWorld> {
  const { port, sandbox: given, ...sandboxOptions } = options;
  const sandbox = given ?? createWorldSandbox(sandboxOptions);
  const server = await startSandboxServer(sandbox, port === undefined ? {} : { port });
  return { sandbox, server, taxpayer: sandbox.taxpayers()[0]!, key: sandbox.apiKey, base: server.url, close: () => server.close() };
}

/** Environment of a spawned run in `dir`: its config folder, the key, no CI, no NO_COLOR; `extra` wins. */
export function cliEnv(dir: TempDir, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { COLLECTIONS_CONFIG_DIR: dir.file('config'), COLLECTIONS_API_KEY: CANARY, CI: undefined, NO_COLOR: undefined, ...extra };
}

/** The outcome of an in-process run. */
export interface RunOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** stderr split into lines, the trailing empty one dropped. */
  lines: string[];
  t: TestContext;
  /** Requests the sandbox logged during the run (a served world's include other clients'; the log keeps the last 100 000). */
  requests: RequestLogEntry[];
  /** Requests to another origin (only a world with `strictOrigin` records them). */
  foreign: ForeignRequest[];
}

/** Options of {@link runInProcess}: the Context's (they override the world's) and these. */
export interface InProcessOptions extends TestContextOptions {
  /** Wraps the world's fetch (to observe requests, or to inject a response the sandbox cannot give). */
  wrapFetch?: (inner: FetchLike) => FetchLike;
  /** Called with the context before main() runs (e.g. to raise a signal later). */
  onContext?: (t: TestContext) => void;
  /**
   * How the run learns the base URL and key: `argv` (default) appends `--base-url` and `--api-key`,
   * `env` sets `COLLECTIONS_BASE_URL` and `COLLECTIONS_API_KEY` (under `options.env`), `none` runs
   * `args` and the env exactly as given.
   */
  connectVia?: 'argv' | 'env' | 'none';
  /** With `connectVia: 'argv'`, leave out `--api-key` (the test passes it another way, or not at all). */
  noKey?: boolean;
  /** The Context's rate budget (default the world's, {@link worldBudget}); another one acts out another process. */
  rateBudget?: RateBudget;
}

/**
 * Options of {@link worldContext}: the Context's (they override the world's), a fetch wrapper, and
 * the rate budget (default: the world's, one per world, so the clients of its Contexts share their
 * windows as those of one process do; give another one to act out another process).
 */
export type WorldContextOptions = Pick<InProcessOptions, keyof TestContextOptions | 'wrapFetch' | 'rateBudget'>;

const budgets = new WeakMap<object, RateBudget>();
/** The rate budget of a world (in memory: no file is shared), made on first use. */
function worldBudget(given: SandboxWorld | ServedWorld): RateBudget {
  const world = currentWorlds.get(given)?.() ?? given;
  let b = budgets.get(world);
  if (b === undefined) {
    b = createRateBudget();
    budgets.set(world, b);
  }
  return b;
}

/**
 * A captured Context in `dir` (cwd and config folder) wired to `world`: an in-process world
 * answers through the sandbox's fetch on the world's virtual clock (only the base URL's origin with
 * `strictOrigin`), a served one through the real fetch and the system clock. For runs below
 * `main()`, e.g. `runExport(plan, t.ctx, exportServices(plan, t.ctx))`; {@link runInProcess} uses it too.
 */
export function worldContext(
  world: SandboxWorld | ServedWorld,
  dir: TempDir,
  options: WorldContextOptions = {},
): { t: TestContext; foreign: ForeignRequest[] } {
  const served = 'server' in world;
  const inner = served ? undefined : createSandboxFetch(world.sandbox, world.strictOrigin ? { origin: world.base } : {});
  const base: FetchLike = inner ?? globalThis.fetch;
  const { wrapFetch, rateBudget, ...contextOptions } = options;
  const fetch = wrapFetch ? wrapFetch(base) : base;
  const clock = served ? systemClock : world.clock;
  const t = createTestContext({ clock, cwd: dir.path, configDir: dir.file('config'), ...contextOptions, fetch });
  t.ctx.rateBudget = rateBudget ?? worldBudget(world);
  return { t, foreign: inner?.foreignRequests ?? [] };
}

/**
 * Runs `collections ...args` in process through `main(argv, ctx)` against `world`, in `dir` (cwd
 * and config folder). An in-process world answers through the sandbox's fetch on the world's
 * virtual clock; a served one through the real fetch and the system clock.
 */
export async function runInProcess(
  world: SandboxWorld | ServedWorld,
  dir: TempDir,
  args: readonly string[],
  options: InProcessOptions = {},
): Promise<RunOutcome> {
  const via = options.connectVia ?? 'argv';
  const env = via === 'env' ? { COLLECTIONS_API_KEY: world.key, COLLECTIONS_BASE_URL: world.base, ...options.env } : options.env;
  const { t, foreign } = worldContext(world, dir, { ...options, env });
  options.onContext?.(t);
  const argv = via === 'argv' ? [...args, '--base-url', world.base, ...(options.noKey ? [] : ['--api-key', world.key])] : [...args];
  const before = world.sandbox.requests().length;
  const code = await main(argv, t.ctx);
  const stderr = t.stderr.text();
  return {
    code,
    stdout: t.stdout.text(),
    stderr,
    lines: stderr.split('\n').filter((l, i, a) => !(i === a.length - 1 && l === '')),
    t,
    requests: world.sandbox.requests().slice(before),
    foreign,
  };
}

/** Whether the canary key appears in none of the texts or file contents given. */
export function canaryFree(...texts: Array<string | Buffer>): boolean {
  return texts.every((t) => !t.toString().includes(CANARY));
}

/** The `id` of each item of an NDJSON text, in order (as strings). */
export function idsOfNdjson(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => String((JSON.parse(l) as { id: unknown }).id));
}

/**
 * Run options that raise SIGINT when the n-th request starts (the pages before it are written and
 * checkpointed), as a person pressing Ctrl-C mid-export would.
 */
export function interruptAt(n: number): InProcessOptions {
  return {
    onContext: (t) => {
      let calls = 0;
      const inner = t.ctx.fetch;
      t.ctx.fetch = async (input, init) => {
        if (++calls === n) t.raise('SIGINT');
        return inner(input, init);
      };
    },
  };
}
