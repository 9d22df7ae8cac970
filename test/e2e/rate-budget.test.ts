/**
 * Two `collections` processes (the built bin) with the same key and base URL, started together
 * against one served sandbox whose window is one second: through `rate-budget.json` in the shared
 * cache folder they spend at most one 429 between them, and the file never holds the key.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../helpers/cli.js';
import { canaryFree, cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

let world: ServedWorld | undefined;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  // 2 × 12 requests through one route window of 8 a second: about three seconds.
  world = await serveWorld({ limit: 8, windowSeconds: 1, sizes: { taxpayers: 2, invoicesPerTaxpayer: 110 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

describe('two processes, one key', () => {
  it('share the quota through the cache folder: at most one 429 between them', async () => {
    const { sandbox, server } = world!;
    const env = cliEnv(dir, { COLLECTIONS_CACHE_DIR: dir.file('cache') });
    const runs = sandbox.taxpayers().map((tp, i) =>
      runCli(['invoices', '--taxpayer', tp, '--cursor', '--items-per-page', '10', '--out', `t${i}.ndjson`, '--base-url', server.url, '--verbose'], {
        cwd: dir.path,
        env,
      }),
    );
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/pacing alone/);
      expect(canaryFree(r.stdout, r.stderr)).toBe(true);
    }
    const tooMany = sandbox.stats().limitedWindows.reduce((n, w) => n + w.count, 0);
    expect(tooMany).toBeLessThanOrEqual(1);
    const text = readFileSync(dir.file('cache/rate-budget.json'), 'utf8');
    expect(canaryFree(text)).toBe(true);
    expect(text).toContain('/taxpayers/{taxpayerId}/invoices');
  });
});
