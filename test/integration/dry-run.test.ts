import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateExport } from '../../src/commands/dry-run.js';
import { canaryFree, createWorld, removeTempDirs, runInProcess, tempDir } from '../helpers/world.js';

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
    expect(out).toContain(`GET ${world.base}/taxpayers/${world.taxpayer}/invoices?itemsPerPage=1000&page=1`);
    expect(out).toContain(`X-Api-Key: ****${world.key.slice(-4)}`);
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
    expect(out).toMatch(/^mode: +offset \(4 pages in flight\)$/m);
    expect(out).toMatch(/^format: +csv$/m);
    expect(out).toContain(`output:     ${join(dir.path, 'inv.csv')}\n`);
    expect(out).toContain(`checkpoint: ${join(dir.path, 'inv.csv.checkpoint.json')}\n`);
    expect(out).toContain(`lock:       ${join(dir.path, 'inv.csv.lock')}\n`);
    expect(out).toMatch(/^items: +2,500$/m);
    expect(out).toMatch(/^pages: +3 of 1,000 items$/m);
    expect(out).toMatch(/^quota: +100 requests per /m);
    expect(out).toMatch(/^estimate: +.+ at the current quota$/m);
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

describe('estimateExport', () => {
  it('pages / limit per window × window', () => {
    expect(estimateExport({ totalItems: 2500, limit: 100, windowMs: 60_000 }, 1000, 1, undefined)).toEqual({
      items: 2500,
      pages: 3,
      durationMs: 1800,
    });
  });
  it('counts from the first page and stops at --max-items', () => {
    expect(estimateExport({ totalItems: 2500 }, 1000, 2, 1000)).toEqual({ items: 1000, pages: 1 });
  });
  it('knows nothing without a total', () => {
    expect(estimateExport({ limit: 10, windowMs: 1000 }, 1000, 1, undefined)).toEqual({});
  });
});
