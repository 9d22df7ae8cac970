/**
 * `--log-format json` from real in-process exports: every stderr line is one JSON object with
 * `event` and an ISO `time`; a run with rate-limit waits and retries (sandbox faults) gives start,
 * page, wait, retry and summary events with their fields; a failing run (404, exit 4) gives one
 * `error` event with its code and exit code, never the key.
 */
import { describe, expect, it } from 'vitest';
import { CANARY, canaryFree, createWorld, runInProcess, START, useTempDir } from '../helpers/world.js';

const dir = useTempDir();

type Event = Record<string, unknown> & { event: string; time: string };

/** Every stderr line parsed; the test fails on a line that is not a JSON object with event and time. */
function events(lines: readonly string[]): Event[] {
  return lines.map((line) => {
    const parsed = JSON.parse(line) as Event;
    expect(typeof parsed.event).toBe('string');
    expect(new Date(parsed.time).toISOString()).toBe(parsed.time);
    return parsed;
  });
}

describe('--log-format json', () => {
  it('a run with rate-limit waits and retries: start, page, wait, retry and summary events', async () => {
    // 3 requests a minute; page 2 answers 503 twice first.
    const world = createWorld({ limit: 3, windowSeconds: 60, faults: [{ kind: 'status', status: 503, pages: 2, times: 2 }] });
    const args = ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '9', '--out', 'x.ndjson', '--log-format', 'json'];
    // A terminal: JSON lines still, and no spinner.
    const r = await runInProcess(world, dir, args, { stderrIsTTY: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\x1b');
    const all = events(r.lines);
    expect(all[0]).toEqual({
      event: 'start',
      time: new Date(START).toISOString(),
      command: 'invoices',
      endpoint: '/taxpayers/{taxpayerId}/invoices',
      mode: 'cursor',
      format: 'ndjson',
      destination: dir.file('x.ndjson'),
    });
    // 7 pages of 9 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on).
    const pages = all.filter((e) => e.event === 'page');
    expect(pages).toHaveLength(8);
    expect(pages.at(-1)).toMatchObject({ items: 60, pages: 8, totalItems: null });
    const waits = all.filter((e) => e.event === 'wait');
    expect(waits.length).toBeGreaterThanOrEqual(2);
    for (const w of waits) {
      expect(typeof w.reason).toBe('string');
      expect(typeof w.ms).toBe('number');
      expect(Date.parse(w.until as string)).toBe(Date.parse(w.time) + (w.ms as number));
    }
    const retries = all.filter((e) => e.event === 'retry');
    expect(retries.map((e) => e.attempt)).toEqual([1, 2]);
    expect(typeof retries[0]!.delayMs).toBe('number');
    expect(retries[0]!.reason).toContain('503');
    const summary = all.at(-1)!;
    expect(summary).toMatchObject({
      event: 'summary',
      items: 60,
      pages: 8,
      requests: 10,
      waits: waits.length,
      waitMs: waits.reduce((a, w) => a + (w.ms as number), 0),
      destination: dir.file('x.ndjson'),
    });
    expect(summary.elapsedMs).toBeGreaterThanOrEqual(summary.waitMs as number);
    expect(canaryFree(r.stderr)).toBe(true);
  });

  it('a failing run (404): one error event with the E_ code and exit code 4, no key', async () => {
    const world = createWorld();
    const r = await runInProcess(
      world,
      dir,
      ['invoices', '--taxpayer', 'NOPE010101AAA', '--out', 'x.ndjson', '--log-format=json', '--api-key', CANARY],
      {
        noKey: true,
      },
    );
    expect(r.code).toBe(4);
    const all = events(r.lines);
    expect(all.map((e) => e.event)).toEqual(['start', 'error']);
    expect(all[1]).toMatchObject({ code: 'E_NOT_FOUND', exitCode: 4 });
    expect(all[1]!.message).toMatch(/^not found.*HTTP 404/);
    expect(canaryFree(r.stderr)).toBe(true);
  });

  it('text stays the default: human lines, no JSON', async () => {
    const world = createWorld({ limit: 100 });
    const r = await runInProcess(world, dir, ['entities', '--out', 'x.csv', '--items-per-page', '5', '--max-items', '5']);
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: 5 items to \S+x\.csv in /)]);
  });
});
