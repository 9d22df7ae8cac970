// Which proxy a request goes through: the variable of its scheme (https falls back to `http_proxy`),
// never for a loopback host (as Go's net/http), nor a host `NO_PROXY` lists (undici's matching).
import { UsageError } from '../errors.js';

export interface ProxyRoute {
  /** Userinfo included, for `Proxy-Authorization`. */
  url: URL;
  /** As spelt in the environment, e.g. `https_proxy`. */
  variable: string;
}

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** `URL.hostname` has already normalised forms like `127.1` or `0x7f.0.0.1` to dotted decimal. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h === 'localhost.') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  if (h === '[::1]') return true;
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

/** An empty variable counts as unset, as in curl. */
function firstSet(env: ProxyEnv, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
  }
  return undefined;
}

/** undici's EnvHttpProxyAgent rules. */
function listedInNoProxy(target: URL, env: ProxyEnv): boolean {
  const entries = (firstSet(env, ['no_proxy', 'NO_PROXY'])?.value ?? '').split(/[,\s]+/).filter((e) => e !== '');
  if (entries.includes('*')) return true;
  const host = target.hostname.toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return entries.some((entry) => {
    const m = /^(.+):(\d+)$/.exec(entry);
    if (m !== null && Number(m[2]) !== port) return false;
    const name = (m === null ? entry : m[1]!).replace(/^\*?\./, '').toLowerCase();
    return host === name || host.endsWith(`.${name}`);
  });
}

/**
 * `host:port` is read as `http://host:port`, as curl and Go read it.
 * @throws {UsageError} (exit 2) naming the variable, never quoting its value (it may hold a password)
 */
function parseProxyUrl(name: string, value: string): URL {
  const text = /^[^\s/:@]+:\d+$/.test(value) ? `http://${value}` : value;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new UsageError(`${name} is not a proxy URL (http://host:port or https://host:port)`, {
      hint: `set ${name} to a URL such as http://proxy.example:3128, or unset it`,
    });
  }
  return url;
}

/**
 * undefined: direct.
 * @throws {UsageError} (exit 2) when the variable of the target's scheme is not a proxy URL, even
 *   for a host that goes direct (as Go's net/http)
 */
export function proxyFor(target: URL, env: ProxyEnv): ProxyRoute | undefined {
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const found = firstSet(env, names);
  if (found === undefined) return undefined;
  const url = parseProxyUrl(found.name, found.value);
  if (isLoopbackHost(target.hostname) || listedInNoProxy(target, env)) return undefined;
  return { url, variable: found.name };
}

/** A request through a proxy failed before a response: the transport's error is its `cause`. */
export class ProxyFailure extends Error {
  /** The proxy's origin, never its userinfo. */
  readonly proxy: string;
  readonly variable: string;

  constructor(route: ProxyRoute, cause: unknown) {
    super(`fetch failed through the proxy ${route.url.origin}`, { cause });
    this.name = 'ProxyFailure';
    this.proxy = route.url.origin;
    this.variable = route.variable;
  }
}
