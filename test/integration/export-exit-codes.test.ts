/**
 * Every exit code of the README ("Exit codes"), each with its one `collections: ...` stderr line, from real
 * in-process runs of `main()` against the sandbox (signals raised through the test context).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toExitCode, ExitCode } from '../../src/errors.js';
import { OutputError } from '../../src/errors.js';
import { SIGNAL_ECHO_MS } from '../../src/export/run/interrupt.js';
import { CANARY, canaryFree, runInProcess, type TempDir, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld();

const YESTERDAY = 'yesterday\n';

/** The error line: exactly one stderr line, `collections: ...`, never the key. */
function expectOneErrorLine(lines: string[], pattern: RegExp): void {
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^collections: /);
  expect(lines[0]).toMatch(pattern);
  expect(canaryFree(lines[0]!)).toBe(true);
}

describe('exit codes', () => {
  it('0: a complete export, with the summary line', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '25', '--out', 'x.ndjson']);
    expect(r.code).toBe(0);
    expect(dir.read('x.ndjson').toString().trim().split('\n')).toHaveLength(60);
    expect(r.lines).toHaveLength(1);
    // 3 pages of 25 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on).
    expect(r.lines[0]).toMatch(/^collections: 60 items to .*x\.ndjson in \S+ \(4 requests, 0 retries, no rate-limit waits\)$/);
    expect(dir.has('x.ndjson.part') || dir.has('x.ndjson.checkpoint.json')).toBe(false);
  });

  it('1: an unexpected internal failure is one line, no stack, exit 1', async () => {
    const r = await runInProcess(world, dir, ['entities'], {
      onContext: (t) => {
        t.ctx.onSignal = () => {
          throw new Error('injected failure');
        };
      },
    });
    expect(r.code).toBe(1);
    expectOneErrorLine(r.lines, /^collections: internal error, please report: injected failure$/);
  });

  it('1: toExitCode maps anything that is not a CollectionsError to 1', () => {
    expect(toExitCode(new TypeError('x'))).toBe(ExitCode.Internal);
    expect(toExitCode('string')).toBe(1);
    expect(toExitCode(new OutputError('disk'))).toBe(7);
  });

  it.each([
    [['invoices', '--taxpayer', 'T', '--items-per-page', '0'], /items-per-page/],
    [['invoices', '--taxpayer', 'T', '--items-per-page', '1.5'], /items-per-page/],
    [['invoices', '--taxpayer', '', '--out', 'x.csv'], /taxpayer|empty/i],
    [['invoices', '--taxpayer', '..'], /taxpayer|\.\./],
    [['entities', '--cursor'], /--cursor/],
    [['entities', '--format', 'xml'], /xml|format/],
    [['entities', '--resume'], /--resume needs --out/],
    [['entities', '--param', 'page=2'], /page/],
  ])('2: usage error %j: zero requests, nothing written', async (args, pattern) => {
    const r = await runInProcess(world, dir, args);
    expect(r.code).toBe(2);
    expectOneErrorLine(r.lines, pattern);
    expect(world.sandbox.requests()).toHaveLength(0);
    expect(dir.has('x.csv.part')).toBe(false);
    expect(r.stdout).toBe('');
  });

  it('2: no base URL, with the hint to set one', async () => {
    const r = await runInProcess(world, dir, ['entities', '--api-key', CANARY], { connectVia: 'none' });
    expect(r.code).toBe(2);
    expectOneErrorLine(r.lines, /config set base-url/);
  });

  it("2: the API rejects the parameters (400): the server's message and X-Request-ID", async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--param', 'status=bogus', '--out', 'x.csv'], {
      wrapFetch: (inner) => async (input, init) => {
        if (String(input).includes('status=bogus')) {
          return new Response(JSON.stringify({ 'hydra:description': 'status: "bogus" is not a valid choice' }), {
            status: 400,
            headers: { 'Content-Type': 'application/ld+json', 'X-Request-ID': 'req-400-abc' },
          });
        }
        return inner(input, init);
      },
    });
    expect(r.code).toBe(2);
    expectOneErrorLine(r.lines, /rejected the parameters.*HTTP 400.*"bogus" is not a valid choice.*req-400-abc/);
    expect(dir.has('x.csv') || dir.has('x.csv.part') || dir.has('x.csv.checkpoint.json')).toBe(false);
  });

  it('3: the key is rejected (401): message and request id, never the key', async () => {
    const wrong = 'WRONG-canary-0000';
    const r = await runInProcess(world, dir, ['entities', '--api-key', wrong], { noKey: true });
    expect(r.code).toBe(3);
    expectOneErrorLine(r.lines, /API key was rejected.*HTTP 401.*Unauthorized.*X-Request-ID: \S+.*config set api-key/);
    expect(r.stderr).not.toContain(wrong);
  });

  it('4: unknown taxpayer (404), with the server message and request id', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', 'NOPE010101AAA', '--out', 'x.ndjson']);
    expect(r.code).toBe(4);
    expectOneErrorLine(r.lines, /not found.*HTTP 404.*Not Found.*X-Request-ID: \S+/);
    expect(dir.has('x.ndjson.part')).toBe(false);
    expect(r.lines[0]).toMatch(
      /; check --taxpayer NOPE010101AAA, or whether the API serves http:\/\/127\.0\.0\.1:9\/taxpayers\/NOPE010101AAA\/invoices at all$/,
    );
  });

  it.each([[['entities']], [['events', '--dry-run']]])(
    '4 with no id given (%j): the hint points at the base URL path, not at ids that were never given',
    async (args) => {
      const base = `${world.base}/wrong`;
      const r = await runInProcess(world, dir, args, { connectVia: 'env', env: { COLLECTIONS_BASE_URL: base } });
      expect(r.code).toBe(4);
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).not.toContain('--taxpayer');
      expect(r.lines[0]).toContain(`; check the path /wrong/${args[0]} and the path of base-url ${base} (\`collections config get base-url\``);
    },
  );

  it('4 with both ids given names both', async () => {
    const r = await runInProcess(world, dir, ['line-items', '--taxpayer', world.taxpayer, '--invoice', '00000000-0000-4000-8000-000000000000']);
    expect(r.code).toBe(4);
    expect(r.lines[0]).toMatch(
      new RegExp(`; check --taxpayer ${world.taxpayer} and --invoice 00000000-0000-4000-8000-000000000000, or whether the API serves `),
    );
  });

  it('5: a rate-limit wait over --max-wait keeps the checkpoint and says how to resume', async () => {
    world.recreate({ limit: 2, windowSeconds: 3600 });
    writeFileSync(dir.file('x.ndjson'), YESTERDAY);
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--cursor',
      '--items-per-page',
      '10',
      '--max-wait',
      '30',
      '--out',
      'x.ndjson',
    ]);
    expect(r.code).toBe(5);
    const last = r.lines.at(-1)!;
    expect(last).toMatch(
      /^collections: the rate limit of \/taxpayers\/\S+\/invoices resets in 3600 s, longer than the longest wait allowed \(30 s\); resume with: collections invoices .*--out x\.ndjson .*--resume$/,
    );
    expect(canaryFree(r.stderr)).toBe(true);
    expect(r.lines.filter((l) => !/rate limit reached|resuming at/.test(l))).toEqual([last]);
    const cp = JSON.parse(dir.read('x.ndjson.checkpoint.json').toString()) as { items: number; pages: number };
    expect(cp.items).toBe(20);
    expect(cp.pages).toBe(2);
    expect(dir.read('x.ndjson').toString()).toBe(YESTERDAY);
  });

  it('6: a page that is always 503: exit 6 after --retries, earlier pages in the checkpoint, yesterday untouched', async () => {
    world.recreate({ faults: [{ kind: 'status', status: 503, pages: 3 }] });
    writeFileSync(dir.file('x.csv'), YESTERDAY);
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--items-per-page',
      '10',
      '--retries',
      '2',
      '--concurrency',
      '1',
      '--out',
      'x.csv',
    ]);
    expect(r.code).toBe(6);
    const errors = r.lines.filter((l) => !/retry \d+ in/.test(l));
    expectOneErrorLine(errors, /503.*resume with: .*--resume$/);
    expect(r.lines.filter((l) => /retry \d+ in/.test(l))).toHaveLength(2);
    const cp = JSON.parse(dir.read('x.csv.checkpoint.json').toString()) as { items: number };
    expect(cp.items).toBe(20);
    expect(dir.read('x.csv').toString()).toBe(YESTERDAY);
  });

  it('6: a hydra:next to another origin: exit 6, the other origin receives nothing', async () => {
    world.recreate({ faults: [{ kind: 'foreign-next', url: 'http://evil.example' }] });
    const r = await runInProcess(world, dir, ['entities', '--items-per-page', '10', '--out', 'e.ndjson']);
    expect(r.code).toBe(6);
    expectOneErrorLine(r.lines, /evil\.example|origin/);
    expect(r.t.fetched.every((u) => u.startsWith('http://127.0.0.1:9/'))).toBe(true);
  });

  it.each([
    ['a folder', (d: TempDir) => (mkdirSync(d.file('out.ndjson')), 'out.ndjson'), /is a folder/],
    ['a file as folder', (d: TempDir) => (writeFileSync(d.file('plain'), 'x'), 'plain/out.ndjson'), /plain is a file, not a folder$/],
  ])('7: --out is %s: zero requests', async (_name, make, pattern) => {
    const out = make(dir);
    const r = await runInProcess(world, dir, ['entities', '--out', out]);
    expect(r.code).toBe(7);
    expectOneErrorLine(r.lines, pattern);
    expect(world.sandbox.requests()).toHaveLength(0);
    expect(r.t.fetched).toHaveLength(0);
  });

  it('0: the missing folders of --out and --manifest are made before the first request', async () => {
    const r = await runInProcess(world, dir, ['entities', '--out', 'dry/invoices.csv', '--manifest', 'm/n/run.json', '-q']);
    expect(r.code).toBe(0);
    const manifest = JSON.parse(dir.read('m/n/run.json').toString()) as { outputs: Array<{ file: string; items: number }> };
    expect(manifest.outputs).toMatchObject([{ file: '../../dry/invoices.csv', items: 25 }]);
    expect(dir.has('dry/invoices.csv')).toBe(true);
  });

  it.skipIf(!existsSync('/proc/self'))('7: an unwritable path (/proc, refused even to root): zero requests', async () => {
    const r = await runInProcess(world, dir, ['entities', '--out', '/proc/collections-export.ndjson']);
    expect(r.code).toBe(7);
    expectOneErrorLine(r.lines, /^collections: cannot write \/proc\/collections-export\.ndjson: /);
    expect(world.sandbox.requests()).toHaveLength(0);
  });

  it.skipIf(process.getuid?.() === 0)('7: a read-only folder: zero requests, yesterday untouched', async () => {
    mkdirSync(dir.file('ro'));
    writeFileSync(dir.file('ro/x.csv'), YESTERDAY);
    chmodSync(dir.file('ro'), 0o555);
    try {
      const r = await runInProcess(world, dir, ['entities', '--out', 'ro/x.csv']);
      expect(r.code).toBe(7);
      expectOneErrorLine(r.lines, /not writable/);
      expect(world.sandbox.requests()).toHaveLength(0);
      expect(readFileSync(dir.file('ro/x.csv'), 'utf8')).toBe(YESTERDAY);
    } finally {
      chmodSync(dir.file('ro'), 0o755);
    }
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i, the request in flight abandoned, checkpoint of the pages written, hint without the key', async (signal, code) => {
    let calls = 0;
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '7', '--out', 'x.json'], {
      onContext: (t) => {
        const inner = t.ctx.fetch;
        t.ctx.fetch = async (input, init) => {
          if (++calls === 3) t.raise(signal);
          return inner(input, init);
        };
      },
    });
    expect(r.code).toBe(code);
    expectOneErrorLine(
      r.lines,
      new RegExp(
        `^collections: interrupted by ${signal}; checkpoint kept; resume with: collections invoices --taxpayer ${world.taxpayer} --cursor --items-per-page 7 --out x\\.json --base-url http://127\\.0\\.0\\.1:9 --resume$`,
      ),
    );
    const cp = JSON.parse(dir.read('x.json.checkpoint.json').toString()) as { pages: number; items: number; bytes: number };
    // Raised while page 3 was in flight: pages 1-2 are written and checkpointed, page 3 is not.
    expect(cp.pages).toBe(2);
    expect(cp.items).toBe(14);
    expect(dir.read('x.json.part').length).toBeGreaterThanOrEqual(cp.bytes);
    expect(dir.has('x.json')).toBe(false);
    expect(canaryFree(dir.read('x.json.checkpoint.json'))).toBe(true);
  });

  it('a second Ctrl-C exits at once (forceExit 130)', async () => {
    world.recreate({ latencyMs: 10_000 });
    let calls = 0;
    const r = await runInProcess(world, dir, ['entities', '--items-per-page', '5', '--concurrency', '1', '--out', 'e.ndjson'], {
      onContext: (t) => {
        const inner = t.ctx.fetch;
        t.ctx.fetch = async (input, init) => {
          if (++calls === 2) {
            t.raise('SIGINT');
            world.clock.advance(SIGNAL_ECHO_MS + 1);
            t.raise('SIGINT');
            expect(t.forcedExits).toEqual([130]);
          }
          return inner(input, init);
        };
      },
    });
    expect(r.t.forcedExits).toEqual([130]);
    expect(r.lines[0]).toMatch(
      /^collections: interrupted again by SIGINT; stopped at once; checkpoint kept; resume with: collections entities .*--resume$/,
    );
    expect(canaryFree(r.stderr)).toBe(true);
  });

  it('a repeat of the signal within milliseconds is an echo (when-exit re-raises), not a second Ctrl-C', async () => {
    let calls = 0;
    const r = await runInProcess(world, dir, ['entities', '--items-per-page', '5', '--concurrency', '1', '--out', 'e.ndjson'], {
      onContext: (t) => {
        const inner = t.ctx.fetch;
        t.ctx.fetch = async (input, init) => {
          if (++calls === 2) {
            t.raise('SIGTERM');
            t.raise('SIGTERM');
          }
          return inner(input, init);
        };
      },
    });
    expect(r.t.forcedExits).toEqual([]);
    expect(r.code).toBe(143);
    expectOneErrorLine(r.lines, /^collections: interrupted by SIGTERM; checkpoint kept; resume with: /);
    // The listener stays after the export so a late echo cannot kill the process before it exits.
    r.t.raise('SIGTERM');
    expect(r.t.forcedExits).toEqual([]);
  });
});

describe("yesterday's file", () => {
  it('is replaced only by a complete export', async () => {
    writeFileSync(dir.file('x.ndjson'), YESTERDAY);
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson']);
    expect(r.code).toBe(0);
    expect(readFileSync(dir.file('x.ndjson'), 'utf8').split('\n')).toHaveLength(61);
  });
});
