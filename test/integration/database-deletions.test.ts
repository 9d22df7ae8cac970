/**
 * `--incremental` into a database follows deletions (docs/databases.md, "Deletions"), against a real
 * PostgreSQL server and a real DuckDB file, in process against the sandbox with `deletions` on a
 * virtual clock: after each of 10 simulated nights the table equals the source exactly, for one
 * extra request (the delete events) per taxpayer and night; a watermark older than the events'
 * 7 days makes one full refresh with `--prune`; a key without access to the events gets a note.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { usePostgres } from '../helpers/postgres.js';
import { createWorld, interruptAt, removeTempDirs, runInProcess, type RunOutcome, type SandboxWorld, useTempDir } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A night: what the churn changes in 40 minutes of the sandbox clock (about 13 deletions of each taxpayer's invoices). */
const NIGHT = 40 * MINUTE;
const ENV = { COLLECTIONS_CHECKPOINT_MS: '0' };

const dir = useTempDir();

const world = (options: { deletions?: boolean; churn?: number } = {}): SandboxWorld =>
  createWorld({ churn: options.churn ?? 1, deletions: options.deletions ?? true, sizes: { taxpayers: 2, invoicesPerTaxpayer: 600, entities: 12 } });

const path = (rfc: string): string => `/taxpayers/${rfc}/invoices`;
const exportArgs = (w: SandboxWorld, rfc: string, out: string, ...extra: string[]): string[] => [
  'invoices',
  '--taxpayer',
  rfc,
  '--items-per-page',
  '100',
  '--out',
  out,
  '--no-progress',
  ...extra,
];
const run = (w: SandboxWorld, args: string[], options: Parameters<typeof runInProcess>[3] = {}): Promise<RunOutcome> =>
  runInProcess(w, dir, args, { ...options, env: { ...ENV, ...options.env } });

/** The rows of one source: id → item (parsed). */
async function rowsOf(db: TestDatabase, source: string, table = 'invoices'): Promise<Map<string, unknown>> {
  const rows = await db.rows(`SELECT id, ${db.itemText} AS item FROM ${table} WHERE source = $1`, [source]);
  return new Map(rows.map((r) => [r.id!, JSON.parse(r.item!) as unknown]));
}

/** The sandbox's current items of a path: id → item. */
function sourceOf(w: SandboxWorld, p: string): Map<string, unknown> {
  return new Map((w.sandbox.items(p) as Array<{ id: string }>).map((i) => [i.id, i]));
}

const eventsRequests = (r: RunOutcome): number => r.requests.filter((q) => q.url.startsWith('/events')).length;

