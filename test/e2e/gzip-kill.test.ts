/**
 * SIGKILL of a real gzip export (the built bin, a separate process) after its first checkpoints,
 * then `--resume`: the finished `.gz` decompresses (every member, RFC 1952) to exactly the bytes
 * of a plain export.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../helpers/cli.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';
import { checkpointPages, referenceExport, runAndSignalAtCheckpoint } from './spawn.js';

let world: ServedWorld | undefined;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  // 120 invoices, 12 pages of 10, 40 ms each: slow enough for a kill to land before the end.
  world = await serveWorld({ latencyMs: 40, sizes: { taxpayers: 1, invoicesPerTaxpayer: 120, entities: 25 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

describe('SIGKILL of a gzip export', () => {
  it.each(['ndjson', 'json', 'csv'])('killed twice and resumed, x.%s.gz decompresses to the plain export', async (ext) => {
    const args = ['invoices', '--taxpayer', world!.taxpayer, '--cursor', '--items-per-page', '10'];
    const expected = await referenceExport(world!, dir, args, `ref.${ext}`);
    const out = `killed.${ext}.gz`;
    const fileArgs = [...args, '--out', out, '--base-url', world!.server.url];
    const checkpoint = dir.file(`${out}.checkpoint.json`);
    // Kills a few ms after the checkpoint reaches 2, then 6 of the 12 pages: mid-write, between a
    // member and its checkpoint, mid-request.
    const moments: Array<[number, number, boolean]> = [
      [2, 3, false],
      [6, 11, true],
    ];
    for (const [pages, delayMs, resume] of moments) {
      const r = await runAndSignalAtCheckpoint([...fileArgs, ...(resume ? ['--resume'] : [])], {
        cwd: dir.path,
        // Checkpoints every 100 ms (about every 3 pages of 40 ms) rather than every second.
        env: cliEnv(dir, { COLLECTIONS_CHECKPOINT_MS: '100' }),
        signal: 'SIGKILL',
        checkpoint,
        pages,
        delayMs,
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      expect(checkpointPages(checkpoint)).toBeGreaterThanOrEqual(pages);
      expect(checkpointPages(checkpoint)).toBeLessThan(12);
    }
    const done = await runCli([...fileArgs, '--resume'], { cwd: dir.path, env: cliEnv(dir) });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/^collections: resuming after \d+ items/m);
    const gz = dir.read(out);
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
    expect(gunzipSync(gz).equals(expected)).toBe(true);
    expect(dir.has(`${out}.part`) || dir.has(`${out}.checkpoint.json`)).toBe(false);
  });
});
