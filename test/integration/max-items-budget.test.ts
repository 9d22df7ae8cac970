/**
 * `--max-items` spends only the requests it needs, and the shared rate budget holds no phantom
 * reservations (docs/rate-limits.md, "Rate limits, retries and safety"): many short exports in a row, each a
 * new process sharing the cache folder's `rate-budget.json`, on the sandbox's virtual clock.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRateBudget, type RateBudget } from '../../src/rate/budget.js';
import { SHARED_QUOTA_FILE, createFileStore } from '../../src/rate/store-file.js';
import type { SharedWindow } from '../../src/rate/budget.js';
import { START, createWorld, idsOfNdjson, runInProcess, type SandboxWorld, useTempDir } from '../helpers/world.js';

const dir = useTempDir();

/** A budget as a new process would have: its own memory, the cache folder's file shared. */
function processBudget(cacheDir: string, troubles: string[]): RateBudget {
  return createRateBudget({ store: createFileStore({ cacheDir, onTrouble: (m) => troubles.push(m) }) });
}

const tooMany = (w: SandboxWorld): number => w.sandbox.stats().limitedWindows.reduce((n, lw) => n + lw.count, 0);

/** The windows of the shared file (one API). */
function sharedWindows(cache: string): Record<string, SharedWindow> {
  const file = JSON.parse(readFileSync(`${cache}/${SHARED_QUOTA_FILE}`, 'utf8')) as {
    apis: Record<string, { windows: Record<string, SharedWindow> }>;
  };
  return Object.values(file.apis)[0]!.windows;
}

describe('--max-items in offset mode, many runs sharing one quota', () => {
  it('12 runs of 2 pages each under 30 a minute: 24 requests, no wait, no 429', async () => {
    const w = createWorld({ limit: 30, windowSeconds: 60, sizes: { taxpayers: 1, invoicesPerTaxpayer: 600 } });
    const cache = dir.file('cache');
    const troubles: string[] = [];
    const args = ['invoices', '--taxpayer', w.taxpayer, '--items-per-page', '100', '--max-items', '150'];
    for (let run = 1; run <= 12; run++) {
      const r = await runInProcess(w, dir, args, { rateBudget: processBudget(cache, troubles) });
      expect(r.code, r.stderr).toBe(0);
      expect(idsOfNdjson(r.stdout)).toEqual(w.sandbox.invoiceIds(w.taxpayer).slice(0, 150));
      expect(r.requests.map((q) => new URL(q.url, 'http://x').searchParams.get('page'))).toEqual([null, '2']);
      expect(r.stderr).toContain('no rate-limit waits');
    }
    expect(troubles).toEqual([]);
    expect(w.sandbox.requests()).toHaveLength(24);
    expect(tooMany(w)).toBe(0);
    expect(w.clock.now() - START).toBeLessThan(1000);
  });

  it('21 runs in a row under 60 a minute: the shared file holds no reservation that was not sent, and no run waits', async () => {
    const w = createWorld({ limit: 60, windowSeconds: 60, sizes: { taxpayers: 1, invoicesPerTaxpayer: 600 } });
    const cache = dir.file('cache');
    const troubles: string[] = [];
    const args = ['invoices', '--taxpayer', w.taxpayer, '--items-per-page', '100', '--max-items', '150'];
    for (let run = 1; run <= 21; run++) {
      const r = await runInProcess(w, dir, args, { rateBudget: processBudget(cache, troubles) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('no rate-limit waits');
      const windows = Object.values(sharedWindows(cache));
      expect(windows).toHaveLength(1);
      // Reserved == sent: every request of the window so far was answered 200.
      expect(windows[0]!.reserved).toBe(w.sandbox.requests().length);
    }
    expect(troubles).toEqual([]);
    expect(w.sandbox.requests()).toHaveLength(42);
    expect(tooMany(w)).toBe(0);
    expect(w.clock.now() - START).toBeLessThan(1000);
  });
});

describe('--max-items asks only for what it needs', () => {
  const query = (url: string): URLSearchParams => new URL(url, 'http://x').searchParams;

  it('--max-items 2 asks for one page of 2 items', async () => {
    const w = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 60 } });
    const r = await runInProcess(w, dir, ['invoices', '--taxpayer', w.taxpayer, '--max-items', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(idsOfNdjson(r.stdout)).toEqual(w.sandbox.invoiceIds(w.taxpayer).slice(0, 2));
    expect(r.requests.map((q) => query(q.url).get('itemsPerPage'))).toEqual(['2']);
  });

  it.each([
    ['offset, 8 pages in flight', ['--concurrency', '8']],
    ['cursor', ['--cursor']],
  ])('%s: pages of 10, --max-items 35: the 4 pages holding them and not one more', async (_mode, flags) => {
    const w = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 200 } });
    const r = await runInProcess(w, dir, ['invoices', '--taxpayer', w.taxpayer, '--items-per-page', '10', '--max-items', '35', ...flags]);
    expect(r.code, r.stderr).toBe(0);
    expect(idsOfNdjson(r.stdout)).toEqual(w.sandbox.invoiceIds(w.taxpayer).slice(0, 35));
    expect(r.requests).toHaveLength(4);
  });
});
