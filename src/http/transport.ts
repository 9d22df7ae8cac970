/** The only module that imports undici: the rest of the code depends on `FetchLike` alone. */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { FetchLike } from '../context.js';
import { HostileResponseError } from '../errors.js';
import { proxyFor, ProxyFailure, type ProxyEnv, type ProxyRoute } from './proxy.js';

// undici's index loads every part (WebSocket, cache, mock) at start-up; these paths are the same in
// every undici 7.
const require = createRequire(import.meta.url);
const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
const { fetch: undiciFetch } = require('undici/lib/web/fetch/index.js') as Pick<typeof Undici, 'fetch'>;
const { Response: UndiciResponse } = require('undici/lib/web/fetch/response.js') as Pick<typeof Undici, 'Response'>;

// undici compiles its HTTP parser (llhttp, WebAssembly) on the main thread at its first connection,
// and V8 each function again on its first call (test/bench/results.md, «Start-up: the HTTP parser
// compiled ahead»); compiled now on V8's background threads, the bytes are in V8's module cache by
// then. Only undici's first choice (its SIMD build); a failure is undici's to meet. (This project's
// TypeScript libraries declare no `WebAssembly`: its one call is typed here.)
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> } }).WebAssembly;
if (process.arch !== 'ppc64' && process.env.UNDICI_NO_WASM_SIMD !== '1') {
  wasm.compile(require('undici/lib/llhttp/llhttp_simd-wasm.js') as Buffer).catch(() => undefined);
}
type Dispatcher = Undici.Dispatcher;

export interface TransportOptions {
  /** The Context's, not `process.env`; default none, i.e. no proxy. */
  env?: ProxyEnv;
}

/** 16 sockets per origin (offset-mode concurrency never needs more), idle ones kept 10 s. */
const AGENT_OPTIONS = { connections: 16, keepAliveTimeout: 10_000, pipelining: 1 };

/**
 * Decompressed bytes per byte received on the socket: fetch decompresses transparently, so a few
 * kilobytes on the wire can become gigabytes in memory (a "zip bomb").
 */
const MAX_COMPRESSION_RATIO = 100;
/** bytes: small pages compress well. */
const RATIO_FLOOR_BYTES = 1024 * 1024;

interface WireCount {
  bytes: number;
}

/**
 * `dispatcher` counting the bytes of one request's response. fetch's handler is legacy-style and
 * stays so (a new-style handler, or an interceptor in `compose`, makes undici turn every response's
 * raw headers into an object and back): an object inheriting it overrides `onData` alone.
 */
function countingWireBytes(dispatcher: Dispatcher, count: WireCount): Dispatcher {
  const dispatch: Dispatcher['dispatch'] = (opts, handler) => {
    const { onData } = handler as { onData: (this: unknown, chunk: Buffer) => boolean };
    const onDataCounted = function (this: unknown, chunk: Buffer): boolean {
      count.bytes += chunk.byteLength;
      return onData.call(this, chunk);
    };
    return dispatcher.dispatch(opts, Object.create(handler, { onData: { value: onDataCounted } }) as typeof handler);
  };
  return Object.create(dispatcher, { dispatch: { value: dispatch } }) as Dispatcher;
}

/** Errors with a {@link HostileResponseError} (exit 6, not retried), which cancels the body. */
function guardCompressionRatio(wire: WireCount, what: string): TransformStream<Uint8Array, Uint8Array> {
  let decoded = 0;
  return new TransformStream({
    transform(chunk, controller) {
      decoded += chunk.byteLength;
      if (decoded > RATIO_FLOOR_BYTES && decoded > MAX_COMPRESSION_RATIO * Math.max(1, wire.bytes)) {
        throw new HostileResponseError(
          `the response to ${what} decompresses to more than ${MAX_COMPRESSION_RATIO} times its size (a compression bomb?)`,
          { hint: 'the server sent a body no collection page needs; not retried' },
        );
      }
      controller.enqueue(chunk);
    },
  });
}

/** Fetch standard, "null body status". */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * undici's fetch over keep-alive dispatchers, direct or a `ProxyAgent` per proxy (an https
 * request is tunnelled with `CONNECT`, so the proxy sees only the host). Redirects are left to the
 * caller (`redirect: 'manual'`), so no redirect carries the key to another origin (undici #4917).
 * @throws {UsageError} (exit 2), per request, when the proxy variable of its scheme is not a proxy URL
 */
export function createTransportFetch(options: TransportOptions = {}): FetchLike {
  const env = options.env ?? {};
  const direct = new Agent(AGENT_OPTIONS);
  const proxies = new Map<string, Dispatcher>();
  const dispatcherOf = (route: ProxyRoute | undefined): Dispatcher => {
    if (route === undefined) return direct;
    let agent = proxies.get(route.url.href);
    if (agent === undefined) {
      // The whole index: it adds the `connect` a tunnel needs to every dispatcher.
      const { ProxyAgent } = require('undici') as typeof Undici;
      agent = new ProxyAgent({ ...AGENT_OPTIONS, uri: route.url.href });
      proxies.set(route.url.href, agent);
    }
    return agent;
  };
  // The package's Response is a WHATWG Response but not the class of Node's global `Response` (Node
  // bundles its own copy of undici); FetchLike asks for the shape only, and no code tests `instanceof`.
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    const route = proxyFor(url, env);
    const wire: WireCount = { bytes: 0 };
    let res: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      res = await undiciFetch(url, { ...(init as object), dispatcher: countingWireBytes(dispatcherOf(route), wire) });
    } catch (err) {
      throw route === undefined || init?.signal?.aborted === true ? err : new ProxyFailure(route, err);
    }
    if (res.body === null || NULL_BODY_STATUSES.has(res.status) || !res.headers.has('content-encoding')) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a structural Response on purpose, see above
      return res;
    }
    const body = res.body.pipeThrough(guardCompressionRatio(wire, `GET ${url.pathname}${url.search}`));
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a structural Response on purpose, see above
    return new UndiciResponse(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
