/**
 * One rate budget per endpoint across taxpayers and processes: three taxpayers
 * exported in parallel by one process spend at most one 429 when the API counts per route, and use
 * each path's quota in parallel when it counts per path; two processes with the same key share
 * their reservations through the cache folder's file. Sandbox world, virtual clock.
 */
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planExport } from '../../src/export/plan/plan.js';
import type { ExportFlags } from '../../src/commands/flags.js';
import {
  addPathScope,
  cancelIn,
  createRateBudget,
  observeIn,
  recordOf,
  reserveIn,
  type ApiRecord,
  type QuotaStore,
  type RateBudget,
  type SharedQuota,
} from '../../src/rate/budget.js';
import { SHARED_QUOTA_FILE, createFileStore } from '../../src/rate/store-file.js';
import {
  type TestContext,
  BASE,
  CANARY,
  START,
  canaryFree,
  createWorld,
  idsOfNdjson,
  runInProcess,
  worldContext,
  type SandboxWorld,
  useTempDir,
} from '../helpers/world.js';
import { runExport } from '../../src/export/run/run.js';
import { exportServices } from '../../src/export/run/services.js';

import type { LimitScope } from '../../src/sandbox/types.js';

const LIMIT = 60;
const WINDOW_MS = 60_000;
/** Pages of each taxpayer: a little under two windows' worth of its own quota (the requests of one export fit in two windows). */
const PAGES = 2 * LIMIT - 5;
const PER_PAGE = 5;

const dir = useTempDir();

function world(limitScope: LimitScope): SandboxWorld {
  return createWorld({ limit: LIMIT, windowSeconds: WINDOW_MS / 1000, limitScope, sizes: { taxpayers: 3, invoicesPerTaxpayer: PAGES * PER_PAGE } });
}

function plan(w: SandboxWorld, taxpayer: string, flags: Partial<ExportFlags> = {}) {
  const settings = { apiKey: CANARY, baseUrl: new URL(BASE), defaults: {} };
  const full: ExportFlags = { taxpayer, cursor: true, itemsPerPage: PER_PAGE, quiet: true, progress: false, ...flags };
  return planExport({ command: 'invoices', options: full, settings, cwd: dir.path, resumeCommand: 'collections invoices' });
}

/**
 * Exports every taxpayer of `w` at once, each with its own client (and Context) on `budgetOf(i)`,
 * to its Context's stdout: no file I/O, whose real time would let the virtual clock run ahead of
 * one export while another opens its files.
 */
async function exportAll(w: SandboxWorld, budgetOf: (i: number) => RateBudget | undefined): Promise<number[]> {
  const taxpayers = w.sandbox.taxpayers();
  const outputs: TestContext[] = [];
  const results = await Promise.all(
    taxpayers.map((tp, i) => {
      const budget = budgetOf(i);
      const { t } = worldContext(w, dir, budget === undefined ? {} : { rateBudget: budget });
      outputs.push(t);
      const p = plan(w, tp);
      return runExport(p, t.ctx, exportServices(p, t.ctx));
    }),
  );
  taxpayers.forEach((tp, i) => expect(idsOfNdjson(outputs[i]!.stdout.text())).toEqual(w.sandbox.invoiceIds(tp)));
  return results.map((r) => r.requests);
}

const tooMany = (w: SandboxWorld): number => w.sandbox.stats().limitedWindows.reduce((n, lw) => n + lw.count, 0);

/** The file store's records in memory: budgets sharing one behave as processes sharing `rate-budget.json` (in tests). */
function createMemoryStore(): QuotaStore {
  const records = new Map<string, ApiRecord>();
  return {
    open(origin, keyHash): SharedQuota {
      const api = `${origin} ${keyHash}`;
      let record = records.get(api);
      if (record === undefined) {
        record = recordOf(undefined);
        records.set(api, record);
      }
      const r = record;
      return {
        reserve: (scope, now) => reserveIn(r, scope, now),
        observe: (scope, seen, ticket) => observeIn(r, scope, seen, ticket),
        cancel: (scope, ticket) => cancelIn(r, scope, ticket),
        learnPathScope: (route) => addPathScope(r, route),
        isPathScope: (route) => r.pathScope.includes(route),
      };
    },
  };
}

