/**
 * A many-taxpayer run at `--parallel 32` (its maximum) listens to SIGINT and SIGTERM once for the
 * whole run, not once per export: no MaxListenersExceededWarning on stderr (a cron mail every
 * night) into NDJSON templates, DuckDB or PostgreSQL, and the process listeners are gone when the
 * run ends.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createSystemContext, type FetchLike } from '../../src/context.js';
import { requireBuild, runCli } from '../helpers/cli.js';
import { duckdbDatabase, postgresDatabase } from '../helpers/databases.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, worldContext, type ServedWorld, type TempDir } from '../helpers/world.js';

const TAXPAYERS = 25;

let world: ServedWorld;
let server: TestPostgres;
beforeAll(async () => {
  requireBuild();
  [world, server] = await Promise.all([serveWorld({ sizes: { taxpayers: TAXPAYERS, invoicesPerTaxpayer: 3 } }), startPostgres()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([world.close(), server.stop()]);
  removeTempDirs();
});

function listFile(dir: TempDir): string {
  writeFileSync(dir.file('taxpayers.txt'), `${world.sandbox.taxpayers().join('\n')}\n`);
  return dir.file('taxpayers.txt');
}

const runArgs = (dir: TempDir, out: string): string[] => [
  'invoices',
  '--taxpayers-file',
  listFile(dir),
  '--parallel',
  '32',
  '-q',
  '--out',
  out,
  '--base-url',
  world.base,
];

describe('--taxpayers-file of 25 at --parallel 32 (spawned)', () => {
  it.each(['ndjson', 'duckdb', 'postgres'] as const)('into %s: exit 0, nothing on stderr (no Node warning)', async (kind) => {
    expect(world.sandbox.taxpayers()).toHaveLength(TAXPAYERS);
    const dir = tempDir();
    const out = kind === 'ndjson' ? 'out/{taxpayer}.ndjson' : kind === 'duckdb' ? duckdbDatabase(dir).out : (await postgresDatabase(server)).out;
    const r = await runCli(runArgs(dir, out), { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('the process signal listeners of a run (in process, the real signal source)', () => {
  it('one SIGINT and one SIGTERM listener while the run goes, none left after it', async () => {
    const dir = tempDir();
    const run = async (): Promise<{ during: number[]; code: number }> => {
      const during: number[] = [];
      const wrapFetch = (inner: FetchLike): FetchLike => {
        return (input, init) => {
          during.push(process.listenerCount('SIGTERM'), process.listenerCount('SIGINT'));
          return inner(input, init);
        };
      };
      const { t } = worldContext(world, dir, { wrapFetch });
      t.ctx.onSignal = createSystemContext('0.0.0-test', () => Promise.resolve(t.ctx.fetch)).onSignal;
      const code = await main([...runArgs(dir, 'out/{taxpayer}.ndjson'), '--api-key', world.key], t.ctx);
      return { during, code };
    };
    // A first run loads whatever modules listen once for the process (signal-exit), as a run does.
    expect((await run()).code).toBe(0);
    const before = [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];
    const second = await run();
    expect(second.code).toBe(0);
    expect(second.during.length).toBeGreaterThanOrEqual(2 * TAXPAYERS);
    expect(Math.max(...second.during)).toBe(Math.max(...before) + 1);
    expect([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')]).toEqual(before);
  });
});
