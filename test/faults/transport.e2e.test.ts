/**
 * The fault table (README, "Test"; rows in scripts/faults-report.js), where the transport matters:
 * the built CLI (bin/collections.js, `npm run build` first; `npm test` does) against a served
 * world (test/helpers/world.ts: startSandboxServer on 127.0.0.1:0) with real sockets and real time:
 * resets, a request never answered, a slow drip, a port that refuses connections for 3 s, links
 * and redirects to a recorder origin, and a rate limit with a 1 s window. Timeouts and windows are
 * short so the file stays within a few seconds per case.
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/app.js';
import type { FaultRule } from '../../src/sandbox/faults.js';
import { startRecorderServer, type RecorderServer } from '../../src/sandbox/server.js';
import { requireBuild, runCli, type CliResult } from '../helpers/cli.js';
import {
  CANARY,
  cliEnv,
  createWorldSandbox,
  idsOfNdjson,
  removeTempDirs,
  serveWorld,
  tempDir,
  type ServedWorld,
  type TempDir,
} from '../helpers/world.js';
import { report, SIZES } from './harness.js';
import { lostAndDuplicated, max429PerWindow, requestsBeforeReset } from './measures.js';

const CURSOR = ['--cursor', '--items-per-page', '10'];

const open: Array<ServedWorld | RecorderServer> = [];
let dir: TempDir;
let cleanStdout: string;

beforeAll(async () => {
  requireBuild();
  dir = tempDir('collections-faults-e2e-');
  const { sandbox, server } = await serve();
  const r = await exportFrom(server.url, sandbox);
  expect(r.code).toBe(0);
  cleanStdout = r.stdout;
  expect(idsOfNdjson(cleanStdout)).toHaveLength(95);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

/** A served world of the suite's seed and sizes (no rate limit unless given). */
async function serve(options: { limit?: number; windowSeconds?: number } = {}): Promise<ServedWorld> {
  const world = await serveWorld({ seed: 7, sizes: SIZES, limit: options.limit ?? 0, windowSeconds: options.windowSeconds ?? 60 });
  open.push(world);
  return world;
}

async function recorder(): Promise<RecorderServer> {
  const r = await startRecorderServer();
  open.push(r);
  return r;
}

/** Runs the built CLI against `base` (key from the environment, config in the suite's temp folder). */
function exportFrom(base: string, sandbox: Sandbox, extra: string[] = []): Promise<CliResult & { ms: number }> {
  const started = performance.now();
  const quiet = extra.includes('--verbose') ? [] : ['--quiet'];
  return runCli(['invoices', '--taxpayer', sandbox.taxpayers()[0]!, '--base-url', base, ...quiet, ...CURSOR, ...extra], {
    cwd: dir.path,
    env: cliEnv(dir),
  }).then((r) => ({ ...r, ms: Math.round(performance.now() - started) }));
}

