import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateExport, forecastQuota } from '../../src/commands/export/dry-run.js';
import { canaryFree, createWorld, removeTempDirs, runInProcess, START, tempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

/** Every file (not folder) under `root`, relative. */
function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  walk(root);
  return out;
}

describe('--dry-run', () => {
  it('sends exactly one light request, prints the plan on stdout, writes no file, masks the key', async () => {
    const world = createWorld({ limit: 100, sizes: { taxpayers: 1, invoicesPerTaxpayer: 2500 } });
    const dir = tempDir();
    const run = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'inv.csv', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.requests).toHaveLength(1);
    expect(run.requests[0]!.url).toContain('itemsPerPage=1');
    expect(run.requests[0]!.url).not.toContain('itemsPerPage=1000');
    const out = run.stdout;
    expect(out).toMatch(/^dry run: nothing was written; one request \(itemsPerPage=1\) was sent\n/);
    expect(out).toContain(`GET ${world.base}/taxpayers/${world.taxpayer}/invoices?itemsPerPage=1000`);
    expect(out).toContain(`X-Api-Key: ****${world.key.slice(-4)}`);
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
    expect(out).toMatch(/^mode: +offset \(4 pages in flight\)$/m);
    expect(out).toMatch(/^format: +csv$/m);
    expect(out).toContain(`output:     ${join(dir.path, 'inv.csv')}\n`);
    expect(out).toContain(`checkpoint: ${join(dir.path, 'inv.csv.checkpoint.json')}\n`);
    expect(out).toContain(`lock:       ${join(dir.path, 'inv.csv.lock')}\n`);
    expect(out).toMatch(/^items: +2,500$/m);
    expect(out).toMatch(/^pages: +3 of 1,000 items$/m);
    expect(out).toMatch(/^quota: +100 requests, 99 left, resets in 1m$/m);
    expect(out).toMatch(/^estimate: +no rate-limit wait: the 3 requests fit in the 99 left$/m);
    expect(filesUnder(dir.path)).toEqual([]);
  });

  it('says unknown where the API tells nothing, and names no checkpoint or lock for stdout', async () => {
    const world = createWorld();
    const dir = tempDir();
    const run = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.requests).toHaveLength(1);
    expect(run.stdout).toContain('X-Pagination-Style: cursor');
    expect(run.stdout).toMatch(/^output: +stdout$/m);
    expect(run.stdout).toMatch(/^checkpoint: +none \(stdout\)$/m);
    expect(run.stdout).toMatch(/^estimate: +unknown$/m);
    expect(filesUnder(dir.path)).toEqual([]);
  });

  it('--help says it spends one request of the quota', async () => {
    const world = createWorld();
    const dir = tempDir();
    const run = await runInProcess(world, dir, ['invoices', '--help'], { connectVia: 'none' });
    expect(run.stdout.replace(/\s+/g, ' ')).toContain('spends one request of the quota (itemsPerPage=1)');
  });

  it('an existing config folder gets no file either', async () => {
    const world = createWorld();
    const dir = tempDir();
    mkdirSync(dir.file('config'));
    const run = await runInProcess(world, dir, ['entities', '--out', 'e.ndjson', '--dry-run']);
    expect(run.code).toBe(0);
    expect(filesUnder(dir.path)).toEqual([]);
  });
});

describe('the estimate of --dry-run does not depend on when it runs', () => {
  it('five dry runs one second apart (3 requests per 5 s, 30 pages): the windows needed each time, never a made-up duration', async () => {
    // Issue 27: the estimate took the time to the reset for the window's length (40, 20, 50, 30 and 10 s for a 47 s export).
    const world = createWorld({ limit: 3, windowSeconds: 5, sizes: { taxpayers: 1, invoicesPerTaxpayer: 3000 } });
    const dir = tempDir();
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const run = await runInProcess(world, dir, [
        'invoices',
        '--taxpayer',
        world.taxpayer,
        '--items-per-page',
        '100',
        '--out',
        'inv.csv',
        '--dry-run',
      ]);
      expect(run.code, run.stderr).toBe(0);
      seen.push(...run.stdout.split('\n').filter((l) => /^(quota|estimate):/.test(l)));
      await world.clock.sleep(1_000);
    }
    // Each light request spends one of the 3; the fourth waits for the next window (at 5 s).
    const left = [2, 1, 0, 2, 1];
    const resetIn = [5, 4, 3, 5, 4];
    expect(seen).toEqual(
      left.flatMap((l, i) => [
        `quota:      3 requests, ${l} left, resets in ${resetIn[i]}s`,
        `estimate:   30 requests: ${l} now, ${30 - l} in 10 more windows of 3 after the reset in ${resetIn[i]}s; no time given (no response tells a window's length)`,
      ]),
    );
  });

  it('one more window: at least the time to the reset', async () => {
    const world = createWorld({ limit: 3, windowSeconds: 5, start: START + 1_000, sizes: { taxpayers: 1, invoicesPerTaxpayer: 3000 } });
    const dir = tempDir();
    const run = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'inv.csv', '--dry-run']);
    expect(run.stdout).toMatch(/^estimate: +at least 4s: 3 requests: 2 now, 1 after the reset in 4s$/m);
  });
});

