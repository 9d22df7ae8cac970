/**
 * Hosts that share nothing but a `--budget` database (each process its own config and cache
 * folders), one key, one served sandbox of 10 requests per 2 s window per endpoint, 40 taxpayers'
 * invoices of 3 pages each split by `--shard I/4`: every item exactly once, at most 2 429s in the
 * whole run (counted by the sandbox), the key in no table. The budget database stopped mid-run:
 * every host completes by the headers alone, nothing lost, said once. One host killed: no window
 * of the sandbox passes without the others' requests while they have work. Four CLI processes
 * and a PostgreSQL on CI's two cores: a case that fails is run once more (a real fault fails twice).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli, type CliResult, type RunCliOptions } from '../helpers/cli.js';
import { takeShard } from '../../src/commands/export/shard.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { CANARY, canaryFree, cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const HOSTS = 4;
const TAXPAYERS = 40;
/** Items per page; 3 pages a taxpayer in offset mode (the last page says it is the last). */
const PAGE = 10;
/** The sandbox's window, ms. */
const WINDOW_MS = 2_000;

let pg: TestPostgres | undefined;

beforeAll(async () => {
  requireBuild();
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  removeTempDirs();
});

interface Fleet {
  world: ServedWorld;
  dirs: TempDir[];
}

async function fleet(taxpayers = TAXPAYERS): Promise<Fleet> {
  const world = await serveWorld({ limit: 10, windowSeconds: WINDOW_MS / 1000, sizes: { taxpayers, invoicesPerTaxpayer: 3 * PAGE } });
  const list = `${world.sandbox.taxpayers().join('\n')}\n`;
  const dirs = Array.from({ length: HOSTS }, () => {
    const dir = tempDir();
    writeFileSync(dir.file('taxpayers.txt'), list);
    return dir;
  });
  return { world, dirs };
}

/** One host: its own config and cache folders, its shard of the list. */
function host(f: Fleet, i: number, budget: string, extra: readonly string[] = [], options: RunCliOptions = {}): Promise<CliResult> {
  const dir = f.dirs[i]!;
  const env = cliEnv(dir, { COLLECTIONS_CACHE_DIR: dir.file('cache'), COLLECTIONS_BUDGET: budget, XDG_CACHE_HOME: dir.file('xdg') });
  const args = ['invoices', '--taxpayers-file', 'taxpayers.txt', '--shard', `${i}/${HOSTS}`, '--items-per-page', String(PAGE)];
  return runCli([...args, '--out', 'out/{taxpayer}.ndjson', '--parallel', '4', '--base-url', f.world.server.url, '--no-progress', ...extra], {
    cwd: dir.path,
    env,
    ...options,
  });
}

/** Every invoice id written by every host, with repeats. */
function idsWritten(f: Fleet): string[] {
  return f.dirs.flatMap((dir) =>
    readdirSync(dir.file('out'))
      .filter((name) => name.endsWith('.ndjson'))
      .flatMap((name) =>
        readFileSync(dir.file(`out/${name}`), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => String((JSON.parse(l) as { id: unknown }).id)),
      ),
  );
}

function expectEveryItemOnce(f: Fleet): void {
  const ids = idsWritten(f);
  const expected = f.world.sandbox.taxpayers().flatMap((tp) => f.world.sandbox.invoiceIds(tp));
  expect(ids.length).toBe(expected.length);
  expect(new Set(ids)).toEqual(new Set(expected));
}

/**
 * The sandbox's windows, after the one `killedAt` falls in and up to the other hosts' last request,
 * in which the other hosts sent nothing (as window start times, server ms). The dead host's
 * reservations may fill the rest of its window; a host still waiting for them a window later
 * leaves a whole window empty.
 */
function emptyWindowsOfOthers(f: Fleet, victim: number, killedAt: number): number[] {
  const owner = new Map<string, number>();
  for (let i = 0; i < HOSTS; i++) for (const tp of takeShard(f.world.sandbox.taxpayers(), { index: i, count: HOSTS })) owner.set(tp, i);
  const windowOf = (ms: number): number => Math.floor(ms / WINDOW_MS);
  const sent = new Set<number>();
  let last = -Infinity;
  for (const r of f.world.sandbox.requests()) {
    const tp = /\/taxpayers\/([^/]+)\/invoices/.exec(r.url)?.[1];
    if (tp === undefined || owner.get(decodeURIComponent(tp)) === victim || r.timeMs <= killedAt) continue;
    sent.add(windowOf(r.timeMs));
    last = Math.max(last, windowOf(r.timeMs));
  }
  const empty: number[] = [];
  for (let w = windowOf(killedAt) + 1; w <= last; w++) if (!sent.has(w)) empty.push(w * WINDOW_MS);
  return empty;
}

const tooMany = (f: Fleet): number => f.world.sandbox.stats().limitedWindows.reduce((n, w) => n + w.count, 0);

