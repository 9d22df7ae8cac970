/**
 * Issue 11, item 5: bounded against a hostile server. Each case runs a whole export in process
 * (main() with a captured Context on a virtual clock) through the production transport (undici,
 * http/transport.ts) against a loopback node:http server that misbehaves on purpose, and asserts
 * the exit code (6), the one-line message, that nothing outside the tool's own files was touched
 * and that the output is absent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { recordHostile } from '../faults/harness.js';
import { main } from '../../src/cli/main.js';
import { createTransportFetch } from '../../src/http/transport.js';
import { createVirtualClock } from '../helpers/virtual-clock.js';
import { BIN, requireBuild, runCommand } from '../helpers/cli.js';
import { createTestContext, CANARY, canaryFree, cliEnv, removeTempDirs, tempDir, type TempDir } from '../helpers/world.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r).closeAllConnections())));
});
afterAll(removeTempDirs);

/** Serves `handler` on 127.0.0.1 (n = 1 for the first request); returns the base URL and the request log. */
async function hostile(handler: Handler): Promise<{ base: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res, requests.length);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, requests };
}

/** The path of the export every case runs. */
const PATH = '/taxpayers/AAA010101AAA/invoices';
const JSONLD = { 'content-type': 'application/ld+json' };

/** A Hydra page with `ids` as items and `next` as its next link. */
function page(ids: number[], next?: string): string {
  return JSON.stringify({ member: ids.map((id) => ({ id })), totalItems: 99, ...(next ? { view: { next } } : {}) });
}

interface Outcome {
  code: number;
  lines: string[];
  stderr: string;
  dir: TempDir;
}

/** Runs `collections invoices --taxpayer AAA010101AAA --out out.ndjson ...args` in a fresh temp folder holding a canary file. */
async function run(base: string, args: string[] = []): Promise<Outcome> {
  const dir = tempDir('collections-hostile-');
  const t = createTestContext({ fetch: createTransportFetch(), clock: createVirtualClock(), cwd: dir.path, configDir: dir.file('config'), env: {} });
  const argv = ['invoices', '--taxpayer', 'AAA010101AAA', '--out', 'out.ndjson', '--quiet', '--base-url', base, '--api-key', CANARY, ...args];
  const code = await main(argv, t.ctx);
  const stderr = t.stderr.text();
  expect(canaryFree(stderr, t.stdout.text())).toBe(true);
  return { code, stderr, lines: stderr.split('\n').filter((l) => l !== ''), dir };
}

/** Exit 6 with one line matching `message`, no output file and only the tool's own files. */
function expectStopped(o: Outcome, message: RegExp): void {
  const own = readdirSync(o.dir.path).every((name) => /^(config|out\.ndjson\.(part|checkpoint\.json))$/.test(name));
  recordHostile({
    exit: o.code,
    message: o.lines.join(' / '),
    files: own ? 'only the tool’s own' : 'others',
    output: o.dir.has('out.ndjson') ? 'present' : 'absent',
  });
  expect(o.code).toBe(6);
  expect(o.lines).toHaveLength(1);
  expect(o.lines[0]).toMatch(message);
  expect(o.dir.has('out.ndjson')).toBe(false);
  for (const name of readdirSync(o.dir.path)) expect(name).toMatch(/^(config|out\.ndjson\.(part|checkpoint\.json))$/);
}

/** A body that never ends: 64 KiB chunks as fast as the client reads them. */
const endless: Handler = (_req, res) => {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  res.writeHead(200, JSONLD);
  res.write('{"member":[');
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
};

