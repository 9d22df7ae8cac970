/**
 * Database destinations as separate processes (the built bin): `kill -9` at a random moment, then
 * `--resume`, leaves the table equal to an uninterrupted run's, with only the uncommitted group
 * fetched again (a property over kill points, seeded: FC_SEED replays another seed); PostgreSQL's
 * staging tables, killed or failing with groups loaded but not upserted; a DuckDB file
 * held by another process is exit 7; the password file is read as libpq reads it.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli, runCommand } from '../helpers/cli.js';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const SEED = Number(process.env.FC_SEED ?? 20240416);
const RUNS = Number(process.env.FC_RUNS ?? 4);
/** 20 pages of 10, a transaction per page. */
const PAGES = 20;

let server: TestPostgres;
let world: ServedWorld;
let dir: TempDir;
/** Requests the sandbox answered, and what to do at the n-th of the current run. */
let served = 0;
let onRequest: ((n: number) => void) | undefined;

beforeAll(async () => {
  requireBuild();
  server = await startPostgres();
  dir = tempDir();
  world = await serveWorld({ latencyMs: 15, sizes: { taxpayers: 1, invoicesPerTaxpayer: PAGES * 10 } });
  const reply = world.sandbox.reply.bind(world.sandbox);
  world.sandbox.reply = (request, signal) => {
    onRequest?.(++served);
    return reply(request, signal);
  };
}, 60_000);
afterAll(async () => {
  await world.close();
  await server.stop();
  removeTempDirs();
});

const args = (out: string, table: string): string[] => [
  'invoices',
  '--taxpayer',
  world.taxpayer,
  '--cursor',
  '--items-per-page',
  '10',
  '--out',
  out,
  '--table',
  table,
  '--base-url',
  world.base,
  '-q',
];
const env = () => cliEnv(dir, { COLLECTIONS_CHECKPOINT_MS: '0' });

/** Runs the CLI, counting the requests it sends; `killAt` sends SIGKILL when the server receives that many. */
async function spawnRun(argv: string[], killAt?: number): Promise<{ code: number | null; signal: string | null; stderr: string; requests: number }> {
  served = 0;
  let kill: (() => void) | undefined;
  onRequest = (n) => {
    if (n === killAt) kill?.();
  };
  const r = await runCli(argv, { cwd: dir.path, env: env(), onSpawn: (child) => (kill = () => child.kill('SIGKILL')) });
  onRequest = undefined;
  return { code: r.code, signal: r.signal, stderr: r.stderr, requests: served };
}

/** The table's items as text, by id. */
const items = async (db: TestDatabase, table: string): Promise<string[]> =>
  (await db.rows(`SELECT id, ${db.itemText} AS item FROM ${table} ORDER BY id`)).map((r) => `${r.id!} ${r.item!}`);

describe.each(['postgres', 'duckdb'] as const)('kill -9 of an export into %s, then --resume', (kind) => {
  it('leaves the table equal to an uninterrupted run, fetching again only what was not committed', async () => {
    const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir, `kill-${kind}.duckdb`);
    const clean = await spawnRun(args(db.out, 'clean'));
    expect(clean.code, clean.stderr).toBe(0);
    const expected = await items(db, 'clean');
    expect(expected).toHaveLength(PAGES * 10);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: PAGES }), async (killAt) => {
        const table = `killed_${++round}`;
        const killed = await spawnRun(args(db.out, table), killAt);
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
        const [log] = await db.rows(`SELECT status, pages, next FROM collections_runs WHERE table_name = '${table}'`);
        const committed = Number(log!.pages);
        expect(log!.status).toBe('running');
        // The rows of the committed groups, and no others.
        expect((await items(db, table)).length).toBe(committed * 10);
        const resumed = await spawnRun([...args(db.out, table), '--resume']);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(await items(db, table)).toEqual(expected);
        // Only the pages after the last committed group (and the empty page that ends a cursor chain).
        expect(resumed.requests).toBe(PAGES - committed + 1);
        // Never a checkpoint ahead of what was fetched.
        expect(committed).toBeLessThanOrEqual(killAt);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 240_000);
});