describe('one process, three taxpayers in parallel', () => {
  it('route scope: at most one 429 in total, the route paced as one window', async () => {
    const w = world('route');
    await exportAll(w, () => undefined);
    expect(tooMany(w)).toBeLessThanOrEqual(1);
    // 3 × ~116 requests through one window of 60: six windows, so at least five resets waited.
    expect(w.clock.now() - START).toBeGreaterThanOrEqual(5 * WINDOW_MS);
  });

  it('path scope: learns it from the headers and uses each path’s quota in parallel, near the minimum time', async () => {
    const w = world('path');
    const requests = await exportAll(w, () => undefined);
    for (const n of requests) expect(n).toBeGreaterThan(LIMIT);
    for (const n of requests) expect(n).toBeLessThanOrEqual(2 * LIMIT);
    expect(tooMany(w)).toBeLessThanOrEqual(1);
    // Each path needs two windows of its own: the minimum is one reset (60 s), six if sequential.
    expect(w.clock.now() - START).toBeLessThanOrEqual(1.2 * WINDOW_MS);
  });

  it('without a budget (each client alone) route scope costs 429s: what the budget saves', async () => {
    const w = world('route');
    const alone = (): RateBudget => createRateBudget();
    await exportAll(w, alone);
    expect(tooMany(w)).toBeGreaterThan(1);
  });
});

describe('the CLI, --taxpayer a,b,c --parallel 3 (one run, one budget)', () => {
  /** The most 2xx answers of the invoices route in one window (all paths together). */
  const busiestWindow = (w: SandboxWorld): number => {
    const perWindow = new Map<number, number>();
    for (const e of w.sandbox.requests())
      if (e.status === 200) perWindow.set(Math.floor(e.timeMs / WINDOW_MS), (perWindow.get(Math.floor(e.timeMs / WINDOW_MS)) ?? 0) + 1);
    return Math.max(...perWindow.values());
  };

  // The files' real I/O lets the virtual clock run ahead of a taxpayer still opening its file, so
  // the elapsed time is not asserted here (it is above, on stdout): how many answers one window held is.
  it.each([
    ['route', (n: number) => expect(n).toBeLessThanOrEqual(LIMIT)],
    ['path', (n: number) => expect(n).toBeGreaterThan(LIMIT)],
  ] as const)('%s scope: at most one 429; one window serves all paths only in path scope', async (limitScope, check) => {
    const w = world(limitScope);
    const taxpayers = w.sandbox.taxpayers();
    const args = [
      'invoices',
      '--taxpayer',
      taxpayers.join(','),
      '--parallel',
      '3',
      '--cursor',
      '--items-per-page',
      String(PER_PAGE),
      '--out',
      '{taxpayer}.ndjson',
    ];
    const r = await runInProcess(w, dir, args, { rateBudget: createRateBudget() });
    expect(r.code, r.stderr).toBe(0);
    for (const tp of taxpayers) expect(idsOfNdjson(dir.read(`${tp}.ndjson`).toString())).toEqual(w.sandbox.invoiceIds(tp));
    expect(tooMany(w)).toBeLessThanOrEqual(1);
    check(busiestWindow(w));
  });
});

/** A budget as another process would have: its own memory, the cache folder's file shared. */
function processBudget(cacheDir: string, troubles: string[] = []): RateBudget {
  return createRateBudget({ store: createFileStore({ cacheDir, onTrouble: (m) => troubles.push(m) }) });
}

