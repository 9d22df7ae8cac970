/**
 * Proxies from the environment (http/proxy.ts, http/transport.ts). A
 * tiny loopback proxy (node:http: absolute-form requests forwarded, CONNECT tunnelled) stands
 * between the tool and a served sandbox, which the tool names `sandbox.test` (only the proxy knows
 * where that is: loopback itself never goes through a proxy); the built bin is spawned with
 * `HTTP_PROXY` pointing at it, and in-process runs check that the variables come from the
 * Context's environment, that `NO_PROXY` and loopback bypass the proxy, that a bad proxy URL is
 * exit 2 only for the scheme it applies to, and that failures at the proxy name the proxy.
 */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createTransportFetch } from '../../src/http/transport.js';
import { createVirtualClock } from '../helpers/virtual-clock.js';
import { requireBuild, runCli } from '../helpers/cli.js';
import {
  createTestContext,
  CANARY,
  canaryFree,
  cliEnv,
  idsOfNdjson,
  removeTempDirs,
  serveWorld,
  tempDir,
  type ServedWorld,
} from '../helpers/world.js';

/** What the proxy was asked: `GET http://host:port/path` (forwarded) or `CONNECT host:port` (tunnelled). */
interface LoopbackProxy {
  url: string;
  seen: string[];
  /** The `X-Api-Key` header of each forwarded request (a tunnel's are not visible). */
  keys: Array<string | undefined>;
  server: Server;
}

const open: Array<{ close(): Promise<void> }> = [];
beforeAll(requireBuild);
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

/** The name the tool gives the sandbox: not loopback, so requests to it go through the proxy, which maps it to 127.0.0.1. */
const PROXIED_HOST = 'sandbox.test';

/** A served world's base URL under {@link PROXIED_HOST}. */
const proxied = (base: string): string => base.replace('127.0.0.1', PROXIED_HOST);

/** Starts a forwarding HTTP proxy on 127.0.0.1. */
async function startProxy(): Promise<LoopbackProxy> {
  const seen: string[] = [];
  const keys: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const key = req.headers['x-api-key'];
    keys.push(Array.isArray(key) ? key[0] : key);
    const target = new URL(req.url ?? '');
    if (target.hostname === PROXIED_HOST) target.hostname = '127.0.0.1';
    const upstream = request(target, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host === PROXIED_HOST ? '127.0.0.1' : host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const proxy = { url: `http://127.0.0.1:${port}`, seen, keys, server };
  open.push({ close: () => new Promise<void>((r) => server.close(() => r()).closeAllConnections()) });
  return proxy;
}

async function world(): Promise<ServedWorld> {
  const w = await serveWorld();
  open.push(w);
  return w;
}

/** The environment without any proxy variable inherited from the developer's shell, then `extra`. */
function proxyEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const none = {
    HTTP_PROXY: undefined,
    http_proxy: undefined,
    HTTPS_PROXY: undefined,
    https_proxy: undefined,
    NO_PROXY: undefined,
    no_proxy: undefined,
  };
  return { ...none, ...extra };
}

/** Each proxy line names the sandbox's host and port, and nothing else. */
function expectOnlyTowards(proxy: LoopbackProxy, base: string): void {
  const { host } = new URL(base);
  expect(host).toMatch(/^sandbox\.test:/);
  expect(proxy.seen.length).toBeGreaterThan(0);
  for (const line of proxy.seen) expect(line === `CONNECT ${host}` || line.startsWith(`GET ${base}/`)).toBe(true);
  for (const key of proxy.keys) expect(key).toBe(CANARY);
}

/** A loopback port where nothing listens (listened on and closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Runs `args` in process through the real transport, with `env` as the Context's environment. */
async function runWithEnv(args: string[], env: Record<string, string | undefined>) {
  const dir = tempDir('collections-proxy-');
  const t = createTestContext({
    fetch: createTransportFetch({ env }),
    clock: createVirtualClock(),
    cwd: dir.path,
    configDir: dir.file('config'),
    env,
  });
  const code = await main([...args, '--api-key', CANARY, '--no-progress'], t.ctx);
  const stderr = t.stderr.text();
  return { code, stdout: t.stdout.text(), stderr, lines: stderr.trimEnd().split('\n'), dir };
}

