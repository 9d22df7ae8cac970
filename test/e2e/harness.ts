/**
 * Shared set-up of the export end-to-end and integration tests: a temp folder (cwd and config
 * folder, so no real config is touched), an in-process run of `main()` against an in-process
 * sandbox on a shared virtual clock, and small readers of the files an export leaves behind.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { FetchLike } from '../../src/context.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/app.js';
import { createSandboxFetch } from '../../src/sandbox/fetch.js';
import { createVirtualClock, type VirtualClock } from '../../src/time/clock.js';
import { createTestContext, type TestContext, type TestContextOptions } from '../helpers/context.js';

/** A key that must never appear in any output, file or message. */
export const CANARY = 'canary-KEY-7f3a-do-not-print';
/** Base URL of the in-process sandbox (loopback, so no plain-http warning). */
export const BASE = 'http://127.0.0.1:9';
/** Virtual start time of every in-process run. */
export const START = Date.UTC(2024, 3, 16, 18, 0, 0);

/** A temp folder, removed by {@link TempDir.remove}. */
export interface TempDir {
  path: string;
  /** Absolute path of a file in it. */
  file(name: string): string;
  /** Whether `name` exists in it. */
  has(name: string): boolean;
  /** Contents of `name`, as bytes. */
  read(name: string): Buffer;
  remove(): void;
}

/** Creates a temp folder. */
export function tempDir(prefix = 'collections-e2e-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    has: (name) => existsSync(join(path, name)),
    read: (name) => readFileSync(join(path, name)),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** A sandbox on a virtual clock shared with the runs that use it. */
export interface SandboxWorld {
  sandbox: Sandbox;
  clock: VirtualClock;
  /** RFC of the first generated taxpayer. */
  taxpayer: string;
}

/** Creates an in-process sandbox keyed with {@link CANARY} on a fresh virtual clock. */
export function createWorld(options: SandboxOptions = {}): SandboxWorld {
  const clock = createVirtualClock(START);
  const sandbox = createSandbox({ apiKey: CANARY, limit: 0, sizes: { taxpayers: 1, invoicesPerTaxpayer: 60 }, clock, ...options });
  return { sandbox, clock, taxpayer: sandbox.taxpayers()[0]! };
}

/** The outcome of an in-process run. */
export interface RunOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** stderr split into lines, the trailing empty one dropped. */
  lines: string[];
  t: TestContext;
}

/** Options of {@link runInProcess}. */
export interface InProcessOptions extends TestContextOptions {
  /** Wraps the sandbox's fetch (to inject a response the sandbox cannot give). */
  wrapFetch?: (inner: FetchLike) => FetchLike;
  /** Called with the context before main() runs (e.g. to raise a signal later). */
  onContext?: (t: TestContext) => void;
  /** Leave out `--api-key` (the test passes it another way, or not at all). */
  noKey?: boolean;
}

/**
 * Runs `collections ...args --base-url BASE --api-key CANARY` in process against `world`, in `dir`
 * (cwd and config folder).
 */
export async function runInProcess(world: SandboxWorld, dir: TempDir, args: readonly string[], options: InProcessOptions = {}): Promise<RunOutcome> {
  const inner = createSandboxFetch(world.sandbox);
  const fetch = options.wrapFetch ? options.wrapFetch(inner) : inner;
  const t = createTestContext({ clock: world.clock, cwd: dir.path, configDir: dir.file('config'), ...options, fetch });
  options.onContext?.(t);
  const argv = [...args, '--base-url', BASE, ...(options.noKey ? [] : ['--api-key', CANARY])];
  const code = await main(argv, t.ctx);
  const stderr = t.stderr.text();
  return { code, stdout: t.stdout.text(), stderr, lines: stderr.split('\n').filter((l, i, a) => !(i === a.length - 1 && l === '')), t };
}

/** Fails when the canary key appears in any text or file given. */
export function canaryFree(...texts: Array<string | Buffer>): boolean {
  return texts.every((t) => !t.toString().includes(CANARY));
}
