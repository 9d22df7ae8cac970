/**
 * The run log tells the truth, and URL parameters read as libpq reads them, as separate processes
 * (the built bin): a run killed by `kill -9` is marked `killed` by the next run of the table and
 * source, resumed or not, and a resumed run's requests add up over its processes (docs/databases.md,
 * "The run log and `verify`"); `?sslmode=disable&application_name=x` names the session, and
 * `?sslmode=require` against a server without SSL is one clean line, exit 7, no warning of `pg`'s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../helpers/cli.js';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

/** 20 pages of 10, a transaction per page. */
const PAGES = 20;

let server: TestPostgres;
let world: ServedWorld;
let dir: TempDir;
let served = 0;
/** Awaited before the sandbox answers the n-th request of the current run. */
let onRequest: ((n: number) => Promise<void> | void) | undefined;

beforeAll(async () => {
  requireBuild();
  server = await startPostgres();
  dir = tempDir();
  world = await serveWorld({ latencyMs: 15, sizes: { taxpayers: 1, invoicesPerTaxpayer: PAGES * 10 } });
  const reply = world.sandbox.reply.bind(world.sandbox);
  world.sandbox.reply = async (request, signal) => {
    await onRequest?.(++served);
    return reply(request, signal);
  };
}, 60_000);
afterAll(async () => {
  await world.close();
  await server.stop();
  removeTempDirs();
});

const args = (out: string): string[] => [
  'invoices',
  '--taxpayer',
  world.taxpayer,
  '--cursor',
  '--items-per-page',
  '10',
  '--out',
  out,
  '--base-url',
  world.base,
  '-q',
];

/** Runs the CLI; `killAt` sends SIGKILL when the server receives that many requests. */
async function spawnRun(argv: string[], killAt?: number) {
  served = 0;
  let kill: (() => void) | undefined;
  onRequest = (n) => {
    if (n === killAt) kill?.();
  };
  const r = await runCli(argv, {
    cwd: dir.path,
    env: cliEnv(dir, { COLLECTIONS_CHECKPOINT_MS: '0' }),
    onSpawn: (child) => (kill = () => child.kill('SIGKILL')),
  });
  onRequest = undefined;
  expect(r.stdout + r.stderr).not.toContain(PG_PASSWORD);
  return { ...r, requests: served };
}

const runLog = (db: TestDatabase) =>
  db.rows('SELECT status, items, pages, requests, ended_at IS NOT NULL AS ended FROM collections_runs ORDER BY run_id');

describe.each(['postgres', 'duckdb'] as const)('the run log of %s after kill -9', (kind) => {
  it('the next run without --resume marks the killed run killed', async () => {
    const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir, `killed-${kind}.duckdb`);
    const killed = await spawnRun(args(db.out), 6);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect((await runLog(db)).map((r) => r.status)).toEqual(['running']);
    const next = await spawnRun(args(db.out));
    expect(next.code, next.stderr).toBe(0);
    expect((await runLog(db)).map((r) => r.status)).toEqual(['killed', 'complete']);
  }, 60_000);

  it('--resume continues the killed run; its requests add up over both processes, as its items do', async () => {
    const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir, `resumed-${kind}.duckdb`);
    const killed = await spawnRun(args(db.out), 14);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [before] = await runLog(db);
    const committed = Number(before!.pages);
    expect(committed).toBeGreaterThan(0);
    // The requests of the committed groups are in the row already, though the process never ended.
    expect(Number(before!.requests)).toBeGreaterThanOrEqual(committed);
    const resumed = await spawnRun([...args(db.out), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const log = await runLog(db);
    // The pages, and the empty page that ends a cursor chain.
    expect(log.map((r) => [r.status, r.items, r.pages])).toEqual([['complete', String(PAGES * 10), String(PAGES + 1)]]);
    const requests = Number(log[0]!.requests);
    expect(requests).toBe(Number(before!.requests) + resumed.requests);
    expect(requests).toBeLessThanOrEqual(killed.requests + resumed.requests);
  }, 60_000);

  it('a second kill, then a run without --resume: the killed resumed run is marked killed too', async () => {
    const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir, `twice-${kind}.duckdb`);
    expect((await spawnRun(args(db.out), 5)).signal).toBe('SIGKILL');
    expect((await spawnRun([...args(db.out), '--resume'], 4)).signal).toBe('SIGKILL');
    expect((await runLog(db)).map((r) => r.status)).toEqual(['running']);
    expect((await spawnRun(args(db.out))).code).toBe(0);
    expect((await runLog(db)).map((r) => [r.status, r.ended])).toEqual([
      ['killed', 'false'],
      ['complete', 'true'],
    ]);
  }, 60_000);
});

describe('PostgreSQL URL parameters, as libpq reads them', () => {
  it('?sslmode=disable&application_name=x connects, and the session is named x', async () => {
    const name = await server.createDatabase();
    const names: string[] = [];
    onRequest = undefined;
    const r = await runCli([...args(`${server.url(name)}?sslmode=disable&application_name=x`)], {
      cwd: dir.path,
      env: cliEnv(dir),
      onSpawn: () => {
        served = 0;
        onRequest = async (n) => {
          if (n !== 1) return;
          const rows = await server.query<{ a: string }>('postgres', 'SELECT application_name AS a FROM pg_stat_activity WHERE datname = $1', [name]);
          names.push(...rows.map((row) => row.a));
        };
      },
    });
    onRequest = undefined;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // The writer's and the loader's sessions.
    expect(names).toEqual(['x', 'x']);
  }, 60_000);

  it('?sslmode=require against a server without SSL: exit 7, one line, no warning of pg on stderr', async () => {
    const name = await server.createDatabase();
    const r = await spawnRun(args(`${server.url(name)}?sslmode=require`));
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `collections: cannot connect to PostgreSQL at postgres://postgres@127.0.0.1:${server.port}/${name}?sslmode=require: The server does not support SSL connections\n`,
    );
    expect(r.requests).toBe(0);
  }, 60_000);
});
