/**
 * Deletions followed by `--incremental` into a database, as separate processes (the built bin):
 * `kill -9` at any request of a night (its item pages, its delete events), then `--resume`, leaves
 * the table equal to the source, exactly as an uninterrupted run does (a property over kill
 * points, seeded: FC_SEED replays another seed). The sandbox deletes on a virtual clock of today,
 * so the process's own clock finds the watermark fresh.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../helpers/cli.js';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createVirtualClock, type VirtualClock } from '../helpers/virtual-clock.js';
import { cliEnv, createWorldSandbox, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const SEED = Number(process.env.FC_SEED ?? 20241201);
const RUNS = Number(process.env.FC_RUNS ?? 4);
/** A night of churn: about 13 inserts, 13 updates and 13 deletions of the taxpayer's invoices. */
const NIGHT = 40 * 60_000;

let server: TestPostgres;
let world: ServedWorld;
let clock: VirtualClock;
let dir: TempDir;
let served = 0;
let onRequest: ((n: number) => void) | undefined;

beforeAll(async () => {
  requireBuild();
  server = await startPostgres();
  dir = tempDir();
  clock = createVirtualClock(Math.floor(Date.now() / 1000) * 1000, { autoAdvance: false });
  const sandbox = createWorldSandbox({ churn: 1, deletions: true, sizes: { taxpayers: 1, invoicesPerTaxpayer: 200 } }, clock);
  world = await serveWorld({ sandbox });
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

const path = (): string => `/taxpayers/${world.taxpayer}/invoices`;
const args = (out: string, table: string): string[] => [
  'invoices',
  '--taxpayer',
  world.taxpayer,
  '--incremental',
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

/** Runs the CLI, counting the requests it sends; `killAt` sends SIGKILL when the server receives that many. */
async function spawnRun(argv: string[], killAt?: number): Promise<{ code: number | null; signal: string | null; stderr: string; requests: number }> {
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
  return { code: r.code, signal: r.signal, stderr: r.stderr, requests: served };
}

/** JSON text with every object's keys sorted (PostgreSQL's jsonb keeps no key order). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** The table's rows as `id item` (items parsed and written again, keys sorted, so both dialects compare), sorted. */
async function rows(db: TestDatabase, table: string): Promise<string[]> {
  return (await db.rows(`SELECT id, ${db.itemText} AS item FROM ${table}`)).map((r) => `${r.id!} ${canonical(JSON.parse(r.item!))}`).sort();
}

/** The sandbox's current invoices as {@link rows} writes them. */
function source(): string[] {
  return (world.sandbox.items(path()) as Array<{ id: string }>).map((i) => `${i.id} ${canonical(i)}`).sort();
}

describe.each(['postgres', 'duckdb'] as const)('kill -9 of a night that follows deletions into %s, then --resume', (kind) => {
  it('leaves the table equal to the source, wherever the night was killed (item pages, delete events)', async () => {
    const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir, `deletions-${kind}.duckdb`);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), async (killAt) => {
        const table = `night_${++round}`;
        const first = await spawnRun(args(db.out, table));
        expect(first.code, first.stderr).toBe(0);
        clock.advance(NIGHT);
        const before = await rows(db, table);
        const killed = await spawnRun(args(db.out, table), killAt);
        // A kill after the night's last request may come once the process has ended.
        if (killed.signal !== 'SIGKILL') expect(killed.code, killed.stderr).toBe(0);
        else expect(await rows(db, table)).not.toEqual(source());
        const resumed = await spawnRun([...args(db.out, table), '--resume']);
        expect(resumed.code, resumed.stderr).toBe(0);
        const after = await rows(db, table);
        expect(after).toEqual(source());
        // The night deleted rows: the events were followed.
        const ids = new Set(after.map((r) => r.split(' ')[0]));
        expect(before.filter((r) => !ids.has(r.split(' ')[0])).length).toBeGreaterThan(0);
      }),
      // 5 and 6: the night's delete events (4 item requests, then 2 pages of events).
      { numRuns: RUNS, seed: SEED, examples: [[5], [6]] },
    );
  }, 240_000);
});
