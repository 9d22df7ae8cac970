/**
 * Issue 11, item 8: proxies from the environment (undici's EnvHttpProxyAgent in
 * http/transport.ts). A tiny loopback proxy (node:http: absolute-form requests forwarded, CONNECT
 * tunnelled) stands between the tool and a served sandbox; the built bin is spawned with
 * `HTTP_PROXY` pointing at it, and in-process runs check that the variables come from the
 * Context's environment, that `NO_PROXY` bypasses the proxy and that a bad proxy URL is exit 2.
 */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createTransportFetch } from '../../src/http/transport.js';
import { createVirtualClock } from '../../src/time/clock.js';
import { requireBuild, runCli } from '../helpers/cli.js';
import { createTestContext } from '../helpers/context.js';
import { CANARY, canaryFree, cliEnv, idsOfNdjson, removeTempDirs, serveWorld, tempDir, type ServedWorld } from '../helpers/world.js';

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

/** Starts a forwarding HTTP proxy on 127.0.0.1. */
async function startProxy(): Promise<LoopbackProxy> {
  const seen: string[] = [];
  const keys: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const key = req.headers['x-api-key'];
    keys.push(Array.isArray(key) ? key[0] : key);
    const target = new URL(req.url ?? '');
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
    const upstream = connect(Number(port), host, () => {
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
  expect(proxy.seen.length).toBeGreaterThan(0);
  for (const line of proxy.seen) expect(line === `CONNECT ${host}` || line.startsWith(`GET ${base}/`)).toBe(true);
  for (const key of proxy.keys) expect(key).toBe(CANARY);
}

describe('proxies from the environment (issue 11, item 8)', () => {
  it('the built bin goes through HTTP_PROXY and completes the export', async () => {
    const w = await world();
    const proxy = await startProxy();
    const dir = tempDir('collections-proxy-');
    const r = await runCli(['invoices', '--taxpayer', w.taxpayer, '--base-url', w.base, '--out', 'out.ndjson', '--quiet'], {
      cwd: dir.path,
      env: cliEnv(dir, proxyEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '' })),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(idsOfNdjson(dir.read('out.ndjson').toString())).toHaveLength(60);
    expect(readdirSync(dir.path).sort()).toEqual(['config', 'out.ndjson', 'out.ndjson.manifest.json']);
    expectOnlyTowards(proxy, w.base);
    expect(canaryFree(r.stdout, r.stderr, dir.read('out.ndjson'))).toBe(true);
  });

  it("reads the variables from the Context's environment, and NO_PROXY bypasses the proxy", async () => {
    const w = await world();
    const proxy = await startProxy();
    for (const [env, viaProxy] of [
      [{ http_proxy: proxy.url }, true],
      [{ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, false],
      [{}, false],
    ] as const) {
      proxy.seen.length = 0;
      const dir = tempDir('collections-proxy-');
      const t = createTestContext({
        fetch: createTransportFetch({ env }),
        clock: createVirtualClock(),
        cwd: dir.path,
        configDir: dir.file('config'),
        env,
      });
      const code = await main(['invoices', '--taxpayer', w.taxpayer, '--base-url', w.base, '--api-key', CANARY, '--quiet'], t.ctx);
      expect(code).toBe(0);
      expect(idsOfNdjson(t.stdout.text())).toHaveLength(60);
      if (viaProxy) expectOnlyTowards(proxy, w.base);
      else expect(proxy.seen).toEqual([]);
    }
  });

  it('a proxy variable that is not a URL is a usage error (exit 2), nothing sent', async () => {
    const w = await world();
    const dir = tempDir('collections-proxy-');
    const before = w.sandbox.requests().length;
    const r = await runCli(['invoices', '--taxpayer', w.taxpayer, '--base-url', w.base, '--out', 'out.ndjson', '--quiet'], {
      cwd: dir.path,
      env: cliEnv(dir, proxyEnv({ HTTP_PROXY: 'not a url' })),
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^collections: the proxy of HTTP_PROXY or HTTPS_PROXY \(or their lower-case forms\) is not a valid URL; /);
    expect(w.sandbox.requests().length).toBe(before);
    expect(readdirSync(dir.path).filter((n) => !/^(config|out\.ndjson\.(part|checkpoint\.json))$/.test(n))).toEqual([]);
    expect(dir.has('out.ndjson')).toBe(false);
  });
});
