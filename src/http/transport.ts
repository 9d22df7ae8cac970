/**
 * The only module that imports undici (so the rest of the code depends on `FetchLike` alone): one
 * shared keep-alive dispatcher, which goes through the proxies of the environment, and undici's
 * fetch bound to it, with the compression-ratio guard (compression-guard.ts) on every body.
 */
import { EnvHttpProxyAgent, fetch as undiciFetch, Response as UndiciResponse } from 'undici';
import { UsageError } from '../errors.js';
import { countWireBytes, guardCompressionRatio, type WireCount } from './compression-guard.js';
import type { FetchLike } from './fetch-like.js';

/** Options of the shared dispatcher. */
export interface TransportOptions {
  /** Sockets per origin (default 16; offset-mode concurrency never needs more). */
  connections?: number;
  /** How long an idle socket is kept, ms (default 10 000). */
  keepAliveTimeoutMs?: number;
  /**
   * The environment the proxy variables are read from (the Context's, not `process.env`):
   * `http_proxy`/`HTTP_PROXY`, `https_proxy`/`HTTPS_PROXY`, `no_proxy`/`NO_PROXY` (lower case
   * first, as curl and undici read them). Default: none, i.e. no proxy.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Statuses whose response has no body (Fetch standard, "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The proxy settings of an environment, `''` where a variable is unset (so undici reads no other). */
function proxySettings(env: Readonly<Record<string, string | undefined>>): { httpProxy: string; httpsProxy: string; noProxy: string } {
  return {
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
}

/** The proxy URLs must parse as URLs (undici would otherwise fail each request as a network error). */
function checkProxyUrls(settings: { httpProxy: string; httpsProxy: string }): void {
  for (const value of [settings.httpProxy, settings.httpsProxy]) {
    if (value !== '' && !URL.canParse(value)) {
      throw new UsageError('the proxy of HTTP_PROXY or HTTPS_PROXY (or their lower-case forms) is not a valid URL', {
        hint: 'set it to a URL such as http://proxy.example:3128, or unset it',
      });
    }
  }
}

/**
 * Creates undici's fetch bound to one keep-alive {@link EnvHttpProxyAgent}: requests go through
 * `HTTPS_PROXY`/`HTTP_PROXY` unless the host matches `NO_PROXY` (an https request is tunnelled with
 * `CONNECT`, so the proxy sees only the host; a plain-http one is forwarded, headers included).
 * The proxy never changes where a request goes: it still targets the API's origin, which the
 * client checks before anything is sent. Redirects are left to the caller (`redirect: 'manual'`),
 * so no redirect carries the key to another origin (undici #4917). A compressed body is handed
 * over through {@link guardCompressionRatio}.
 * @throws {UsageError} (exit 2) when a proxy variable is not a valid URL
 */
export function createTransportFetch(options: TransportOptions = {}): FetchLike {
  const proxies = proxySettings(options.env ?? {});
  checkProxyUrls(proxies);
  let agent: EnvHttpProxyAgent;
  try {
    agent = new EnvHttpProxyAgent({
      connections: options.connections ?? 16,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
      pipelining: 1,
      ...proxies,
    });
  } catch (err) {
    throw new UsageError('the proxy of HTTP_PROXY or HTTPS_PROXY (or their lower-case forms) is not a valid URL', {
      cause: err,
      hint: 'set it to a URL such as http://proxy.example:3128, or unset it',
    });
  }
  // The package's Response is a WHATWG Response but not the class of Node's global `Response` (Node
  // bundles its own copy of undici); FetchLike asks for the shape only, and no code tests `instanceof`.
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const wire: WireCount = { bytes: 0 };
    const res = await undiciFetch(input, { ...(init as object), dispatcher: agent.compose(countWireBytes(wire)) });
    if (res.body === null || NULL_BODY_STATUSES.has(res.status) || !res.headers.has('content-encoding')) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a structural Response on purpose, see above
      return res;
    }
    const url = new URL(input);
    const body = res.body.pipeThrough(guardCompressionRatio(wire, `GET ${url.pathname}${url.search}`));
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a structural Response on purpose, see above
    return new UndiciResponse(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
