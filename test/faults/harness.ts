/**
 * The fault suite's harness: runs a real export (the whole CLI, `main(argv, ctx)`) against an
 * in-process sandbox on a shared virtual clock, or the built CLI against `startSandboxServer` on
 * 127.0.0.1, and measures the outcome against a fault-free run of the same seed: items lost and
 * duplicated (by `id`), requests sent before a reset by the server's clock, 429s per window,
 * requests that reached another origin, exit code, and byte identity of the output.
 *
 * Each measured scenario is also recorded as one JSON line in `$FAULTS_RESULTS` (when set) for
 * `npm run faults` (test/faults/report.js), which prints the table and writes results.md.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { createSandbox, type RequestLogEntry, type Sandbox, type SandboxOptions } from '../../src/sandbox/app.js';
import { createSandboxFetch, type ForeignRequest } from '../../src/sandbox/fetch.js';
import type { FaultConfig, FaultRule } from '../../src/sandbox/faults.js';
import { createVirtualClock, type Clock, type VirtualClock } from '../../src/time/clock.js';
import { createTestContext, seededRandom } from '../helpers/context.js';

/** A canary key: it must appear nowhere but in the `X-Api-Key` header sent to the sandbox. */
export const KEY = 'canary-fault-key-7f3a';
/** The in-process sandbox's origin (the fetch adapter records requests to any other one). */
export const ORIGIN = 'http://127.0.0.1:8080';
/** Start of the virtual clock: 18:00:07.250 UTC, mid-second and mid-window on purpose. */
export const T0 = Date.UTC(2024, 3, 16, 18, 0, 7, 250);
/** Collection sizes of the suite: small, so a run takes milliseconds. */
export const SIZES = { taxpayers: 2, invoicesPerTaxpayer: 95, entities: 45, events: 10, paymentsPerTaxpayer: 10, lineItemsPerInvoice: 2 };

/** Options of {@link runInProcess}. */
export interface InProcessOptions {
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

/** What one run did. */
export interface RunOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** The output file's bytes (`outFile` runs), or undefined when it does not exist. */
  file: string | undefined;
  /** The run's folder (removed by {@link cleanup}). */
  dir: string;
  sandbox: Sandbox;
  clock: VirtualClock;
  /** Requests the sandbox answered. */
  requests: RequestLogEntry[];
  /** Requests that went to another origin. */
  foreign: ForeignRequest[];
  /** Virtual time the run took, ms. */
  elapsedMs: number;
  /** Responses the client received, in order (network failures are absent). */
  responses: SeenResponse[];
  taxpayer: string;
}

const dirs: string[] = [];

/** Removes the folders of every run so far. */
export function cleanup(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A fresh temp folder, removed by {@link cleanup}. */
export function tempDir(prefix = 'collections-faults-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

let probeTaxpayer: string | undefined;
/** The first taxpayer of the suite's sandbox (seed 7, {@link SIZES}). */
export function firstTaxpayer(): string {
  probeTaxpayer ??= createSandbox({ seed: 7, sizes: SIZES }).taxpayers()[0]!;
  return probeTaxpayer;
}

/** A client clock `skewMs` ahead of `clock` (same monotonic time and sleeps). */
function skewed(clock: Clock, skewMs: number): Clock {
  return { now: () => clock.now() + skewMs, monotonic: () => clock.monotonic(), sleep: (ms, s) => clock.sleep(ms, s) };
}

/**
 * Runs one export in process: a fresh sandbox (seed 7, {@link SIZES}) on a virtual clock shared
 * with the client, the whole CLI through `main`, config in a temp folder.
 */
export async function runInProcess(options: InProcessOptions = {}): Promise<RunOutcome> {
  const clock = createVirtualClock(T0);
  const extra = options.sandboxFor?.(firstTaxpayer()) ?? {};
  const sandbox = createSandbox({ apiKey: KEY, seed: 7, clock, sizes: SIZES, limit: 0, ...options.sandbox, ...extra });
  const fetch = createSandboxFetch(sandbox, { origin: ORIGIN });
  const dir = tempDir();
  const taxpayer = sandbox.taxpayers()[0]!;
  const responses: SeenResponse[] = [];
  let n = 0;
  const observed = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    await options.beforeRequest?.({ sandbox, clock, url: String(input), n: ++n });
    const res = await fetch(input, init);
    const h = res.headers;
    responses.push({
      at: clock.now(),
      url: String(input),
      status: res.status,
      retryAfter: h.get('retry-after'),
      remaining: h.get('x-ratelimit-remaining'),
      reset: h.get('x-ratelimit-reset'),
    });
    return res;
  };
  await options.before?.({ dir, sandbox, clock });
  if (options.faults !== undefined) sandbox.setFaults(options.faults);
  const t = createTestContext({
    fetch: observed,
    clock: options.clientSkewMs ? skewed(clock, options.clientSkewMs) : clock,
    configDir: join(dir, 'config'),
    env: options.env ?? {},
    cwd: dir,
    random: seededRandom(11),
  });
  const command = options.command ?? 'invoices';
  const out = options.outFile === undefined ? [] : ['--out', join(dir, options.outFile)];
  const argv = options.argv
    ? options.argv({ taxpayer, dir })
    : [
        command,
        ...(command === 'entities' ? [] : ['--taxpayer', taxpayer]),
        '--api-key',
        KEY,
        '--base-url',
        ORIGIN,
        '--quiet',
        ...out,
        ...(options.args ?? []),
      ];
  const start = clock.monotonic();
  const code = await main(argv, t.ctx);
  let file: string | undefined;
  if (options.outFile !== undefined) {
    try {
      file = readFileSync(join(dir, options.outFile), 'utf8');
    } catch {
      file = undefined;
    }
  }
  return {
    code,
    stdout: t.stdout.text(),
    stderr: t.stderr.text(),
    file,
    dir,
    sandbox,
    clock,
    requests: sandbox.requests(),
    foreign: fetch.foreignRequests,
    elapsedMs: clock.monotonic() - start,
    responses,
    taxpayer,
  };
}

/** The `id` of each item of an NDJSON text, in order. */
export function idsOfNdjson(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => String((JSON.parse(l) as { id: unknown }).id));
}