describe('four hosts, one key, one --budget database', () => {
  it('export every item once with at most 2 429s, and no table holds the key', { timeout: 120_000, retry: 1 }, async () => {
    const db = await pg!.createDatabase();
    const f = await fleet();
    try {
      const results = await Promise.all(f.dirs.map((_d, i) => host(f, i, pg!.url(db))));
      for (const r of results) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/pacing by the server's headers alone/);
        expect(canaryFree(r.stdout, r.stderr)).toBe(true);
        expect(`${r.stdout}${r.stderr}`).not.toContain(PG_PASSWORD);
      }
      expectEveryItemOnce(f);
      const requests = f.world.sandbox.requests().filter((r) => r.url.includes('/invoices'));
      expect(requests.length).toBeGreaterThanOrEqual(TAXPAYERS * 3);
      expect(tooMany(f)).toBeLessThanOrEqual(2);
      const tables = await pg!.query<{ name: string }>(db, "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
      expect(tables.map((t) => t.name)).toEqual(['collections_rate_budget']);
      const dump = JSON.stringify(await pg!.query(db, 'SELECT * FROM collections_rate_budget'));
      expect(dump).toContain('/taxpayers/{taxpayerId}/invoices');
      expect(dump).not.toContain(CANARY);
      expect(dump).not.toContain(PG_PASSWORD);
    } finally {
      await f.world.close();
    }
  });

  it(
    'the budget database stopped mid-run: every host completes by the headers alone, nothing lost, said once',
    { timeout: 120_000, retry: 1 },
    async () => {
      const doomed = await startPostgres();
      // Half the taxpayers: the hosts pace alone after the stop, and meet 429s the server answers with its reset.
      const f = await fleet(TAXPAYERS / 2);
      try {
        let stopping: Promise<void> | undefined;
        let stopped = Infinity;
        const finished: number[] = [];
        const runs = f.dirs.map((_d, i) =>
          host(f, i, doomed.url('postgres'), ['--log-format', 'json']).then((r) => {
            finished[i] = Date.now();
            return r;
          }),
        );
        // Stopped once the hosts have spent a few windows through it.
        const stopWhen = setInterval(() => {
          if (stopping === undefined && f.world.sandbox.stats().requests >= 12)
            stopping = doomed.stop().then(() => {
              stopped = Date.now();
            });
        }, 50);
        const results = await Promise.all(runs);
        clearInterval(stopWhen);
        await (stopping ?? doomed.stop());
        expect(stopping).toBeDefined();
        results.forEach((r, i) => {
          expect(r.code, r.stderr).toBe(0);
          const warnings = r.stderr
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as { event: string; message?: string })
            .filter((e) => e.event === 'warning' && /rate budget database/.test(e.message ?? ''));
          // Said once; by every host still sending after the database was gone (each of its requests is reserved first).
          expect(warnings.length, r.stderr).toBeLessThanOrEqual(1);
          if (finished[i]! > stopped) expect(warnings.length, r.stderr).toBe(1);
          expect(`${r.stdout}${r.stderr}`).not.toContain(PG_PASSWORD);
        });
        expect(finished.filter((t) => t > stopped).length).toBeGreaterThan(0);
        expectEveryItemOnce(f);
      } finally {
        await f.world.close();
      }
    },
  );

  it(
    'one host killed (SIGKILL) mid-run: the others never wait a window for its reservations, and its shard run again with --resume completes it, nothing doubled',
    { timeout: 120_000, retry: 1 },
    async () => {
      const db = await pg!.createDatabase();
      const f = await fleet(TAXPAYERS / 2);
      try {
        // The host with the largest shard: taxpayers still to come when its first one is done.
        const sizes = f.dirs.map((_d, i) => takeShard(f.world.sandbox.taxpayers(), { index: i, count: HOSTS }).length);
        const v = sizes.indexOf(Math.max(...sizes));
        let killedAt: number | undefined;
        const victim = host(f, v, pg!.url(db), [], {
          onStderr: (chunk, child) => {
            // After its first taxpayer is done, with others in flight and holding reservations.
            if (killedAt === undefined && / ok, /.test(chunk)) {
              killedAt = f.world.sandbox.clock.now();
              child.kill('SIGKILL');
            }
          },
        });
        const others = f.dirs.flatMap((_d, i) => (i === v ? [] : [host(f, i, pg!.url(db))]));
        const [dead, ...rest] = await Promise.all([victim, ...others]);
        expect(dead.signal).toBe('SIGKILL');
        for (const r of rest) expect(r.code, r.stderr).toBe(0);
        expect(emptyWindowsOfOthers(f, v, killedAt!)).toEqual([]);
        const again = await host(f, v, pg!.url(db), ['--resume']);
        expect(again.code, again.stderr).toBe(0);
        expectEveryItemOnce(f);
        expect(tooMany(f)).toBeLessThanOrEqual(2);
      } finally {
        await f.world.close();
      }
    },
  );
});