/** A free loopback port (listened on and closed again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('connection reset, headers never sent, slow drip, refused for 3 s (real sockets)', () => {
  const cases: Array<[string, string, string, string[]]> = [
    [
      'connection reset before headers',
      '500/502/503/504 now and then, connection reset, refused for 3 s',
      'reset-before-headers pages=2,4 times=2',
      [],
    ],
    ['connection reset mid-body', '500/502/503/504 now and then, connection reset, refused for 3 s', 'reset-mid-body pages=3,5 times=2', []],
    [
      'headers never sent, --timeout 1',
      'truncated body, invalid JSON, HTML 200, headers never sent, slow drip',
      'hang pages=3 times=1',
      ['--timeout', '1', '--verbose'],
    ],
    [
      'slow drip (64 B every 100 ms), --timeout 1',
      'truncated body, invalid JSON, HTML 200, headers never sent, slow drip',
      'drip pages=3 times=1 chunkBytes=64 intervalMs=100',
      ['--timeout', '1', '--verbose'],
    ],
    ['truncated body', 'truncated body, invalid JSON, HTML 200, headers never sent, slow drip', 'truncate pages=2 times=1', []],
  ];
  it.each(cases)('%s: retried, output identical (e2e)', async (name, fault, spec, extra) => {
    const { sandbox, server } = await serve();
    sandbox.setFaults(spec);
    const r = await exportFrom(server.url, sandbox, extra);
    const { lost, duplicated } = lostAndDuplicated(idsOfNdjson(cleanStdout), idsOfNdjson(r.stdout));
    const injected = sandbox.requests().filter((e) => e.faults.length > 0).length;
    const row = report(
      {
        fault,
        mode: `${name}, e2e`,
        expected: 'retried; output identical',
        lost,
        duplicated,
        early: 0,
        max429: 0,
        foreign: 0,
        exit: r.code ?? -1,
        note: `${r.ms} ms real`,
      },
      {
        exit0: r.code === 0,
        identical: r.stdout === cleanStdout,
        injected: injected >= 1,
        noKey: !r.stderr.includes(CANARY),
        // The hang and the drip are cut by the 1 s per-attempt timeout, not waited out.
        timedOut: !extra.includes('--timeout') || (r.ms >= 1000 && /timeout after 1 s/.test(r.stderr)),
      },
    );
    expect(row.failed).toEqual([]);
  });

  it('connection refused for 3 s after the first page (the server restarts): retried, output identical (e2e)', async () => {
    const port = await freePort();
    const sandbox = createWorldSandbox({ seed: 7, sizes: SIZES, latencyMs: 200 });
    const first = await serveWorld({ sandbox, port });
    const pending = exportFrom(`http://127.0.0.1:${port}`, sandbox, ['--retries', '10']);
    while (sandbox.requests().length === 0) await new Promise((r) => setTimeout(r, 10));
    await first.close();
    const down = performance.now();
    await new Promise((r) => setTimeout(r, 3000));
    open.push(await serveWorld({ sandbox, port }));
    const r = await pending;
    const { lost, duplicated } = lostAndDuplicated(idsOfNdjson(cleanStdout), idsOfNdjson(r.stdout));
    const row = report(
      {
        fault: '500/502/503/504 now and then, connection reset, refused for 3 s',
        mode: 'refused for 3 s after the first page (server restarts), e2e',
        expected: 'retried; output identical',
        lost,
        duplicated,
        early: 0,
        max429: 0,
        foreign: 0,
        exit: r.code ?? -1,
        note: `${r.ms} ms real`,
      },
      { exit0: r.code === 0, identical: r.stdout === cleanStdout, tookTheOutage: performance.now() - down >= 3000 },
    );
    expect(row.failed).toEqual([]);
  });

  it('connection refused before the API ever answered (a wrong port): exit 6 at once, one line naming the origin (e2e)', async () => {
    const port = await freePort();
    const sandbox = createWorldSandbox({ seed: 7, sizes: SIZES });
    const r = await exportFrom(`http://127.0.0.1:${port}`, sandbox);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      new RegExp(
        `^collections: ECONNREFUSED: connection refused by http://127\\.0\\.0\\.1:${port}, before the API answered anything in this run: the base URL is most likely wrong; check base-url [^\\n]*\\n$`,
      ),
    );
  });
});

describe('links and redirects to another origin (a recorder on another port)', () => {
  const cases: Array<[string, (rec: string, own: string) => FaultRule]> = [
    ['hydra:next to another port', (rec) => ({ kind: 'foreign-next', url: `${rec}/` })],
    ['hydra:next //127.0.0.1:port/ (scheme-relative)', (rec) => ({ kind: 'foreign-next', link: `//${new URL(rec).host}/taxpayers/x/invoices` })],
    [
      'hydra:next with userinfo hiding the host',
      (rec, own) => ({ kind: 'foreign-next', link: `http://${new URL(own).host}@${new URL(rec).host}/taxpayers/x/invoices` }),
    ],
    ['302 to another port', (rec) => ({ kind: 'redirect', url: `${rec}/` })],
  ];
  it.each(cases)('%s: the recorder receives nothing, exit 6 (e2e)', async (name, rule) => {
    const rec = await recorder();
    const { sandbox, server } = await serve();
    sandbox.setFaults([{ ...rule(rec.url, server.url), pages: 2 }]);
    const r = await exportFrom(server.url, sandbox);
    const keyHeaders = rec.requests.filter((q) => q.headers['x-api-key'] !== undefined).length;
    const row = report(
      {
        fault: 'hydra:next to another host, port or scheme; //evil/; userinfo tricks; a 302 elsewhere',
        mode: `${name}, e2e`,
        expected: 'the other origin receives nothing; exit 6',
        lost: 0,
        duplicated: lostAndDuplicated([], idsOfNdjson(r.stdout)).duplicated,
        early: 0,
        max429: 0,
        foreign: rec.requests.length,
        exit: r.code ?? -1,
        note: `X-Api-Key at the recorder: ${keyHeaders}`,
      },
      {
        exit6: r.code === 6,
        recorderEmpty: rec.requests.length === 0,
        noKeyThere: keyHeaders === 0,
        pagesBefore: cleanStdout.startsWith(r.stdout) && idsOfNdjson(r.stdout).length === 10,
      },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('limit reached; 429 with Reset and Date (real clock, 1 s windows)', () => {
  it('at most one 429 per window, none before the reset, output identical (e2e)', async () => {
    const sandbox = createWorldSandbox({ seed: 7, sizes: SIZES, limit: 4, windowSeconds: 1 });
    const competitor = (n: number) => `${sandbox.taxpayers()[0]}/invoices?itemsPerPage=1&competitor=${n}`;
    let seen = 0;
    // Another client on the same key spends the window just before the export's 1st and 5th requests
    // arrive, so the export meets 429s it could not have foreseen.
    const shared: Sandbox = {
      ...sandbox,
      async reply(req, signal) {
        seen++;
        if (seen === 1 || seen === 5) {
          for (let i = 0; i < 4; i++)
            await sandbox.reply({
              method: 'GET',
              url: `http://127.0.0.1/taxpayers/${competitor(seen)}`,
              header: (h) => (h === 'x-api-key' ? CANARY : null),
            });
        }
        return sandbox.reply(req, signal);
      },
    };
    const served = await serveWorld({ sandbox: shared });
    open.push(served);
    const r = await exportFrom(served.base, sandbox);
    const log = sandbox.requests().filter((e) => !e.url.includes('competitor='));
    const { lost, duplicated } = lostAndDuplicated(idsOfNdjson(cleanStdout), idsOfNdjson(r.stdout));
    const early = requestsBeforeReset(log, 1);
    const max429 = max429PerWindow(log, 1);
    const limited = log.filter((e) => e.status === 429).length;
    const row = report(
      {
        fault: 'limit reached; 429 with Reset and Date',
        mode: 'cursor, e2e, 1 s windows, another client on the key',
        expected: '≤1 429/window; no request before Reset; identical',
        lost,
        duplicated,
        early,
        max429,
        foreign: 0,
        exit: r.code ?? -1,
        note: `${log.length} requests, ${limited} 429s, ${r.ms} ms real`,
      },
      { exit0: r.code === 0, identical: r.stdout === cleanStdout, max429: max429 <= 1, early: early === 0, met429: limited >= 1 },
    );
    expect(row.failed).toEqual([]);
  });
});