describe('hostile server: bounds (issue 11, item 5)', () => {
  it.skipIf(!existsSync('/usr/bin/time'))('the built bin stops an endless body at 8 MiB with a small peak RSS', async () => {
    requireBuild();
    const { base } = await hostile(endless);
    const dir = tempDir('collections-hostile-');
    const args = [
      'invoices',
      '--taxpayer',
      'AAA010101AAA',
      '--out',
      'out.ndjson',
      '--quiet',
      '--cursor',
      '--base-url',
      base,
      '--max-body-size',
      '8MiB',
    ];
    const r = await runCommand('/usr/bin/time', ['-f', 'maxrss=%M', process.execPath, BIN, ...args], { cwd: dir.path, env: cliEnv(dir) });
    const lines = r.stderr.trimEnd().split('\n');
    const maxRssKiB = Number(/^maxrss=(\d+)$/.exec(lines.at(-1) ?? '')?.[1]);
    recordHostile({ memory: `peak RSS ${Math.round(maxRssKiB / 1024)} MiB (bound 200 MiB)` });
    expect(r.code).toBe(6);
    expect(lines[0]).toMatch(/^collections: the response to GET \/taxpayers\/AAA010101AAA\/invoices\?itemsPerPage=1000 is larger than 8 MiB/);
    expect(lines.length).toBeLessThanOrEqual(3); // the line, maybe time's "exit status" note, the RSS
    expect(maxRssKiB).toBeGreaterThan(0);
    expect(maxRssKiB).toBeLessThan(200 * 1024);
    expect(dir.has('out.ndjson')).toBe(false);
  });

  it('an endless chunked body stops at --max-body-size, with memory bounded', async () => {
    const { base, requests } = await hostile(endless);
    const before = process.memoryUsage().rss;
    const o = await run(base, ['--max-body-size', '8MiB', '--cursor']);
    const grown = process.memoryUsage().rss - before;
    recordHostile({ memory: `RSS grew ${Math.max(0, Math.round(grown / 1024 / 1024))} MiB (bound 96 MiB)` });
    expectStopped(
      o,
      /^collections: the response to GET \/taxpayers\/AAA010101AAA\/invoices\?itemsPerPage=1000 is larger than 8 MiB; raise --max-body-size/,
    );
    expect(requests).toHaveLength(1); // not retried
    expect(grown).toBeLessThan(96 * 1024 * 1024);
  });

  it('a gzip bomb stops at the compression-ratio limit long before the size limit', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"member":['), Buffer.alloc(32 * 1024 * 1024, 0x20), Buffer.from(']}')]));
    const { base, requests } = await hostile((_req, res) => {
      res.writeHead(200, { ...JSONLD, 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    const o = await run(base, ['--cursor']);
    expectStopped(
      o,
      /^collections: the response to GET \/taxpayers\/AAA010101AAA\/invoices\?itemsPerPage=1000 decompresses to more than 100 times its size/,
    );
    expect(requests).toHaveLength(1);
  });

  it('an honest gzip-compressed page still exports', async () => {
    const body = gzipSync(Buffer.from(page([1, 2, 3])));
    const { base } = await hostile((_req, res) => {
      res.writeHead(200, { ...JSONLD, 'content-encoding': 'gzip' });
      res.end(body);
    });
    const o = await run(base, ['--cursor']);
    expect(o.code).toBe(0);
    expect(o.dir.read('out.ndjson').toString()).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
  });

  it('JSON nested thousands of levels deep is refused before it is parsed, not retried', async () => {
    const deep = `{"member":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`;
    const { base, requests } = await hostile((_req, res) => {
      res.writeHead(200, JSONLD);
      res.end(deep);
    });
    const o = await run(base, ['--cursor']);
    expectStopped(o, /^collections: the page is JSON nested more than 64 levels deep \(GET \/taxpayers\/AAA010101AAA\/invoices\?itemsPerPage=1000\)/);
    expect(requests).toHaveLength(1);
  });

  it('empty pages that keep linking to a next one stop after 3 (offset mode; in cursor mode an empty page is the end)', async () => {
    const { base, requests } = await hostile((_req, res, n) => {
      res.writeHead(200, JSONLD);
      res.end(page([], `${PATH}?cursor=${n}`));
    });
    const o = await run(base, ['--concurrency', '1']);
    expectStopped(
      o,
      /^collections: the API sent 4 empty pages in a row that each link to a next one \(last: GET \/taxpayers\/AAA010101AAA\/invoices\?cursor=3\)/,
    );
    expect(requests).toHaveLength(4);
  });

  it('empty pages in offset mode within an announced range stop after 3 as well', async () => {
    const { base, requests } = await hostile((req, res) => {
      const n = Number(new URL(req.url ?? '', 'http://x').searchParams.get('page'));
      res.writeHead(200, JSONLD);
      res.end(
        JSON.stringify({ member: [], totalItems: 1e12, view: { next: `${PATH}?itemsPerPage=1000&page=${n + 1}`, last: `${PATH}?page=1000000000` } }),
      );
    });
    const o = await run(base, ['--concurrency', '2']);
    expectStopped(o, /^collections: the API sent 4 empty pages in a row/);
    expect(requests.length).toBeLessThanOrEqual(6);
  });

  it('a next link that only reorders the query is a loop', async () => {
    const { base, requests } = await hostile((_req, res, n) => {
      res.writeHead(200, JSONLD);
      res.end(page([n], n === 1 ? `${PATH}?cursor=a&itemsPerPage=1000` : `${PATH}?itemsPerPage=1000&cursor=a`));
    });
    const o = await run(base, ['--cursor']);
    expectStopped(
      o,
      /^collections: the API's hydra:next link loops back to a page already fetched \(\/taxpayers\/AAA010101AAA\/invoices\?itemsPerPage=1000&cursor=a\)/,
    );
    expect(requests).toEqual([`${PATH}?itemsPerPage=1000`, `${PATH}?cursor=a&itemsPerPage=1000`]);
  });

  it('a body that drips forever ends at the per-attempt deadline (headers and whole body)', async () => {
    const { base } = await hostile((_req, res) => {
      res.writeHead(200, JSONLD);
      res.write('{"member":[');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 20);
    });
    const started = performance.now();
    const o = await run(base, ['--cursor', '--timeout', '0.3', '--retries', '0']);
    expectStopped(
      o,
      /^collections: the API could not be read \(GET \/taxpayers\/AAA010101AAA\/invoices\?itemsPerPage=1000\): timeout after 300 ms while reading the body/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it.each(['1x', '12', '1TiB', 'constructor'])('--max-body-size %s is a usage error (exit 2), nothing sent', async (value) => {
    const { base, requests } = await hostile((_req, res) => res.end());
    const o = await run(base, ['--max-body-size', value]);
    expect(o.code).toBe(2);
    expect(o.lines[0]).toMatch(/--max-body-size must be a size from 1024 bytes to 512MiB/);
    expect(requests).toHaveLength(0);
    expect(readdirSync(o.dir.path).filter((n) => n !== 'config')).toEqual([]);
  });
});
