/**
 * The fault table (README, "Test"; rows in scripts/faults-report.js): 5xx, network errors and unreadable bodies, in process (the
 * sandbox's fetch adapter acts out resets and refusals the way undici reports them; the real
 * sockets are in transport.e2e.test.ts). Backoff sleeps on the virtual clock; only the per-attempt
 * timeout of the hang row is a real (200 ms) timer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CANARY, idsOfNdjson, removeTempDirs } from '../helpers/world.js';
import { report, runScenario, type ScenarioOutcome } from './harness.js';
import { lostAndDuplicated } from './measures.js';

const CURSOR = ['--cursor', '--items-per-page', '10'];
const OFFSET = ['--items-per-page', '10', '--concurrency', '4'];

let clean: Record<'cursor' | 'offset', ScenarioOutcome>;
beforeAll(async () => {
  clean = { cursor: await runScenario({ args: CURSOR }), offset: await runScenario({ args: OFFSET }) };
  expect(idsOfNdjson(clean.cursor.stdout)).toHaveLength(95);
  expect(idsOfNdjson(clean.offset.stdout)).toHaveLength(95);
});
afterAll(removeTempDirs);

const argsOf = (mode: 'cursor' | 'offset') => (mode === 'cursor' ? CURSOR : OFFSET);

function figures(r: ScenarioOutcome, mode: 'cursor' | 'offset') {
  const { lost, duplicated } = lostAndDuplicated(idsOfNdjson(clean[mode].stdout), idsOfNdjson(r.stdout));
  return { lost, duplicated, early: 0, max429: 0, foreign: r.foreign.length, exit: r.code, identical: r.stdout === clean[mode].stdout };
}

/** The lines of the first `pages` pages of the clean output (10 items a page). */
function cleanPrefix(mode: 'cursor' | 'offset', pages: number): string {
  const lines = clean[mode].stdout.split('\n').slice(0, pages * 10);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

describe('500/502/503/504 now and then, connection reset, refused for 3 s', () => {
  const cases: Array<[string, string]> = [
    ['500 now and then', 'status status=500 p=0.3'],
    ['502 now and then', 'status status=502 p=0.3'],
    ['503 now and then, Retry-After 2', 'status status=503 p=0.3 retryAfter=2'],
    ['504 now and then, Retry-After HTTP-date', 'status status=504 p=0.3 retryAfter=http-date'],
    ['connection reset before headers', 'reset-before-headers p=0.3'],
    ['connection reset mid-body', 'reset-mid-body p=0.3'],
    // From the second request: a refusal before the API ever answered is a wrong URL, not retried (README, "Exit codes").
    ['connection refused for 3 s', 'refuse requests=2- untilMs=3000'],
  ];
  it.each(cases.flatMap(([name, spec]) => (['cursor', 'offset'] as const).map((mode) => [name, mode, spec] as const)))(
    '%s (%s): retried, output identical',
    async (name, mode, spec) => {
      const r = await runScenario({ args: [...argsOf(mode), '--retries', '8'], faults: `seed=3; ${spec}` });
      const injected = r.requests.filter((e) => e.faults.length > 0).length;
      const m = figures(r, mode);
      const row = report(
        {
          fault: '500/502/503/504 now and then, connection reset, refused for 3 s',
          mode: `${name}, ${mode}`,
          expected: 'retried; output identical',
          ...m,
          note: `${injected} faults injected`,
        },
        { exit0: m.exit === 0, identical: m.identical, injected: injected >= 1, noKeyInStderr: !r.stderr.includes(CANARY) },
      );
      expect(row.failed).toEqual([]);
    },
  );

  it.each([
    ['seconds', 'retryAfter=7'],
    ['an HTTP-date', 'retryAfter=http-date'],
  ])('waits at least a 503 Retry-After in %s before retrying', async (_name, ra) => {
    const r = await runScenario({ args: CURSOR, faults: `status status=503 ${ra} requests=2` });
    const i = r.responses.findIndex((res) => res.status === 503);
    const failed = r.responses[i]!;
    const due = /^\d+$/.test(failed.retryAfter!) ? failed.at + Number(failed.retryAfter) * 1000 : Date.parse(failed.retryAfter!);
    expect(due).toBeGreaterThan(failed.at);
    expect(r.responses[i + 1]!.at).toBeGreaterThanOrEqual(due);
    expect(r.stdout).toBe(clean.cursor.stdout);
  });

  it('gives up at once (exit 6) when a 503 Retry-After is longer than --max-wait', async () => {
    const r = await runScenario({ args: [...CURSOR, '--max-wait', '60'], faults: 'status status=503 retryAfter=3600 requests=2' });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/retry in 3600 s, longer than the longest wait allowed \(60 s\)/);
    expect(r.requests).toHaveLength(2);
    expect(r.elapsedMs).toBe(0);
  });
});