describe('--dry-run of a run with many taxpayers', () => {
  it('plans every taxpayer: one light request each, a line with its first request and file, the total; writes nothing', async () => {
    const world = createWorld({ limit: 100, sizes: { taxpayers: 3, invoicesPerTaxpayer: 1500 } });
    const rfcs = world.sandbox.taxpayers();
    const dir = tempDir();
    const list = join(dir.path, 'list');
    mkdirSync(list);
    writeFileSync(join(list, 'clients.txt'), `${rfcs[0]}\n# paused\n${rfcs[1]}\nXAXX010101000\n`);
    const args = ['invoices', '--taxpayers-file', 'list/clients.txt', '--out', 'out/{taxpayer}/inv.ndjson', '--dry-run'];
    const run = await runInProcess(world, dir, args);
    expect(run.code).toBe(4);
    expect(run.requests).toHaveLength(3);
    expect(run.requests.every((r) => r.url.includes('itemsPerPage=1&') || r.url.endsWith('itemsPerPage=1'))).toBe(true);
    const out = run.stdout.split('\n');
    expect(out[0]).toBe('dry run: nothing was written; 3 requests (itemsPerPage=1) were sent, one per taxpayer');
    for (const [i, rfc] of [rfcs[0]!, rfcs[1]!].entries()) {
      const url = `${world.base}/taxpayers/${encodeURIComponent(rfc)}/invoices?itemsPerPage=1000`;
      expect(out[1 + i]).toBe(`${rfc}: GET ${url} → ${join(dir.path, 'out', rfc, 'inv.ndjson')} (1,500 items, 2 pages)`);
    }
    expect(out[3]).toMatch(/^XAXX010101000: GET .+ \(not found, exit 4\)$/);
    expect(run.stdout).toMatch(/^taxpayers: +3 \(1 at a time\)$/m);
    expect(run.stdout).toMatch(/^total: +3,000 items, 4 pages$/m);
    expect(run.stdout).toMatch(/^quota: +100 requests, 98 left, resets in 1m$/m);
    expect(run.stdout).toMatch(/^estimate: +no rate-limit wait: the 4 requests fit in the 98 left$/m);
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
    expect(filesUnder(dir.path).filter((f) => !f.startsWith('config'))).toEqual([join('list', 'clients.txt')]);
  });
});

describe('estimateExport', () => {
  it('the pages from the first one, stopped at --max-items', () => {
    expect(estimateExport({ totalItems: 2500 }, 1000, 1, undefined)).toEqual({ items: 2500, pages: 3, requests: 3 });
    expect(estimateExport({ totalItems: 2500 }, 1000, 2, 1000)).toEqual({ items: 1000, pages: 1, requests: 1 });
  });
  it('by cursor, one request more: the empty page that ends the chain (not when --max-items stops first)', () => {
    expect(estimateExport({ totalItems: 2500 }, 1000, 1, undefined, true)).toEqual({ items: 2500, pages: 3, requests: 4 });
    expect(estimateExport({ totalItems: 2500 }, 1000, 1, 2000, true)).toEqual({ items: 2000, pages: 2, requests: 2 });
  });
  it('knows nothing without a total', () => {
    expect(estimateExport({ limit: 10, remaining: 5 }, 1000, 1, undefined)).toEqual({});
  });
});

describe('forecastQuota', () => {
  it.each([
    ['fits in what is left: no wait', 30, { limit: 60, remaining: 57, resetInMs: 3_000 }, { now: 30, windows: 0, limit: 60, resetInMs: 3_000 }],
    ['the rest after the reset', 5, { limit: 3, remaining: 2, resetInMs: 4_000 }, { now: 2, windows: 1, limit: 3, resetInMs: 4_000 }],
    ['windows of the limit after the reset', 30, { limit: 3, remaining: 2, resetInMs: 4_000 }, { now: 2, windows: 10, limit: 3, resetInMs: 4_000 }],
    ['no reset sent', 30, { limit: 3, remaining: 0 }, { now: 0, windows: 10, limit: 3 }],
  ])('%s', (_name, requests, probe, expected) => {
    expect(forecastQuota(requests, probe)).toEqual(expected);
  });
  it('nothing without the limit and what is left', () => {
    expect(forecastQuota(30, { limit: 3 })).toBeUndefined();
    expect(forecastQuota(30, { remaining: 3 })).toBeUndefined();
  });
});
