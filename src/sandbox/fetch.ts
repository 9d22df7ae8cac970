/**
 * An in-process `fetch` backed by a sandbox: no socket, same clock as the client, and the network
 * faults acted out the way undici's fetch reports them (a rejected promise with
 * `TypeError('fetch failed')` and a coded cause; a body stream that errors with
 * `TypeError('terminated')`; a body that drips; a promise that never settles until aborted).
 */
import type { FetchLike } from '../context.js';
import { abortReason, type Clock } from '../time/clock.js';
import type { Sandbox, SandboxReply } from './app.js';

/** A request that reached an origin other than the sandbox's (it never reaches the sandbox). */
export interface ForeignRequest {
  method: string;
  url: string;
  /** Request headers, lower-case names (tests check that `x-api-key` is absent). */
  headers: Record<string, string>;
}

/** Options of {@link createSandboxFetch}. */
export interface SandboxFetchOptions {
  /**
   * The sandbox's origin, e.g. `http://sandbox.test`. Requests to any other origin are recorded in
   * {@link SandboxFetch.foreignRequests} and fail like a refused connection. Without it, every
   * origin is the sandbox.
   */
  origin?: string;
}

/** A {@link FetchLike} plus what it saw of other origins. */
export type SandboxFetch = FetchLike & {
  /** Requests addressed to other origins, oldest first. */
  readonly foreignRequests: ForeignRequest[];
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The error undici's fetch rejects with when the connection fails (`err.cause.code` says how). */
function fetchFailed(code: string, message: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
}

/** Rejects with the signal's reason as soon as it aborts; otherwise settles like `promise`. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** A body that yields `head`, then fails the way undici reports a reset mid-body. */
function resetMidBodyStream(head: Buffer): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.length > 0) controller.enqueue(new Uint8Array(head));
    },
    pull(controller) {
      controller.error(new TypeError('terminated', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }));
    },
  });
}

/** A body that yields `all` in chunks of `chunkBytes`, sleeping `intervalMs` on `clock` between them. */
function dripStream(
  all: Buffer,
  drip: { chunkBytes: number; intervalMs: number },
  clock: Clock,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= all.length) {
        controller.close();
        return;
      }
      if (offset > 0) {
        try {
          await clock.sleep(drip.intervalMs, signal);
        } catch (err) {
          controller.error(err);
          return;
        }
      }
      controller.enqueue(new Uint8Array(all.subarray(offset, offset + drip.chunkBytes)));
      offset += drip.chunkBytes;
    },
  });
}

/**
 * The `Response` of a sandbox reply, with its network fault acted out: a refused or reset
 * connection rejects with undici's `fetch failed`, a hang waits for the abort, a reset mid-body or
 * a drip shapes the body stream.
 */
async function toResponse(sandbox: Sandbox, reply: SandboxReply, url: URL, signal: AbortSignal | undefined): Promise<Response> {
  const net = reply.network;
  let body: ReadableStream<Uint8Array> | Buffer | null = reply.body;
  if (net?.kind === 'refuse') throw fetchFailed('ECONNREFUSED', `connect ECONNREFUSED ${url.host}`);
  if (net?.kind === 'reset-before-headers') throw fetchFailed('ECONNRESET', 'read ECONNRESET');
  if (net?.kind === 'hang') {
    await new Promise<never>((_, reject) => {
      signal?.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
    });
  }
  if (net?.kind === 'reset-mid-body') body = resetMidBodyStream(reply.body.subarray(0, net.afterBytes));
  else if (net?.kind === 'drip') body = dripStream(reply.body, net, sandbox.clock, signal);
  const nullBody = reply.status === 204 || reply.status === 304;
  const response = new Response(nullBody ? null : body, { status: reply.status, headers: reply.headers });
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

/**
 * Creates a `fetch` that answers from `sandbox.reply()`. Honours `init.signal` (an abort rejects
 * with the signal's reason, before or after the headers), `redirect: 'manual'` (a 3xx comes back
 * as is) and `redirect: 'error'`; the default `follow` follows up to 20 redirects, to whatever
 * origin they name, as undici does (undici #4917), which is why the client must not use it.
 */
export function createSandboxFetch(sandbox: Sandbox, options: SandboxFetchOptions = {}): SandboxFetch {
  const foreignRequests: ForeignRequest[] = [];
  const origin = options.origin === undefined ? undefined : new URL(options.origin).origin;

  const once = async (url: URL, init: RequestInit, headers: Headers): Promise<Response> => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    const method = (init.method ?? 'GET').toUpperCase();
    if (origin !== undefined && url.origin !== origin) {
      const seen: Record<string, string> = {};
      headers.forEach((v, k) => (seen[k] = v));
      foreignRequests.push({ method, url: url.href, headers: seen });
      throw fetchFailed('ECONNREFUSED', `connect ECONNREFUSED ${url.host}`);
    }
    const reply = await raceAbort(sandbox.reply({ method, url: url.href, header: (n) => headers.get(n) }, signal), signal);
    return toResponse(sandbox, reply, url, signal);
  };

  const fetchLike = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    let url = new URL(String(input));
    const headers = new Headers(init.headers);
    for (let hops = 0; ; hops++) {
      const response = await once(url, init, headers);
      if (!REDIRECTS.has(response.status) || init.redirect === 'manual') return response;
      if (init.redirect === 'error') throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
      const location = response.headers.get('location');
      if (location === null) return response;
      if (hops >= 20) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
      url = new URL(location, url);
    }
  };
  return Object.assign(fetchLike, { foreignRequests });
}
