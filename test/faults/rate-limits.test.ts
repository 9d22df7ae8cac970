/**
 * The fault table (README, "Test"; rows in scripts/faults-report.js): the rate-limit rows. Each runs the whole CLI in process against
 * the sandbox on one virtual clock (a 2-hour wait takes no real time) and compares with the
 * fault-free run of the same seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../../src/sandbox/app.js';
import { MAX_RATE_LIMITED_ATTEMPTS } from '../../src/http/client.js';
import { CANARY, idsOfNdjson, removeTempDirs } from '../helpers/world.js';
import { ORIGIN, report, runScenario, type ScenarioOptions, type ScenarioOutcome } from './harness.js';
import { lateAfterReset, lostAndDuplicated, max429PerWindow, requestsBeforeReset, streakGaps } from './measures.js';

const CURSOR = ['--cursor', '--items-per-page', '10'];
const OFFSET = ['--items-per-page', '10', '--concurrency', '4'];
const LIMIT = 3;
const WINDOW = 10;
const COMPETITOR = 'competitor=1';

/** Another client on the same key: spends what is left of the current window (marked so metrics skip it). */
async function spendWindow(sandbox: Sandbox, taxpayer: string): Promise<void> {
  for (let i = 0; i <= LIMIT; i++) {
    const r = await sandbox.reply({
      method: 'GET',
      url: `${ORIGIN}/taxpayers/${taxpayer}/invoices?itemsPerPage=1&${COMPETITOR}`,
      header: (n) => (n === 'x-api-key' ? CANARY : null),
    });
    if (r.status !== 200 || r.headers['X-RateLimit-Remaining'] === '0') return;
  }
}

/** The export's own requests (the competitor's are left out). */
const own = (r: ScenarioOutcome) => r.requests.filter((e) => !e.url.includes(COMPETITOR));

const limited = (extra: Partial<ScenarioOptions> = {}): ScenarioOptions => ({
  sandbox: { limit: LIMIT, windowSeconds: WINDOW },
  before: ({ sandbox }) => spendWindow(sandbox, sandbox.taxpayers()[0]!),
  ...extra,
});

let cleanCursor: ScenarioOutcome;
let cleanOffset: ScenarioOutcome;
beforeAll(async () => {
  cleanCursor = await runScenario({ args: CURSOR });
  cleanOffset = await runScenario({ args: OFFSET });
  expect(cleanCursor.code).toBe(0);
  expect(idsOfNdjson(cleanCursor.stdout)).toHaveLength(95);
});
afterAll(removeTempDirs);

/** The common comparison with a clean run; returns the figures. */
function compare(r: ScenarioOutcome, clean: ScenarioOutcome, windowSeconds = WINDOW) {
  const log = own(r);
  const { lost, duplicated } = lostAndDuplicated(idsOfNdjson(clean.stdout), idsOfNdjson(r.stdout));
  return {
    lost,
    duplicated,
    early: requestsBeforeReset(log, windowSeconds),
    max429: max429PerWindow(log, windowSeconds),
    foreign: r.foreign.length,
    exit: r.code,
    identical: r.stdout === clean.stdout,
  };
}

