/**
 * The manifest of an export killed with SIGKILL (the built bin, a separate process) and completed
 * with `--resume`: its SHA-256 and size are the finished file's, and `collections verify` passes.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/export/manifest/manifest.js';
import { requireBuild, runCli } from '../helpers/cli.js';
import { canaryFree, cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';
import { checkpointPages, runAndSignalAtCheckpoint } from './spawn.js';

let world: ServedWorld | undefined;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  // 12 pages of 10, 40 ms each: slow enough for the kill to land before the end.
  world = await serveWorld({ latencyMs: 40, sizes: { taxpayers: 1, invoicesPerTaxpayer: 120, entities: 25 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

describe('manifest after SIGKILL and --resume', () => {
  it('hashes the whole finished file, and verify passes', async () => {
    const { taxpayer, server } = world!;
    const args = ['invoices', '--taxpayer', taxpayer, '--cursor', '--items-per-page', '10', '--out', 'k.csv', '--base-url', server.url];
    const checkpoint = dir.file('k.csv.checkpoint.json');
    const killed = await runAndSignalAtCheckpoint(args, {
      cwd: dir.path,
      env: cliEnv(dir, { COLLECTIONS_CHECKPOINT_MS: '100' }),
      signal: 'SIGKILL',
      checkpoint,
      pages: 3,
      delayMs: 5,
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(checkpointPages(checkpoint)).toBeGreaterThanOrEqual(3);
    expect(dir.has('k.csv.manifest.json')).toBe(false);
    const done = await runCli([...args, '--resume'], { cwd: dir.path, env: cliEnv(dir) });
    expect(done.code, done.stderr).toBe(0);
    const file = dir.read('k.csv');
    const text = dir.read('k.csv.manifest.json').toString();
    const o = (JSON.parse(text) as Manifest).outputs[0]!;
    // 12 pages of 10 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on).
    expect(o).toMatchObject({ resumed: true, items: 120, pages: 13, bytes: file.length });
    expect(o.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    expect(canaryFree(text)).toBe(true);
    const verify = await runCli(['verify', 'k.csv.manifest.json'], { cwd: dir.path, env: cliEnv(dir) });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ok k\.csv: 120 items, /);
  });
});