describe.each(['postgres', 'duckdb'] as const)('--out %s', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });

  it('10 nights of inserts, updates and deletions: after each the table equals the source, for one request of delete events per taxpayer; --prune costs every page', async () => {
    const w = world();
    // The same sandbox (same seed and churn), mirrored by a nightly full run with --prune instead.
    const p = world();
    const rfcs = w.sandbox.taxpayers();
    for (const rfc of rfcs) {
      expect((await run(w, exportArgs(w, rfc, db.out, '--incremental'))).code).toBe(0);
      expect((await run(p, exportArgs(p, rfc, db.out, '--table', 'pruned', '--prune'))).code).toBe(0);
    }
    const figures: Array<{ night: number; items: number; events: number; deleted: number; prune: number }> = [];
    for (let night = 1; night <= 10; night++) {
      w.clock.advance(NIGHT);
      p.clock.advance(NIGHT);
      const tally = { night, items: 0, events: 0, deleted: 0, prune: 0 };
      for (const rfc of rfcs) {
        const before = await rowsOf(db, path(rfc));
        const r = await run(w, exportArgs(w, rfc, db.out, '--incremental'));
        expect(r.code, r.stderr).toBe(0);
        expect(eventsRequests(r)).toBe(1);
        const event = r.requests.find((q) => q.url.startsWith('/events'))!;
        expect(decodeURIComponent(event.url)).toMatch(
          new RegExp(`type=invoice\\.deleted&taxpayer\\.id=${rfc}&createdAt\\[after\\]=\\S+\\+00:00&order\\[createdAt\\]=asc`),
        );
        const source = sourceOf(w, path(rfc));
        const table = await rowsOf(db, path(rfc));
        expect([...table.keys()].sort()).toEqual([...source.keys()].sort());
        for (const [id, item] of source) expect(table.get(id)).toEqual(item);
        const deleted = [...before.keys()].filter((id) => !source.has(id)).length;
        expect(r.stderr).toContain(`, ${deleted} deleted)`);
        const [log] = await db.rows('SELECT rows_deleted FROM collections_runs WHERE source = $1 ORDER BY run_id DESC LIMIT 1', [path(rfc)]);
        expect(log!.rows_deleted).toBe(String(deleted));
        const pruned = await run(p, exportArgs(p, rfc, db.out, '--table', 'pruned', '--prune'));
        expect(pruned.code).toBe(0);
        expect([...(await rowsOf(db, path(rfc), 'pruned')).keys()].sort()).toEqual([...source.keys()].sort());
        // Every page of the source (offset pages: the total says which is the last).
        expect(pruned.requests).toHaveLength(Math.ceil(source.size / 100));
        tally.items += r.requests.length - 1;
        tally.events += 1;
        tally.deleted += deleted;
        tally.prune += pruned.requests.length;
      }
      figures.push(tally);
    }
    expect(figures.reduce((n, f) => n + f.deleted, 0)).toBeGreaterThan(50);
    // The figures of test/bench/results.md ("Deletions over 10 nights").
    if (process.env.COLLECTIONS_FIGURES === '1') {
      const lines = figures.map((f) => `| ${f.night} | ${f.items} | ${f.items + f.events} | ${f.deleted} | ${f.prune} |`);
      process.stderr.write(`${kind}\n| night | --incremental, items only | with deletions | rows deleted | nightly --prune |\n${lines.join('\n')}\n`);
    }
  }, 300_000);

  it('a delete event deletes the row whichever source wrote it, by data.object or resource; a row newer than its deletion (re-created) stays', async () => {
    const w = world({ churn: 0 });
    const rfc = w.sandbox.taxpayers()[0]!;
    expect((await run(w, exportArgs(w, rfc, db.out, '--incremental'))).code).toBe(0);
    // The same invoices through the taxpayer's entity: a second source of the same rows (collections_members).
    const entity = (w.sandbox.items('/entities') as Array<{ id: string; taxpayer: { id: string } }>).find((e) => e.taxpayer.id === rfc)!;
    const byEntity = await run(w, ['get', `/entities/${entity.id}/invoices`, '--out', db.out, '--table', 'invoices', '--no-progress']);
    expect(byEntity.code, byEntity.stderr).toBe(0);
    const [k1, k2, k3, k4] = [...sourceOf(w, path(rfc)).keys()];
    const [stored] = await db.rows(`SELECT ${db.itemText} AS item FROM invoices WHERE id = $1`, [k2!]);
    const row = JSON.parse(stored!.item!) as { updatedAt: string };
    w.clock.advance(MINUTE);
    const now = new Date(w.clock.now()).toISOString();
    const events = [
      { id: k1, createdAt: now, object: true },
      // Deleted before its last update: it was re-created since, and re-extracted.
      { id: k2, createdAt: new Date(Date.parse(row.updatedAt) - DAY).toISOString(), object: true },
      // The service's zone-less dates are UTC.
      { id: k3, createdAt: now.replace('T', ' ').replace(/\.\d+Z$/, ''), object: true },
      // No data.object: the key is the resource's last segment.
      { id: k4, createdAt: now, object: false },
    ].map((e, i) => ({
      '@id': `/events/e${i}`,
      '@type': 'Event',
      id: `e${i}`,
      type: 'invoice.deleted',
      taxpayer: { id: rfc },
      resource: `/invoices/${e.id}`,
      data: e.object ? { object: { id: e.id } } : {},
      createdAt: e.createdAt,
    }));
    const withEvents = {
      wrapFetch: (inner: typeof fetch) => async (input: string | URL | Request, init?: RequestInit) => {
        const response = await inner(input, init);
        if (new URL(input instanceof Request ? input.url : input).pathname !== '/events') return response;
        const page = (await response.json()) as Record<string, unknown>;
        page[page['hydra:member'] === undefined ? 'member' : 'hydra:member'] = events;
        page[page['hydra:totalItems'] === undefined ? 'totalItems' : 'hydra:totalItems'] = events.length;
        return new Response(JSON.stringify(page), { status: 200, headers: response.headers });
      },
    };
    const r = await run(w, exportArgs(w, rfc, db.out, '--incremental'), withEvents as Parameters<typeof runInProcess>[3]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('(0 rows inserted, 0 updated, 3 deleted)');
    const json = await run(
      w,
      [...exportArgs(w, rfc, db.out, '--incremental'), '--log-format', 'json'],
      withEvents as Parameters<typeof runInProcess>[3],
    );
    const summary = json.lines.map((l) => JSON.parse(l) as { event: string; deleted?: number }).find((e) => e.event === 'summary');
    // The same events again: their rows are gone already.
    expect(summary?.deleted).toBe(0);
    const left = await db.rows('SELECT id FROM invoices');
    const ids = new Set(left.map((x) => x.id));
    expect([k1, k2, k3, k4].map((k) => ids.has(k))).toEqual([false, true, false, false]);
    expect(ids.size).toBe(sourceOf(w, path(rfc)).size - 3);
    // Gone for every source that held them, so each source's verify still counts what it holds.
    const held = await db.rows('SELECT id, source FROM collections_members WHERE id IN ($1, $2, $3, $4) ORDER BY id, source', [k1!, k2!, k3!, k4!]);
    expect(held.map((m) => [m.id, m.source])).toEqual([path(rfc), `/entities/${entity.id}/invoices`].sort().map((source) => [k2, source]));
  });

  it('a watermark 8 days old: one full refresh with --prune, said once, then incremental again', async () => {
    const w = world({ churn: 0 });
    const rfc = w.sandbox.taxpayers()[0]!;
    expect((await run(w, exportArgs(w, rfc, db.out, '--incremental'))).code).toBe(0);
    w.clock.advance(8 * DAY);
    // Deleted without an event (or its event is gone with the 7 days): only a full refresh with --prune finds it.
    const gone = [...sourceOf(w, path(rfc)).keys()][5]!;
    w.sandbox.remove(path(rfc), gone);
    const refresh = await run(w, exportArgs(w, rfc, db.out, '--incremental'));
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(refresh.lines.filter((l) => l.includes('days old'))).toEqual([
      `collections: the watermark of ${path(rfc)} is 8 days old, older than the 7 days the API keeps its events; this run is a full refresh with --prune`,
    ]);
    expect(refresh.requests[0]!.url).not.toContain('updatedAt');
    expect(eventsRequests(refresh)).toBe(0);
    expect(refresh.stderr).toContain('(0 rows inserted, 0 updated, 1 deleted)');
    expect([...(await rowsOf(db, path(rfc))).keys()].sort()).toEqual([...sourceOf(w, path(rfc)).keys()].sort());
    const log = await db.rows('SELECT mode, watermark FROM collections_runs ORDER BY run_id');
    expect(log.map((l) => l.mode)).toEqual(['incremental', 'full']);
    w.clock.advance(MINUTE);
    const next = await run(w, exportArgs(w, rfc, db.out, '--incremental'));
    expect(next.code).toBe(0);
    expect(decodeURIComponent(next.requests[0]!.url)).toContain(`updatedAt[after]=${log[1]!.watermark}`);
    expect(next.stderr).not.toContain('days old');
    expect(eventsRequests(next)).toBe(1);
  });

  it('--events-retention sets the guarantee: 9 days keep an 8-day watermark incremental', async () => {
    const w = world({ churn: 0 });
    const rfc = w.sandbox.taxpayers()[0]!;
    expect((await run(w, exportArgs(w, rfc, db.out, '--incremental'))).code).toBe(0);
    w.clock.advance(8 * DAY);
    const r = await run(w, exportArgs(w, rfc, db.out, '--incremental', '--events-retention', '9'));
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('days old');
    expect(decodeURIComponent(r.requests[0]!.url)).toContain('updatedAt[after]=');
  });

  it('a key without access to the events (403): a note, deletions not followed, exit 0', async () => {
    const w = world();
    const rfc = w.sandbox.taxpayers()[0]!;
    expect((await run(w, exportArgs(w, rfc, db.out, '--incremental'))).code).toBe(0);
    w.clock.advance(NIGHT);
    // The service's answer to a key without access to the events.
    const forbidden = {
      wrapFetch: (inner: typeof fetch) => (input: string | URL | Request, init?: RequestInit) =>
        new URL(input instanceof Request ? input.url : input).pathname === '/events'
          ? Promise.resolve(new Response('{"message":"Forbidden"}', { status: 403, headers: { 'Content-Type': 'application/json' } }))
          : inner(input, init),
    };
    const r = await run(w, exportArgs(w, rfc, db.out, '--incremental'), forbidden as Parameters<typeof runInProcess>[3]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the API refused the events (/events: HTTP 403); this run does not follow deletions (a full run with --prune does)');
    expect(r.stderr).not.toContain(' deleted)');
    const deleted = [...(await rowsOf(db, path(rfc))).keys()].filter((id) => !sourceOf(w, path(rfc)).has(id));
    expect(deleted.length).toBeGreaterThan(0);
  });

  it('an interrupted run and its --resume leave the table equal to an uninterrupted run', async () => {
    const w = world();
    const rfc = w.sandbox.taxpayers()[0]!;
    expect((await run(w, exportArgs(w, rfc, db.out, '--incremental', '--items-per-page', '5'))).code).toBe(0);
    w.clock.advance(NIGHT);
    const stopped = await run(w, exportArgs(w, rfc, db.out, '--incremental', '--items-per-page', '5'), interruptAt(3));
    expect(stopped.code).toBe(130);
    const resumed = await run(w, [...exportArgs(w, rfc, db.out, '--incremental', '--items-per-page', '5'), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const table = await rowsOf(db, path(rfc));
    const source = sourceOf(w, path(rfc));
    expect([...table.keys()].sort()).toEqual([...source.keys()].sort());
  });
});

describe('an incremental file export (--state)', () => {
  it('writes the ids deleted since the watermark beside the delta (F.deleted.ndjson), listed in the manifest and checked by verify', async () => {
    const w = world();
    const rfc = w.sandbox.taxpayers()[0]!;
    const file = (night: number): string[] => [
      'invoices',
      '--taxpayer',
      rfc,
      '--state',
      'state.json',
      '--out',
      `night${night}.ndjson`,
      '--no-progress',
    ];
    const first = await run(w, file(0));
    expect(first.code, first.stderr).toBe(0);
    // A full export (no watermark yet) follows nothing.
    expect(dir.has('night0.ndjson.deleted.ndjson')).toBe(false);
    const before = new Set(sourceOf(w, path(rfc)).keys());
    w.clock.advance(NIGHT);
    const second = await run(w, file(1));
    expect(second.code, second.stderr).toBe(0);
    expect(eventsRequests(second)).toBe(1);
    const now = sourceOf(w, path(rfc));
    const lines = dir.read('night1.ndjson.deleted.ndjson').toString().trim().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { id: string; deletedAt: string; event: string });
    const gone = [...before].filter((id) => !now.has(id));
    expect(gone.length).toBeGreaterThan(0);
    // Every invoice gone is listed; the others listed were inserted during the night, then deleted.
    expect(gone.filter((id) => !records.some((r) => r.id === id))).toEqual([]);
    expect(records.filter((r) => now.has(r.id))).toEqual([]);
    for (const r of records) {
      expect(r.event).toMatch(/^\/events\//);
      expect(Date.parse(r.deletedAt)).toBeGreaterThan(w.clock.now() - NIGHT - MINUTE);
    }
    const manifest = JSON.parse(dir.read('night1.ndjson.manifest.json').toString()) as {
      outputs: Array<{ deleted: { file: string; records: number } }>;
    };
    expect(manifest.outputs[0]!.deleted).toMatchObject({ file: 'night1.ndjson.deleted.ndjson', records: records.length });
    const ok = await runInProcess(w, dir, ['verify', 'night1.ndjson.manifest.json'], { connectVia: 'none' });
    expect(ok.code, ok.stderr).toBe(0);
    writeFileSync(dir.file('night1.ndjson.deleted.ndjson'), lines.slice(1).join('\n') + '\n');
    const bad = await runInProcess(w, dir, ['verify', 'night1.ndjson.manifest.json'], { connectVia: 'none' });
    expect(bad.code).toBe(8);
    expect(bad.stdout + bad.stderr).toContain(
      `night1.ndjson.deleted.ndjson holds ${records.length - 1} records, the manifest says ${records.length}`,
    );
  });
});