describe('limit reached; 429 with Reset and Date', () => {
  it.each([
    ['cursor', CURSOR, () => cleanCursor, {}],
    ['offset, concurrency 4', OFFSET, () => cleanOffset, {}],
    [
      'offset, concurrency 4, another client spends each window',
      OFFSET,
      () => cleanOffset,
      {
        beforeRequest: async ({ sandbox, n }: { sandbox: Sandbox; n: number }) =>
          n % 4 === 0 ? spendWindow(sandbox, sandbox.taxpayers()[0]!) : undefined,
      },
    ],
  ] as const)('%s: at most one 429 per window, none before the reset, output identical', async (mode, args, clean, extra) => {
    const r = await runScenario(limited({ args: [...args], ...extra }));
    const m = compare(r, clean());
    const row = report(
      { fault: 'limit reached; 429 with Reset and Date', mode, expected: '≤1 429/window; no request before Reset; identical', ...m },
      { exit0: m.exit === 0, identical: m.identical, max429: m.max429 <= 1, early: m.early === 0, some429: m.max429 === 1 },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('client clock 5 min fast or 10 min slow', () => {
  it.each([
    ['client clock 5 min fast', 300_000, ''],
    ['client clock 10 min slow', -600_000, ''],
    ['server clock 5 min slow (Date and Reset shifted, windows not)', 0, 'clock-offset offsetMs=-300000'],
    ['server clock 10 min fast (Date and Reset shifted, windows not)', 0, 'clock-offset offsetMs=600000'],
  ])('%s: waits end within 1.5 s after the reset, never before', async (mode, skew, faults) => {
    const r = await runScenario(
      limited({
        args: CURSOR,
        clientSkewMs: skew,
        ...(faults ? { faults } : {}),
        beforeRequest: async ({ sandbox, n }) => (n % 5 === 0 ? spendWindow(sandbox, sandbox.taxpayers()[0]!) : undefined),
      }),
    );
    const m = compare(r, cleanCursor);
    const late = lateAfterReset(own(r), WINDOW, LIMIT);
    const worst = Math.max(...late);
    const row = report(
      {
        fault: 'client clock 5 min fast, or 10 min slow',
        mode,
        expected: '≤1 429/window; wait within ±1.5 s; identical',
        ...m,
        note: `${late.length} waits, latest ${worst} ms after the reset`,
      },
      {
        exit0: m.exit === 0,
        identical: m.identical,
        max429: m.max429 <= 1,
        early: m.early === 0,
        waited: late.length >= 3,
        precise: late.every((ms) => ms >= 0 && ms <= 1500),
      },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('Remaining: 0 on a 200', () => {
  it.each([
    ['cursor', CURSOR, () => cleanCursor],
    ['offset, concurrency 4', OFFSET, () => cleanOffset],
  ] as const)('%s: zero 429s; the next request waits for the reset', async (mode, args, clean) => {
    const r = await runScenario({ args: [...args], sandbox: { limit: 100, windowSeconds: WINDOW }, faults: 'remaining-zero' });
    const m = compare(r, clean());
    const early = requestsBeforeReset(own(r), WINDOW, { remainingZero: true });
    const row = report(
      { fault: '`Remaining: 0` on a 200', mode, expected: 'zero 429s', ...m, early },
      { exit0: m.exit === 0, identical: m.identical, zero429: m.max429 === 0, early: early === 0 },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('Retry-After seconds or HTTP-date, no Reset', () => {
  it.each([
    ['seconds', 'retry-after'],
    ['seconds, longer than the window (15 s)', 'retry-after seconds=15'],
    ['HTTP-date', 'retry-after format=http-date'],
    ['HTTP-date, 15 s', 'retry-after format=http-date seconds=15'],
  ])('%s: waits at least that long', async (mode, faults) => {
    const r = await runScenario(limited({ args: CURSOR, faults }));
    const m = compare(r, cleanCursor);
    let shortest = Infinity;
    let checked = 0;
    r.responses.forEach((res, i) => {
      if (res.status !== 429) return;
      expect(res.reset).toBeNull();
      const ra = res.retryAfter!;
      const due = /^\d+$/.test(ra) ? res.at + Number(ra) * 1000 : Date.parse(ra);
      const next = r.responses[i + 1];
      if (next === undefined) return;
      checked++;
      shortest = Math.min(shortest, next.at - due);
    });
    const row = report(
      {
        fault: '`Retry-After` seconds or HTTP-date, no Reset',
        mode,
        expected: 'waits at least that long',
        ...m,
        early: requestsBeforeReset(own(r), WINDOW),
        note: `next request ≥ ${shortest} ms after Retry-After`,
      },
      { exit0: m.exit === 0, identical: m.identical, had429: checked >= 1, waitedEnough: shortest >= 0 },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('Reset 0, in the past, garbage, in milliseconds, 2 hours away', () => {
  it.each([
    ['Reset 0', 'zero'],
    ['Reset in the past', 'past'],
    ['Reset garbage', 'garbage'],
  ])('%s: 1 s floor and exponential growth, then complete', async (mode, format) => {
    const windowSeconds = 5;
    const r = await runScenario({
      ...limited({ args: CURSOR, faults: `reset-format format=${format}` }),
      sandbox: { limit: LIMIT, windowSeconds },
    });
    const m = compare(r, cleanCursor, windowSeconds);
    const streaks = streakGaps(own(r));
    const growth = streaks.every((gaps) => gaps.every((g, i) => g >= 1000 * 2 ** i));
    const row = report(
      {
        fault: 'Reset 0, in the past, garbage, in milliseconds, 2 hours away',
        mode,
        expected: '1 s floor and growth',
        ...m,
        early: null,
        note: `429 streaks retried after ${streaks.map((s) => s.map((g) => `${g / 1000} s`).join(', ')).join(' | ')}`,
      },
      { exit0: m.exit === 0, identical: m.identical, floorAndGrowth: growth, streaks: streaks.length >= 1 },
    );
    expect(row.failed).toEqual([]);
  });

  it.each([
    ['Reset in milliseconds', 'ms'],
    ['Reset as ISO date', 'iso'],
  ])('%s: understood like epoch seconds', async (mode, format) => {
    const r = await runScenario(limited({ args: CURSOR, faults: `reset-format format=${format}` }));
    const m = compare(r, cleanCursor);
    const row = report(
      { fault: 'Reset 0, in the past, garbage, in milliseconds, 2 hours away', mode, expected: 'ms understood', ...m },
      { exit0: m.exit === 0, identical: m.identical, max429: m.max429 <= 1, early: m.early === 0 },
    );
    expect(row.failed).toEqual([]);
  });

  it('Reset 2 hours away with --max-wait 60: exit 5 at once, checkpoint kept with the pages before', async () => {
    const r = await runScenario({
      args: [...CURSOR, '--max-wait', '60'],
      outFile: 'out.ndjson',
      sandbox: { limit: LIMIT, windowSeconds: WINDOW },
      faults: 'reset-format format=far',
    });
    const target = join(r.dir, 'out.ndjson');
    const checkpoint = JSON.parse(readFileSync(`${target}.checkpoint.json`, 'utf8')) as { items: number; pages: number; bytes: number; next: string };
    const part = readFileSync(`${target}.part`);
    const m = compare(r, cleanCursor);
    const row = report(
      {
        fault: 'Reset 0, in the past, garbage, in milliseconds, 2 hours away',
        mode: 'Reset 2 hours away, --max-wait 60',
        expected: 'exit 5 with checkpoint',
        ...m,
        lost: 0,
        note: `checkpoint: ${checkpoint.items} items, ${checkpoint.pages} pages`,
      },
      {
        exit5: r.code === 5,
        noWait: r.elapsedMs < 1000,
        checkpoint: checkpoint.items === 30 && checkpoint.pages === 3 && part.length === checkpoint.bytes,
        pagesKept: part.equals(Buffer.from(cleanCursor.stdout).subarray(0, part.length)) && idsOfNdjson(part.toString('utf8')).length === 30,
        noTarget: r.file === undefined,
        hint: r.stderr.includes('--resume'),
        noKey: !r.stderr.includes(CANARY) && !readFileSync(`${target}.checkpoint.json`, 'utf8').includes(CANARY),
      },
    );
    expect(row.failed).toEqual([]);
  });

  it('Reset 2 hours away without --max-wait: waits it out (timers clamped), then completes', async () => {
    const r = await runScenario({ args: CURSOR, sandbox: { limit: LIMIT, windowSeconds: WINDOW }, faults: 'reset-format format=far' });
    const m = compare(r, cleanCursor);
    const row = report(
      {
        fault: 'Reset 0, in the past, garbage, in milliseconds, 2 hours away',
        mode: 'Reset 2 hours away, no --max-wait',
        expected: 'waits, no early retry',
        ...m,
        note: `virtual time ${Math.round(r.elapsedMs / 3_600_000)} h`,
      },
      { exit0: m.exit === 0, identical: m.identical, zero429: m.max429 === 0, waitedHours: r.elapsedMs >= 3 * 7_200_000 },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('a 429 forever', () => {
  it.each([
    ['stdout', undefined],
    ['--out file', 'out.ndjson'],
  ])('%s: bounded attempts with growing waits, then exit 5', async (mode, outFile) => {
    const r = await runScenario({ args: CURSOR, faults: 'permanent-429 requests=2-', ...(outFile ? { outFile } : {}) });
    const attempts = r.requests.filter((e) => e.status === 429).length;
    const gaps = streakGaps(r.requests)[0] ?? [];
    const row = report(
      {
        fault: 'a 429 forever',
        mode,
        expected: 'bounded attempts, then exit 5',
        lost: 0,
        duplicated: 0,
        early: null,
        max429: max429PerWindow(r.requests, 60),
        foreign: r.foreign.length,
        exit: r.code,
        note: `${attempts} attempts, ${gaps.map((g) => `${Math.round(g / 1000)} s`).join(', ')} apart`,
      },
      {
        exit5: r.code === 5,
        bounded: attempts === MAX_RATE_LIMITED_ATTEMPTS,
        neverFast: gaps.every((g, i) => g >= 1000 * 2 ** i),
        firstPageKept: outFile === undefined ? r.stdout === cleanCursor.stdout.split('\n').slice(0, 10).join('\n') + '\n' : r.file === undefined,
      },
    );
    expect(row.failed).toEqual([]);
  });
});
