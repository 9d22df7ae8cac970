/**
 * The fault suite's harness: each scenario builds a fresh in-process world (test/helpers/world.ts:
 * a sandbox on a virtual clock shared with the client, a temp folder, the whole CLI through
 * `main(argv, ctx)`) with a fault injected, observes every response the client receives, and
 * records one row comparing it with a fault-free run of the same seed (the figures come from
 * ./measures.ts). The spawned rows (transport.e2e.test.ts) use the served world instead.
 *
 * Each measured scenario is also recorded as one JSON line in `$FAULTS_RESULTS` (when set) for
 * `npm run faults` (scripts/faults-report.js), which prints the table and writes results.md. The
 * hostile suite (test/hostile) records what its scenarios observed with {@link recordHostile}.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FetchLike } from '../../src/context.js';
import { createSandbox, type RequestLogEntry, type Sandbox, type SandboxOptions } from '../../src/sandbox/app.js';
import type { ForeignRequest } from '../../src/sandbox/fetch.js';
import type { FaultConfig, FaultRule } from '../../src/sandbox/faults.js';
import type { Clock } from '../../src/time/clock.js';
import type { VirtualClock } from '../helpers/virtual-clock.js';
import { expect } from 'vitest';
import { seededRandom, CANARY, createWorld, runInProcess, tempDir } from '../helpers/world.js';

/** The in-process sandbox's origin (requests to any other one are recorded, never answered). */
export const ORIGIN = 'http://127.0.0.1:8080';
/** Start of the virtual clock: 18:00:07.250 UTC, mid-second and mid-window on purpose. */
const T0 = Date.UTC(2024, 3, 16, 18, 0, 7, 250);
/** Collection sizes of the suite: small, so a run takes milliseconds. */
export const SIZES = { taxpayers: 2, invoicesPerTaxpayer: 95, entities: 45, events: 10, paymentsPerTaxpayer: 10, lineItemsPerInvoice: 2 };

/** Options of {@link runScenario}. */
export interface ScenarioOptions {
  /** Export arguments after the command (the key, base URL and taxpayer are added). */
  args?: string[];
  /** Command (default `invoices`, for the first taxpayer). */
  command?: 'invoices' | 'entities' | 'payments';
  /** Sandbox options (limit 0 = no limit unless given). */
  sandbox?: SandboxOptions;
  /** Faults from the start. */
  faults?: FaultConfig | FaultRule[] | string;
  /** How far the client's clock is ahead of the server's, ms (negative: behind). */
  clientSkewMs?: number;
  /** Write to a file in a fresh folder (`--out <dir>/out.<ext>`) instead of stdout. */
  outFile?: string;
  /** Runs before the export (e.g. to pre-write yesterday's file or a checkpoint). */
  before?: (ctx: { dir: string; sandbox: Sandbox; clock: VirtualClock }) => void | Promise<void>;
  /** Replaces the whole argv (no defaults added): for usage-error rows. */
  argv?: (defaults: { taxpayer: string; dir: string }) => string[];
  /** Environment of the run. */
  env?: Record<string, string>;
  /** Sandbox options that need the taxpayer's id (e.g. automatic mutations of its invoices). */
  sandboxFor?: (taxpayer: string) => SandboxOptions;
  /** Called before each request of the export reaches the sandbox (e.g. another client spending quota). */
  beforeRequest?: (ctx: { sandbox: Sandbox; clock: VirtualClock; url: string; n: number }) => void | Promise<void>;
}

/** A response as the client received it. */
export interface SeenResponse {
  /** Server clock when it arrived, epoch ms. */
  at: number;
  url: string;
  status: number;
  retryAfter: string | null;
  remaining: string | null;
  reset: string | null;
}

/** What one scenario did. */
export interface ScenarioOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** The output file's text (`outFile` runs), or undefined when it does not exist. */
  file: string | undefined;
  /** The run's folder (removed by `removeTempDirs`). */
  dir: string;
  sandbox: Sandbox;
  clock: VirtualClock;
  /** Every request the scenario's sandbox answered, those of `before` included. */
  requests: RequestLogEntry[];
  /** Requests that went to another origin. */
  foreign: ForeignRequest[];
  /** Virtual time the run took, ms. */
  elapsedMs: number;
  /** Responses the client received, in order (network failures are absent). */
  responses: SeenResponse[];
  taxpayer: string;
}

let probeTaxpayer: string | undefined;
/** The first taxpayer of the suite's sandbox (seed 7, {@link SIZES}). */
function firstTaxpayer(): string {
  probeTaxpayer ??= createSandbox({ seed: 7, sizes: SIZES }).taxpayers()[0]!;
  return probeTaxpayer;
}

/** A client clock `skewMs` ahead of `clock` (same monotonic time and sleeps). */
function skewed(clock: Clock, skewMs: number): Clock {
  return { now: () => clock.now() + skewMs, monotonic: () => clock.monotonic(), sleep: (ms, s) => clock.sleep(ms, s) };
}

/** Wraps `inner` to call `beforeRequest` first and to note every response in `seen`. */
function observing(inner: FetchLike, world: { sandbox: Sandbox; clock: VirtualClock }, options: ScenarioOptions, seen: SeenResponse[]): FetchLike {
  let n = 0;
  return async (input, init) => {
    await options.beforeRequest?.({ sandbox: world.sandbox, clock: world.clock, url: String(input), n: ++n });
    const res = await inner(input, init);
    const h = res.headers;
    seen.push({
      at: world.clock.now(),
      url: String(input),
      status: res.status,
      retryAfter: h.get('retry-after'),
      remaining: h.get('x-ratelimit-remaining'),
      reset: h.get('x-ratelimit-reset'),
    });
    return res;
  };
}

