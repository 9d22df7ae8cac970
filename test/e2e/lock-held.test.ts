/**
 * The output lock holds for the whole run, however long (docs/files.md, "Files, checkpoints and
 * `--resume`"): a real export of about 20 s (the built bin against a served sandbox that allows two
 * requests a second), a second export to the same `--out` at 12 s and a `--resume` at 15 s (past
 * proper-lockfile's 10 s staleness, where the lock used to lapse): both exit 7 naming the holder,
 * the first completes byte-exact, and nothing but the manifest is left beside it.
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../helpers/cli.js';
import { LOCK_STALE_MS } from '../../src/export/files/output-lock.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';
import { referenceExport } from './spawn.js';

const SIZES = { taxpayers: 1, invoicesPerTaxpayer: 1800 };
let slow: ServedWorld | undefined;
let fast: ServedWorld | undefined;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir('collections-lock-held-');
  // 37 requests (36 pages of 50 and the empty page that ends a cursor chain) at 2 a second: ~19 s.
  slow = await serveWorld({ limit: 2, windowSeconds: 1, sizes: SIZES });
  // The same records (same seed), unlimited, for the reference export.
  fast = await serveWorld({ sizes: SIZES });
});
afterAll(async () => {
  await slow?.close();
  await fast?.close();
  removeTempDirs();
});

const LOCKED = /^collections: another export is writing \S+\/out\/big\.ndjson \(pid (\d+), since \d{4}-\d\d-\d\dT[\d:.]+Z\)$/m;

describe('the output lock of a long export', () => {
  it('holds past 10 s: a second export at 12 s and a --resume at 15 s exit 7; the first completes whole', { timeout: 45_000 }, async () => {
    const world = slow!;
    const args = ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '50'];
    const expected = await referenceExport(fast!, dir, args, 'reference.ndjson');
    const env = cliEnv(dir, { COLLECTIONS_CACHE_DIR: dir.file('cache') });
    let holder = 0;
    const run = (extra: string[] = [], onSpawn?: (child: ChildProcess) => void) =>
      runCli([...args, '--out', 'out/big.ndjson', '--base-url', world.server.url, ...extra], { cwd: dir.path, env, ...(onSpawn ? { onSpawn } : {}) });
    mkdirSync(dir.file('out'));
    const started = Date.now();
    const first = run([], (child) => (holder = child.pid ?? 0));
    await delay(12_000);
    const lockAge = Date.now() - statSync(dir.file('out/big.ndjson.lock')).mtimeMs;
    const second = await run();
    await delay(Math.max(0, started + 15_000 - Date.now()));
    const resumed = await run(['--resume']);
    const done = await first;
    const wall = Date.now() - started;

    expect(lockAge).toBeLessThan(LOCK_STALE_MS / 2);
    for (const loser of [second, resumed]) {
      expect(loser.code, loser.stderr).toBe(7);
      expect(loser.stderr).toMatch(LOCKED);
      expect(LOCKED.exec(loser.stderr)?.[1]).toBe(String(holder));
      expect(loser.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).not.toMatch(/took over|lost the lock/);
    expect(wall).toBeGreaterThan(15_000);
    expect(dir.read('out/big.ndjson').equals(expected)).toBe(true);
    expect(readdirSync(dir.file('out')).sort()).toEqual(['big.ndjson', 'big.ndjson.manifest.json']);
  });
});