describe('one page always 503', () => {
  it.each(['cursor', 'offset'] as const)('%s: exit 6 after --retries; earlier pages kept in the checkpoint', async (mode) => {
    const r = await runScenario({ args: [...argsOf(mode), '--retries', '3'], outFile: 'out.ndjson', faults: 'status status=503 pages=4' });
    const target = join(r.dir, 'out.ndjson');
    const attempts = r.requests.filter((e) => e.status === 503).length;
    const checkpoint = JSON.parse(readFileSync(`${target}.checkpoint.json`, 'utf8')) as { items: number; bytes: number; next: string };
    const part = readFileSync(`${target}.part`);
    const kept = part.subarray(0, checkpoint.bytes).toString('utf8');
    const row = report(
      {
        fault: 'one page always 503',
        mode,
        expected: 'exit 6 after --retries; earlier pages in the checkpoint',
        lost: 0,
        duplicated: 0,
        early: 0,
        max429: 0,
        foreign: r.foreign.length,
        exit: r.code,
        note: `${attempts} attempts at page 4 (--retries 3); checkpoint ${checkpoint.items} items`,
      },
      {
        exit6: r.code === 6,
        attempts: attempts === 4,
        checkpoint: checkpoint.items === 30 && kept === cleanPrefix(mode, 3),
        resumable: new URL(checkpoint.next).origin === 'http://127.0.0.1:8080',
        noTarget: r.file === undefined,
        message: /HTTP 503.*after 3 retries/.test(r.stderr) && r.stderr.includes('--resume'),
      },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('truncated body, invalid JSON, HTML 200, headers never sent', () => {
  const cases: Array<[string, string, string[]]> = [
    ['truncated body', 'truncate pages=3 times=2', []],
    ['invalid JSON', 'invalid-json pages=3 times=2', []],
    ['HTML 200', 'html pages=3 times=2', []],
    ['headers never sent (--timeout 0.2)', 'hang pages=3 times=1', ['--timeout', '0.2']],
  ];
  it.each(cases.flatMap(([name, spec, extra]) => (['cursor', 'offset'] as const).map((mode) => [name, mode, spec, extra] as const)))(
    '%s (%s): retried, nothing from the bad page written',
    async (name, mode, spec, extra) => {
      const r = await runScenario({ args: [...argsOf(mode), ...extra], faults: spec });
      const m = figures(r, mode);
      const row = report(
        {
          fault: 'truncated body, invalid JSON, HTML 200, headers never sent, slow drip',
          mode: `${name}, ${mode}`,
          expected: 'retried; nothing from the bad page written',
          ...m,
        },
        { exit0: m.exit === 0, identical: m.identical, retried: r.requests.some((e) => e.faults.length > 0) },
      );
      expect(row.failed).toEqual([]);
    },
  );

  it.each([
    ['truncated body', 'truncate pages=3'],
    ['invalid JSON', 'invalid-json pages=3'],
    ['HTML 200', 'html pages=3'],
  ])('%s on every attempt: exit 6, stdout holds exactly the pages before it', async (name, spec) => {
    const r = await runScenario({ args: [...CURSOR, '--retries', '2'], faults: spec });
    const row = report(
      {
        fault: 'truncated body, invalid JSON, HTML 200, headers never sent, slow drip',
        mode: `${name} on every attempt, cursor`,
        expected: 'exit 6; nothing from the bad page written',
        lost: 0,
        duplicated: lostAndDuplicated([], idsOfNdjson(r.stdout)).duplicated,
        early: 0,
        max429: 0,
        foreign: 0,
        exit: r.code,
      },
      {
        exit6: r.code === 6,
        onlyEarlierPages: r.stdout === cleanPrefix('cursor', 2),
        attempts: r.requests.filter((e) => e.faults.length > 0).length === 3,
      },
    );
    expect(row.failed).toEqual([]);
  });
});
