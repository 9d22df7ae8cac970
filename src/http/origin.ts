/**
 * The origin guard (docs/rate-limits.md, "Rate limits, retries and safety": the key stays home): the API key
 * must never leave the configured origin, so every link and redirect target is resolved with `URL`
 * and its scheme, host and port compared with the base URL's before anything is sent to it.
 */
import { UnsafeLinkError } from '../errors.js';

/** Scheme + host + port of a URL, with the scheme's default port made explicit. */
function originKey(url: URL): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '';
  return `${url.protocol}//${url.hostname}:${port}`;
}

/** True when `a` and `b` have the same scheme, host and port (RFC 6454 §4). */
export function isSameOrigin(a: URL, b: URL): boolean {
  return originKey(a) === originKey(b);
}

/** `scheme://host:port` of a URL, for messages (never a path, query or userinfo). */
function describeOrigin(url: URL): string {
  return url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`;
}

/**
 * Checks that `url` may receive the API key: http or https, no userinfo (`http://a:b@host/`,
 * which fetch refuses anyway and which hides the real host from a reader), and the same origin as
 * `base`.
 * @param what how to name the URL in the error, e.g. `hydra:next link` or `redirect`
 * @throws {UnsafeLinkError} otherwise; the message names the origins, never a query or userinfo
 */
export function assertSameOrigin(url: URL, base: URL, what: string): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeLinkError(`refusing ${what} with scheme ${url.protocol} (only ${describeOrigin(base)} is allowed)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeLinkError(`refusing ${what} with userinfo to ${describeOrigin(url)} (only ${describeOrigin(base)} is allowed)`);
  }
  if (!isSameOrigin(url, base)) {
    throw new UnsafeLinkError(`refusing ${what} to another origin: ${describeOrigin(url)} (only ${describeOrigin(base)} is allowed)`, {
      hint: 'the API key is only sent to the configured base URL',
    });
  }
}

/**
 * Resolves a link (relative like `?page=2`, root-relative like `/entities?page=2`,
 * scheme-relative like `//host/x`, or absolute) against `current` and checks its origin.
 * @param current the URL of the page or response the link came from
 * @param base the configured base URL (the allowed origin)
 * @throws {UnsafeLinkError} for an unparseable link or one that fails {@link assertSameOrigin}
 */
export function resolveSameOrigin(link: string, current: URL, base: URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(link, current);
  } catch (err) {
    throw new UnsafeLinkError(`refusing ${what}: not a valid URL`, { cause: err });
  }
  assertSameOrigin(url, base, what);
  return url;
}

/**
 * The form in which URLs are compared for loop detection: absolute, normalised by WHATWG URL
 * parsing (case of scheme and host, default port, dot segments, percent-encoding), without the
 * fragment, which is never sent, and with the query parameters decoded and sorted by name (a
 * stable sort, so repeated names keep their order): a link that only reorders the query names the
 * same page (docs/security.md, "A hostile or broken server"). Then a pair equal to the one before it is
 * dropped (`x=1&x=1` → `x=1`, also `x=1&y=2&x=1`): a server that reads a parameter as its first
 * value, its last value or the set of its values answers both alike, so padding a link with a
 * repeated pair does not make it a new page. Pairs with the same name and different values keep
 * their order and count (`x=1&x=2&x=1` stays: the last value may be what a server reads). The
 * query is re-serialised as `application/x-www-form-urlencoded` for the comparison only; requests
 * keep their bytes.
 */
export function normalizeUrl(url: URL | string, base?: URL): string {
  const u = new URL(url, base);
  u.hash = '';
  if (u.search === '') return u.href;
  u.searchParams.sort();
  const pairs = [...u.searchParams];
  const folded = pairs.filter(([k, v], i) => i === 0 || pairs[i - 1]![0] !== k || pairs[i - 1]![1] !== v);
  if (folded.length < pairs.length) u.search = new URLSearchParams(folded).toString();
  return u.href;
}
