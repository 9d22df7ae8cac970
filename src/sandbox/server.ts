/**
 * node:http adapter of the sandbox (the sandbox is a function first, see app.ts; this only
 * moves bytes). Keep-alive, Content-Length bodies, and the network faults done for real:
 * the socket destroyed before the headers or mid-body, a request never answered, a slow drip.
 * Also a tiny "evil origin" that records whatever reaches it, to prove the API key never does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox, SandboxReply } from './app.js';

/** Options of {@link startSandboxServer}. */
export interface SandboxServerOptions {
  /** Interface to listen on (default `127.0.0.1`: loopback only). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787` (no trailing slash). */
  url: string;
  port: number;
  /** Stops listening and destroys every open connection (hung and dripping ones included). */
  close(): Promise<void>;
}

function baseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

function headerOf(req: IncomingMessage): (name: string) => string | null {
  return (name) => {
    const v = req.headers[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  };
}

/** Writes `chunk` and resolves once it is handed to the socket. */
function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}

async function send(sandbox: Sandbox, reply: SandboxReply, req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const net = reply.network;
  if (net?.kind === 'refuse' || net?.kind === 'reset-before-headers') {
    req.socket.destroy();
    return;
  }
  if (net?.kind === 'hang') return; // never answer; close() or the client ends the socket
  const headers = { ...reply.headers, 'Content-Length': String(reply.body.length) };
  if (net?.kind === 'reset-mid-body') {
    res.writeHead(reply.status, headers);
    await write(res, reply.body.subarray(0, net.afterBytes));
    req.socket.destroy();
    return;
  }
  if (net?.kind === 'drip') {
    res.writeHead(reply.status, headers);
    for (let offset = 0; offset < reply.body.length; offset += net.chunkBytes) {
      if (offset > 0) await sandbox.clock.sleep(net.intervalMs, signal);
      if (res.destroyed) return;
      await write(res, reply.body.subarray(offset, offset + net.chunkBytes));
    }
    res.end();
    return;
  }
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

/**
 * Serves a sandbox over HTTP/1.1 on `host:port` (default 127.0.0.1, any free port).
 * @throws the listen error (e.g. `EADDRINUSE`) when the port is taken
 */
export async function startSandboxServer(sandbox: Sandbox, options: SandboxServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer({ keepAlive: true }, (req, res) => {
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    req.resume();
    const url = `http://${req.headers.host ?? baseUrl(host, port).slice(7)}${req.url ?? '/'}`;
    sandbox
      .reply({ method: req.method ?? 'GET', url, header: headerOf(req) }, controller.signal)
      .then((reply) => send(sandbox, reply, req, res, controller.signal))
      .catch((err: unknown) => {
        if (controller.signal.aborted || res.headersSent) {
          res.destroy();
          return;
        }
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: `sandbox error: ${(err as Error).message}` }));
      });
  });
  server.keepAliveTimeout = 10_000;
  const port = await listen(server, host, options.port ?? 0);
  return { url: baseUrl(host, port), port, close: closer(server) };
}

/** One request seen by the recorder. */
export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
}

/** A running recorder; see {@link startRecorderServer}. */
export interface RecorderServer extends RunningServer {
  /** Everything that reached it, oldest first. */
  readonly requests: RecordedRequest[];
}

/**
 * Starts an "evil origin" on loopback that records every request and answers an empty collection
 * (so a client that wrongly follows a link there does not fail for another reason).
 */
export async function startRecorderServer(options: SandboxServerOptions = {}): Promise<RecorderServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers } });
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/ld+json' });
    res.end('{"@context":"/contexts/Error","@type":"hydra:Collection","hydra:totalItems":0,"hydra:member":[]}');
  });
  const port = await listen(server, host, options.port ?? 0);
  return { url: baseUrl(host, port), port, requests, close: closer(server) };
}