/** The mirror table's columns (export/destinations/schema.ts), for a table a test makes itself. */
const MIRROR_COLUMNS =
  'id text PRIMARY KEY, item jsonb NOT NULL, taxpayer text, source text NOT NULL, updated_at timestamptz, synced_at timestamptz NOT NULL';

describe('the staging tables of an export into PostgreSQL', () => {
  /** The rows in each staging table of database `name`, by table. */
  const staged = async (name: string): Promise<number[]> => {
    const tables = await server.query<{ t: string }>(
      name,
      "SELECT relname AS t FROM pg_class WHERE relkind = 'r' AND relname ~ '^collections_stage_[0-9a-f]{16}_[01]$' ORDER BY 1",
    );
    const counts: number[] = [];
    for (const { t } of tables) counts.push((await server.query<{ n: number }>(name, `SELECT count(*)::int AS n FROM ${t}`))[0]!.n);
    return counts;
  };

  /**
   * Runs an export into `table` while a session of the test holds a SHARE lock on it, so the
   * writer's upsert waits while the loader stages the next group; `then` runs once both staging
   * tables hold a group, the lock still held.
   */
  async function withUpsertsHeld(name: string, table: string, then: (kill: () => void) => Promise<void>, extra: string[] = []) {
    const blocker = new pg.Client({ connectionString: server.url(name) });
    await blocker.connect();
    try {
      await blocker.query(`BEGIN; LOCK TABLE ${table} IN SHARE MODE`);
      let kill: (() => void) | undefined;
      const running = runCli([...args(server.url(name), table), ...extra], {
        cwd: dir.path,
        env: env(),
        onSpawn: (child) => (kill = () => child.kill('SIGKILL')),
      });
      const until = Date.now() + 60_000;
      while ((await staged(name)).filter((n) => n > 0).length < 2) {
        if (Date.now() > until) throw new Error('the two staging tables were never both loaded');
        await new Promise((r) => setTimeout(r, 50));
      }
      await then(() => kill?.());
      await blocker.query('ROLLBACK');
      return await running;
    } finally {
      await blocker.end();
    }
  }

  it("a kill -9 between a group's COPY into staging and its upsert commits none of it; the next run drops the leftovers", async () => {
    const db = await postgresDatabase(server);
    const name = new URL(db.out).pathname.slice(1);
    const out = db.out;
    expect((await spawnRun(args(out, 'clean'))).code).toBe(0);
    await server.query(name, `CREATE TABLE staged (${MIRROR_COLUMNS})`);
    const killed = await withUpsertsHeld(name, 'staged', (kill) => {
      kill();
      return Promise.resolve();
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(await server.query(name, 'SELECT count(*)::int AS n FROM staged')).toEqual([{ n: 0 }]);
    const [log] = await server.query<{ status: string; pages: string }>(
      name,
      "SELECT status, pages::text FROM collections_runs WHERE table_name = 'staged'",
    );
    expect(log).toEqual({ status: 'running', pages: '0' });
    expect((await staged(name)).every((n) => n > 0)).toBe(true);
    const resumed = await spawnRun([...args(out, 'staged'), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await items(db, 'staged')).toEqual(await items(db, 'clean'));
    expect(await staged(name)).toEqual([]);
  }, 120_000);

  it('a group whose upsert fails keeps the group staged after it from committing (exit 7, nothing written)', async () => {
    const name = await server.createDatabase();
    const first = await runCli(
      ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--max-items', '1', '--out', 'first.ndjson', '--base-url', world.base, '-q'],
      {
        cwd: dir.path,
        env: env(),
      },
    );
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(readFileSync(`${dir.path}/first.ndjson`, 'utf8')) as { id: string }).id;
    // Refuses one item of the first page only: the first group fails, the second would not.
    await server.query(name, `CREATE TABLE refusing (${MIRROR_COLUMNS}, CHECK (id <> '${id.replace(/'/g, "''")}'))`);
    const r = await withUpsertsHeld(name, 'refusing', () => Promise.resolve());
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/could not commit a group of pages.*check constraint/);
    expect(await server.query(name, 'SELECT count(*)::int AS n FROM refusing')).toEqual([{ n: 0 }]);
    const [log] = await server.query<{ status: string; pages: string }>(
      name,
      "SELECT status, pages::text FROM collections_runs WHERE table_name = 'refusing'",
    );
    expect(log).toEqual({ status: 'failed', pages: '0' });
    expect(await staged(name)).toEqual([]);
  }, 120_000);
});

describe('locks and passwords of other processes', () => {
  it('a DuckDB file another process holds is exit 7 naming it, before any request', async () => {
    const db = duckdbDatabase(dir, 'held.duckdb');
    // The holder keeps the file until it is killed: a fixed hold (it was 8 s) ran out on a loaded CI
    // machine before the export reached the file, which then exited 0.
    let holding: { kill: (s: NodeJS.Signals) => boolean } | undefined;
    const holder = runCommand(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        // Referenced from globalThis: an instance the garbage collector takes releases its lock.
        `const {DuckDBInstance}=await import('@duckdb/node-api');globalThis.held=await DuckDBInstance.create(${JSON.stringify(db.out)});console.log('held');await new Promise(r=>setTimeout(r,120000));`,
      ],
      { cwd: process.cwd(), onStdout: (_c, child) => (holding = child) },
    );
    while (holding === undefined) await new Promise((r) => setTimeout(r, 50));
    const r = await spawnRun(args(db.out, 'invoices'));
    holding.kill('SIGTERM');
    const held = await holder;
    expect(held.stdout).toContain('held');
    expect(r.code, `${r.stderr}\n${held.stderr}`).toBe(7);
    expect(r.stderr).toMatch(/another process \(PID \d+\) holds the DuckDB file .*held\.duckdb/);
    expect(r.requests).toBe(0);
  }, 120_000);

  it('reads the password from ~/.pgpass (0600) when neither the URL nor PGPASSWORD has one, and ignores a file others can read', async () => {
    const name = await server.createDatabase();
    const home = tempDir();
    writeFileSync(home.file('.pgpass'), `# test\n127.0.0.1:${server.port}:${name}:postgres:${PG_PASSWORD}\n`);
    chmodSync(home.file('.pgpass'), 0o600);
    const out = server.url(name, { password: false });
    const ok = await runCli(args(out, 'invoices'), { cwd: dir.path, env: { ...env(), HOME: home.path, PGPASSWORD: undefined } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(await server.query(name, 'SELECT count(*)::int AS n FROM invoices')).toEqual([{ n: PAGES * 10 }]);
    chmodSync(home.file('.pgpass'), 0o644);
    const refused = await runCli(args(out, 'invoices'), { cwd: dir.path, env: { ...env(), HOME: home.path, PGPASSWORD: undefined } });
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain(`password file "${home.file('.pgpass')}" has group or world access; permissions should be u=rw (0600) or less`);
    expect(refused.stderr).not.toContain(PG_PASSWORD);
  });

  it.runIf(process.platform === 'linux')('takes a password in the URL off the process command line that ps shows', async () => {
    // A server that accepts the connection and never answers: the run waits in its connect.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    let cmdline = '';
    const r = await runCli(args(`postgres://me:title-canary-PW@127.0.0.1:${port}/db`, 'invoices'), {
      cwd: dir.path,
      env: env(),
      onSpawn: (child) => {
        setTimeout(() => {
          cmdline = readFileSync(`/proc/${child.pid!}/cmdline`, 'utf8');
          child.kill('SIGKILL');
        }, 3000);
      },
    });
    silent.close();
    expect(r.signal).toBe('SIGKILL');
    expect(cmdline).toMatch(/^collections/);
    expect(cmdline).not.toContain('title-canary-PW');
  });
});