describe('proxies from the environment (issue 11, item 8)', () => {
  it('the built bin goes through HTTP_PROXY and completes the export', async () => {
    const w = await world();
    const proxy = await startProxy();
    const dir = tempDir('collections-proxy-');
    const r = await runCli(['invoices', '--taxpayer', w.taxpayer, '--base-url', proxied(w.base), '--out', 'out.ndjson', '--quiet'], {
      cwd: dir.path,
      env: cliEnv(dir, proxyEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '' })),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`collections: warning: ${proxied(w.base)} is plain http: the API key will be sent unencrypted; use https\n`);
    expect(idsOfNdjson(dir.read('out.ndjson').toString())).toHaveLength(60);
    expect(readdirSync(dir.path).sort()).toEqual(['config', 'out.ndjson', 'out.ndjson.manifest.json']);
    expectOnlyTowards(proxy, proxied(w.base));
    expect(canaryFree(r.stdout, r.stderr, dir.read('out.ndjson'))).toBe(true);
  });

  it("reads the variables from the Context's environment; NO_PROXY and loopback bypass the proxy", async () => {
    const w = await world();
    const proxy = await startProxy();
    for (const [env, base, viaProxy] of [
      [{ http_proxy: proxy.url }, proxied(w.base), true],
      [{ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, w.base, false],
      [{ HTTP_PROXY: proxy.url }, w.base, false],
      [{ HTTP_PROXY: proxy.url }, w.base.replace('127.0.0.1', 'localhost'), false],
      [{}, w.base, false],
    ] as const) {
      proxy.seen.length = 0;
      const r = await runWithEnv(['invoices', '--taxpayer', w.taxpayer, '--base-url', base, '--quiet'], env);
      expect(r.code).toBe(0);
      expect(idsOfNdjson(r.stdout)).toHaveLength(60);
      if (viaProxy) expectOnlyTowards(proxy, base);
      else expect(proxy.seen).toEqual([]);
    }
  });

  it('a proxy variable that is not a URL is a usage error (exit 2) naming it, not quoting it; nothing sent, nothing touched', async () => {
    const w = await world();
    const dir = tempDir('collections-proxy-');
    const before = w.sandbox.requests().length;
    const r = await runCli(['invoices', '--taxpayer', w.taxpayer, '--base-url', w.base, '--out', 'out.ndjson', '--quiet'], {
      cwd: dir.path,
      env: cliEnv(dir, proxyEnv({ HTTP_PROXY: 'not a url' })),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'collections: HTTP_PROXY is not a proxy URL (http://host:port or https://host:port); set HTTP_PROXY to a URL such as http://proxy.example:3128, or unset it\n',
    );
    expect(w.sandbox.requests().length).toBe(before);
    expect(readdirSync(dir.path).filter((n) => n !== 'config')).toEqual([]);
  });
});

describe('proxy errors name the proxy; variables of the other scheme are not read (issue 27)', () => {
  it('HTTP_PROXY at a closed port: the one line names the proxy as the proxy (not the API, not its password), exit 6 at once', async () => {
    const w = await world();
    const port = await closedPort();
    const r = await runWithEnv(['entities', '--base-url', proxied(w.base)], proxyEnv({ HTTP_PROXY: `http://user:s3cret@127.0.0.1:${port}` }));
    expect(r.code).toBe(6);
    expect(r.lines.at(-1)).toBe(
      `collections: ECONNREFUSED: connection refused by the proxy http://127.0.0.1:${port} (HTTP_PROXY), before the API answered anything in this run: ` +
        `the proxy setting is most likely wrong; check HTTP_PROXY, or list ${PROXIED_HOST} in NO_PROXY to go direct`,
    );
    expect(r.stderr).not.toContain('retry');
    expect(r.stderr).not.toContain('s3cret');
    expect(canaryFree(r.stdout, r.stderr)).toBe(true);
  });

  it('HTTPS_PROXY=notaurl is not read for an http:// base URL', async () => {
    const w = await world();
    const r = await runWithEnv(['invoices', '--taxpayer', w.taxpayer, '--base-url', w.base, '--quiet'], proxyEnv({ HTTPS_PROXY: 'notaurl' }));
    expect(r.code).toBe(0);
    expect(idsOfNdjson(r.stdout)).toHaveLength(60);
  });

  it('a proxy that refuses the tunnel is named, with the status it answered', async () => {
    const server = createServer(() => undefined);
    server.on('connect', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    open.push({ close: () => new Promise<void>((r) => server.close(() => r()).closeAllConnections()) });
    const { port } = server.address() as { port: number };
    const r = await runWithEnv(
      ['entities', '--base-url', 'https://api.example.test', '--retries', '0'],
      proxyEnv({ HTTPS_PROXY: `127.0.0.1:${port}` }),
    );
    expect(r.code).toBe(6);
    expect(r.lines.at(-1)).toMatch(
      new RegExp(`refused the tunnel to https://api\\.example\\.test \\(HTTP 403\\); check HTTPS_PROXY, or list api\\.example\\.test in NO_PROXY`),
    );
    expect(r.lines.at(-1)).toContain(`the proxy http://127.0.0.1:${port} (HTTPS_PROXY)`);
  });
});
