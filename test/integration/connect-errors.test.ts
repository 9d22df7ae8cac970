import { afterAll, describe, expect, it } from 'vitest';
import { canaryFree, removeTempDirs, runInProcess, serveWorld, tempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

describe('first contact with an origin where nothing listens', () => {
  it('names the origin, suggests base-url and the sandbox, exit 6', async () => {
    const world = await serveWorld();
    await world.close();
    const dir = tempDir();
    const run = await runInProcess(world, dir, ['entities', '--retries', '0', '--no-progress']);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(`ECONNREFUSED: connection refused by ${world.base}`);
    expect(run.stderr).toContain('check base-url');
    expect(run.stderr).toContain('collections sandbox');
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
  });
});
