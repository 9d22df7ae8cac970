import { afterAll, describe, expect, it } from 'vitest';
import { createTransportFetch } from '../../src/http/transport.js';
import { canaryFree, createWorld, removeTempDirs, runInProcess, serveWorld, tempDir } from '../helpers/world.js';

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

  it('port 9 (one fetch blocks, "bad port"): after the retries, the hint names the port and base-url, never the key', async () => {
    const world = createWorld();
    const dir = tempDir();
    const run = await runInProcess(world, dir, ['entities', '--retries', '1', '--no-progress'], {
      onContext: (t) => {
        t.ctx.fetch = createTransportFetch({ env: {} });
      },
    });
    expect(run.code).toBe(6);
    const last = run.lines.at(-1)!;
    expect(last).toMatch(
      /^collections: the API could not be read \(GET \/entities\?\S+\): bad port: fetch never connects to port 9 of http:\/\/127\.0\.0\.1:9 /,
    );
    expect(last).toContain('(after 1 retry); check base-url');
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
  });
});