/** The argv of a scenario: `options.argv`, or the export of `options.command` with the defaults. */
function argvOf(options: ScenarioOptions, taxpayer: string, dir: string): string[] {
  if (options.argv) return options.argv({ taxpayer, dir });
  const command = options.command ?? 'invoices';
  const out = options.outFile === undefined ? [] : ['--out', join(dir, options.outFile)];
  const owner = command === 'entities' ? [] : ['--taxpayer', taxpayer];
  return [command, ...owner, '--api-key', CANARY, '--base-url', ORIGIN, '--quiet', ...out, ...(options.args ?? [])];
}

/**
 * Runs one export in process: a fresh world (seed 7, {@link SIZES}, no rate limit unless
 * `options.sandbox` sets one, virtual clock from {@link T0}, only {@link ORIGIN} answered) and
 * config in a fresh temp folder; the client's random is seeded (11) and its env is `options.env`.
 */
export async function runScenario(options: ScenarioOptions = {}): Promise<ScenarioOutcome> {
  const extra = options.sandboxFor?.(firstTaxpayer()) ?? {};
  const world = createWorld({ start: T0, base: ORIGIN, strictOrigin: true, seed: 7, sizes: SIZES, ...options.sandbox, ...extra });
  const { sandbox, clock, taxpayer } = world;
  const dir = tempDir('collections-faults-');
  const responses: SeenResponse[] = [];
  await options.before?.({ dir: dir.path, sandbox, clock });
  if (options.faults !== undefined) sandbox.setFaults(options.faults);
  const argv = argvOf(options, taxpayer, dir.path);
  const start = clock.monotonic();
  const r = await runInProcess(world, dir, argv, {
    connectVia: 'none',
    wrapFetch: (inner) => observing(inner, world, options, responses),
    clock: options.clientSkewMs ? skewed(clock, options.clientSkewMs) : clock,
    env: options.env ?? {},
    random: seededRandom(11),
  });
  const file = options.outFile !== undefined && dir.has(options.outFile) ? dir.read(options.outFile).toString('utf8') : undefined;
  return {
    code: r.code,
    stdout: r.stdout,
    stderr: r.stderr,
    file,
    dir: dir.path,
    sandbox,
    clock,
    requests: sandbox.requests(),
    foreign: r.foreign,
    elapsedMs: clock.monotonic() - start,
    responses,
    taxpayer,
  };
}

/** One row of the report. */
export interface ResultRow {
  /** The row of the fault table it belongs to (README, "Test"; the rows are listed in scripts/faults-report.js). */
  fault: string;
  /** The variant, e.g. `cursor, in-process` or `offset, e2e`. */
  mode: string;
  expected: string;
  lost: number;
  duplicated: number;
  /** Requests sent before a reset by the server's clock; null when the server announced no usable reset. */
  early: number | null;
  /** Largest count of 429s in one window. */
  max429: number;
  /** Requests that reached another origin. */
  foreign: number;
  exit: number;
  /** Whether the row's own checks held. */
  pass: boolean;
  /** Anything else worth a column (e.g. a measured wait). */
  note?: string;
}

/** Appends a row to `$FAULTS_RESULTS` (a JSON-lines file the report reads); no-op without it. */
function record(row: ResultRow): void {
  const file = process.env.FAULTS_RESULTS;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/**
 * Compares a run with the clean run of the same seed and records the row. `pass` is computed from
 * `checks` (each a named boolean), so the report says exactly what failed; the caller still
 * asserts each check with `expect` for a readable failure.
 */
export function report(row: Omit<ResultRow, 'pass'>, checks: Record<string, boolean>): ResultRow & { failed: string[] } {
  const failed = Object.entries(checks)
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  const full: ResultRow = {
    ...row,
    pass: failed.length === 0,
    ...(failed.length ? { note: `${row.note ? `${row.note}; ` : ''}failed: ${failed.join(', ')}` } : {}),
  };
  record(full);
  return { ...full, failed };
}

/** What a hostile scenario observed (test/hostile): each field is shown as is in its column of the report. */
export interface HostileObservation {
  /** Exit code of the run (or of the last run, when the scenario runs several). */
  exit?: number;
  /** The one line the tool printed on stderr (terminal escapes already made inert by the tool). */
  message?: string;
  /** What happened to the files around the output, e.g. `untouched` or `target untouched`. */
  files?: string;
  /** The output: `complete`, `absent`, `kept as it was`… */
  output?: string;
  /** Peak memory where the scenario measured it, e.g. `peak RSS 80 MiB (bound 256 MiB)`. */
  memory?: string;
}

/**
 * Appends what the running hostile test observed to `$FAULTS_RESULTS` (no-op without it), tagged
 * with the test's file and full name (vitest's `currentTestName`, describe titles joined by ` > `).
 * The row passes or fails with the test itself (scripts/faults-report.js reads vitest's verdict),
 * so a call never decides a result; call it after the run, before or after the assertions. Temp
 * folders in `message` are shown as `<tmp>`.
 */
export function recordHostile(observed: HostileObservation): void {
  const file = process.env.FAULTS_RESULTS;
  if (!file) return;
  const { currentTestName, testPath } = expect.getState();
  // Temp folders have random names: shown as <tmp> so that results.md does not change from run to run.
  const message = observed.message?.replace(/\/\S*?collections-[\w-]*?-[A-Za-z0-9]{6}(?=\/)/g, '<tmp>');
  const row = { kind: 'hostile', test: currentTestName ?? '', file: testPath ?? '', ...observed, ...(message === undefined ? {} : { message }) };
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}
