/**
 * stdout into a pipe, with the built bin in a real process: a reader that leaves early (`| head`)
 * ends the export quietly with exit 0; a slow reader still gets every byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/app.js';
import type { RunningServer } from '../../src/sandbox/server.js';
import { BIN, requireBuild, runCli, runShell } from '../helpers/cli.js';
import { cliEnv, removeTempDirs, runInProcess, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

let world: ServedWorld | undefined;
let sandbox: Sandbox;
let server: RunningServer;
let dir: TempDir;
let taxpayer: string;
let reference: string;
const PAGES = 20;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  world = await serveWorld({ latencyMs: 5, sizes: { taxpayers: 1, invoicesPerTaxpayer: 50 * PAGES } });
  ({ sandbox, server, taxpayer } = world);
  const r = await runInProcess(world, dir, [...args(), '--quiet']);
  expect(r.code).toBe(0);
  reference = r.stdout;
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

function args(): string[] {
  return ['invoices', '--taxpayer', taxpayer, '--cursor', '--items-per-page', '50'];
}

describe('stdout into a pipe', () => {
  it('`| head -n 3` under a real shell: exit 0 with pipefail, no stack trace, the export stops early', async () => {
    const before = sandbox.requests().length;
    const script = `set -o pipefail; "${process.execPath}" "${BIN}" ${args()
      .map((a) => `'${a}'`)
      .join(' ')} --base-url ${server.url} | head -n 3`;
    const result = await runShell(script, { cwd: dir.path, env: cliEnv(dir) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').slice(0, 3).join('\n')).toBe(reference.split('\n').slice(0, 3).join('\n'));
    expect(sandbox.requests().length - before).toBeLessThan(PAGES);
  });

  it('a reader that closes after the first chunk: exit 0, stderr empty', async () => {
    const r = await runCli([...args(), '--base-url', server.url], {
      cwd: dir.path,
      env: cliEnv(dir),
      onStdout: (_chunk, child) => child.stdout!.destroy(),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/Error|at .*\.js:\d+|EPIPE/);
    expect(r.stderr).toBe('');
  });

  it('a slow reader still gets every byte, and the summary comes after the data', async () => {
    let paused = 0;
    const r = await runCli([...args(), '--base-url', server.url], {
      cwd: dir.path,
      env: cliEnv(dir),
      onStdout: (_chunk, child) => {
        // Stall the reader for 40 ms after every few chunks so the pipe fills and the writer waits.
        if (++paused % 4 === 0) {
          child.stdout!.pause();
          setTimeout(() => child.stdout!.resume(), 40);
        }
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(paused).toBeGreaterThan(4);
    expect(r.stdout.length).toBe(reference.length);
    expect(r.stdout === reference).toBe(true);
    // 20 pages of 50 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on).
    expect(r.stderr).toMatch(/^collections: 1,000 items to stdout in \S+ \(21 requests, 0 retries, no rate-limit waits\)\n$/);
  });
});

describe('a second Ctrl-C', () => {
  it('exits 130 at once while the first waits for a write the stalled reader never takes', async () => {
    let firstAt = 0;
    let secondAt = 0;
    let aliveAfterFirst: boolean | undefined;
    const before = sandbox.requests().length;
    const r = await runCli([...args(), '--base-url', server.url], {
      cwd: dir.path,
      env: cliEnv(dir),
      onSpawn: (child) => {
        child.stdout!.pause(); // nobody reads: the pipe fills and the export waits to write
        // The first Ctrl-C goes once the export has stopped asking for pages (it waits to write),
        // not at a fixed time: on a loaded machine the pipe was not yet full at 1.2 s.
        void (async () => {
          let [seen, stableSince] = [-1, Date.now()];
          for (;;) {
            await new Promise((r) => setTimeout(r, 50));
            const n = sandbox.requests().length - before;
            if (n !== seen) [seen, stableSince] = [n, Date.now()];
            else if (n > 0 && Date.now() - stableSince >= 500) break;
          }
          firstAt = Date.now();
          child.kill('SIGINT');
          setTimeout(() => {
            aliveAfterFirst = child.exitCode === null && child.signalCode === null;
            secondAt = Date.now();
            child.kill('SIGINT');
          }, 600);
        })();
      },
    });
    expect(firstAt).toBeGreaterThan(0);
    expect(aliveAfterFirst).toBe(true);
    expect(r.code).toBe(130);
    expect(Date.now() - secondAt).toBeLessThan(1500);
    expect(r.stderr).toBe('collections: interrupted again by SIGINT; stopped at once\n');
  });
});