describe('two processes with the same key and base URL', () => {
  it('spend at most one 429 between them through the shared file, which never holds the key', async () => {
    const w = world('route');
    const cache = dir.file('cache');
    const troubles: string[] = [];
    const budgets = [processBudget(cache, troubles), processBudget(cache, troubles)];
    await exportAll(w, (i) => budgets[i % 2]);
    expect(troubles).toEqual([]);
    expect(tooMany(w)).toBeLessThanOrEqual(1);
    const path = `${cache}/${SHARED_QUOTA_FILE}`;
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(CANARY);
    expect(Object.keys((JSON.parse(text) as { apis: object }).apis)).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:9 [0-9a-f]{64}$/)]);
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('learn per-path counting from each other’s records: two taxpayers in two processes use both paths’ quota at once', async () => {
    const w = createWorld({
      limit: LIMIT,
      windowSeconds: WINDOW_MS / 1000,
      limitScope: 'path',
      sizes: { taxpayers: 2, invoicesPerTaxpayer: PAGES * PER_PAGE },
    });
    const cache = dir.file('cache');
    const troubles: string[] = [];
    const budgets = [processBudget(cache, troubles), processBudget(cache, troubles)];
    await exportAll(w, (i) => budgets[i]);
    expect(troubles).toEqual([]);
    expect(tooMany(w)).toBeLessThanOrEqual(1);
    // Each process sees one path only: without the other's records they would share one window (three resets).
    expect(w.clock.now() - START).toBeLessThanOrEqual(1.2 * WINDOW_MS);
    const file = JSON.parse(readFileSync(`${cache}/${SHARED_QUOTA_FILE}`, 'utf8')) as { apis: Record<string, { pathScope: string[] }> };
    expect(Object.values(file.apis)[0]!.pathScope).toEqual(['/taxpayers/{taxpayerId}/invoices']);
  });

  it('without the shared file, two processes each spend 429s (the control)', async () => {
    const w = world('route');
    const budgets = [createRateBudget(), createRateBudget()];
    await exportAll(w, (i) => budgets[i % 2]);
    expect(tooMany(w)).toBeGreaterThan(1);
  });

  it('share through any store: two budgets on one memory store spend at most one 429 between them, as through the file', async () => {
    const w = world('route');
    const store = createMemoryStore();
    const budgets = [createRateBudget({ store }), createRateBudget({ store })];
    await exportAll(w, (i) => budgets[i % 2]);
    expect(tooMany(w)).toBeLessThanOrEqual(1);
  });
});

describe('a shared file that cannot be used', () => {
  it('never blocks an export: a held lock, then a corrupt file, each said once, the export whole', async () => {
    const w = createWorld({ limit: LIMIT, windowSeconds: WINDOW_MS / 1000, sizes: { taxpayers: 1, invoicesPerTaxpayer: 50 } });
    const cache = dir.file('cache');
    mkdirSync(`${cache}/${SHARED_QUOTA_FILE}.lock`, { recursive: true });
    // A holder that keeps its lock fresh: proper-lockfile takes over a lock whose mtime is older
    // than its stale bound (2 s), which a loaded machine reached before the export's first update.
    const fresh = new Date(Date.now() + 3_600_000);
    utimesSync(`${cache}/${SHARED_QUOTA_FILE}.lock`, fresh, fresh);
    writeFileSync(`${cache}/${SHARED_QUOTA_FILE}`, '{"apis": {"x": ');
    const troubles: string[] = [];
    const args = ['invoices', '--taxpayer', w.taxpayer, '--cursor', '--items-per-page', '10'];
    const locked = await runInProcess(w, dir, args, { rateBudget: processBudget(cache, troubles) });
    expect(locked.code, locked.stderr).toBe(0);
    expect(idsOfNdjson(locked.stdout)).toEqual(w.sandbox.invoiceIds(w.taxpayer));
    // Each trouble said once: the lock on every update, and the corrupt file read while it stayed locked.
    expect(troubles.sort()).toEqual([
      expect.stringMatching(/^cannot lock .*rate-budget\.json \(ELOCKED\); pacing alone$/),
      expect.stringMatching(/^cannot read .*rate-budget\.json \(not JSON\); pacing alone$/),
    ]);
    rmSync(`${cache}/${SHARED_QUOTA_FILE}.lock`, { recursive: true });
    troubles.length = 0;
    const corrupt = await runInProcess(w, dir, args, { rateBudget: processBudget(cache, troubles) });
    expect(corrupt.code, corrupt.stderr).toBe(0);
    expect(idsOfNdjson(corrupt.stdout)).toEqual(w.sandbox.invoiceIds(w.taxpayer));
    expect(troubles).toEqual([expect.stringMatching(/^cannot read .*rate-budget\.json \(not JSON\); pacing alone$/)]);
    expect(JSON.parse(readFileSync(`${cache}/${SHARED_QUOTA_FILE}`, 'utf8'))).toMatchObject({ version: 1 });
    expect(canaryFree(readFileSync(`${cache}/${SHARED_QUOTA_FILE}`), locked.stderr, corrupt.stderr)).toBe(true);
  });
});