/** Ids expected but absent, and ids present more than once. */
export function lostAndDuplicated(expected: readonly string[], got: readonly string[]): { lost: number; duplicated: number } {
  const counts = new Map<string, number>();
  for (const id of got) counts.set(id, (counts.get(id) ?? 0) + 1);
  let duplicated = 0;
  for (const n of counts.values()) if (n > 1) duplicated += n - 1;
  const lost = expected.filter((id) => !counts.has(id)).length;
  return { lost, duplicated };
}

/**
 * Requests sent before a reset, by the server's clock: every request to an endpoint that the
 * server received after it had answered a 429 (or a success with `Remaining: 0`) on that endpoint
 * and before the end of that window. Windows are fixed, `[floor(t / w) · w, … + w)` ms
 * (src/sandbox/limiter.ts). `retryAfterMs`, when given, extends the embargo after each 429 to at
 * least that long (a `Retry-After` without Reset).
 */
export function requestsBeforeReset(
  log: readonly RequestLogEntry[],
  windowSeconds: number,
  options: { remainingZero?: boolean; retryAfterMs?: number } = {},
): number {
  const w = windowSeconds * 1000;
  const embargo = new Map<string, number>();
  let early = 0;
  for (const e of log) {
    const key = e.endpoint ?? e.url;
    const until = embargo.get(key);
    if (until !== undefined && e.timeMs < until) early++;
    const closes = e.status === 429 || (options.remainingZero === true && e.status === 200);
    if (closes) {
      let end = (Math.floor(e.timeMs / w) + 1) * w;
      if (e.status === 429 && options.retryAfterMs !== undefined) end = Math.max(end, e.timeMs + options.retryAfterMs);
      embargo.set(key, Math.max(until ?? 0, end));
    }
  }
  return early;
}

/** The largest number of 429s in one window of one endpoint (0 when none). */
export function max429PerWindow(log: readonly RequestLogEntry[], windowSeconds: number): number {
  const w = windowSeconds * 1000;
  const per = new Map<string, number>();
  for (const e of log) {
    if (e.status !== 429) continue;
    const k = `${e.endpoint}\u0000${Math.floor(e.timeMs / w)}`;
    per.set(k, (per.get(k) ?? 0) + 1);
  }
  return Math.max(0, ...per.values());
}

/** One row of the report. */
export interface ResultRow {
  /** The reliability.md row it belongs to. */
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
export function record(row: ResultRow): void {
  const file = process.env.FAULTS_RESULTS;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/**
 * Compares a run with the clean run of the same seed and records the row. `pass` is computed from
 * `checks` (each a named boolean), so the report says exactly what failed; the caller still
 * asserts each check with `expect` for a readable failure.
 */
export function report(
  row: Omit<ResultRow, 'pass'>,
  checks: Record<string, boolean>,
): ResultRow & { failed: string[] } {
  const failed = Object.entries(checks)
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  const full: ResultRow = { ...row, pass: failed.length === 0, ...(failed.length ? { note: `${row.note ? `${row.note}; ` : ''}failed: ${failed.join(', ')}` } : {}) };
  record(full);
  return { ...full, failed };
}

/**
 * How late each request that followed an exhausted window came, ms after that window's reset (by
 * the server's clock): for consecutive requests to one endpoint where the first one's window was
 * spent (`limit` requests or a 429 in it) and the second one falls in a later window. Negative
 * values would be requests before the reset (they are counted by {@link requestsBeforeReset}).
 */
export function lateAfterReset(log: readonly RequestLogEntry[], windowSeconds: number, limit: number): number[] {
  const w = windowSeconds * 1000;
  const out: number[] = [];
  const last = new Map<string, { window: number; count: number; limited: boolean }>();
  for (const e of log) {
    const key = e.endpoint ?? e.url;
    const window = Math.floor(e.timeMs / w);
    const prev = last.get(key);
    if (prev && window > prev.window && (prev.count >= limit || prev.limited)) out.push(e.timeMs - (prev.window + 1) * w);
    const cur = prev && prev.window === window ? prev : { window, count: 0, limited: false };
    cur.count++;
    if (e.status === 429) cur.limited = true;
    last.set(key, cur);
  }
  return out;
}

/**
 * The gaps between consecutive 429s of one streak (429s with no success between them), ms, per
 * streak: `[[g1, g2, …], …]`, where g1 is the gap between the first 429 and the next request.
 */
export function streakGaps(log: readonly RequestLogEntry[]): number[][] {
  const streaks: number[][] = [];
  let current: number[] | undefined;
  let prev: RequestLogEntry | undefined;
  for (const e of log) {
    if (prev?.status === 429) {
      current ??= [];
      current.push(e.timeMs - prev.timeMs);
    }
    if (e.status !== 429 && current) {
      streaks.push(current);
      current = undefined;
    }
    prev = e;
  }
  if (current) streaks.push(current);
  return streaks;
}
