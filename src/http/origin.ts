/** The API key never leaves the configured origin: every link and redirect target is checked before anything is sent to it. */
import { UnsafeLinkError } from '../errors.js';

/** With the scheme's default port made explicit. */
function originKey(url: URL): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '';
  return `${url.protocol}//${url.hostname}:${port}`;
}

/** RFC 6454 §4. */
export function isSameOrigin(a: URL, b: URL): boolean {
  return originKey(a) === originKey(b);
}

/** Never a path, query or userinfo. */
function describeOrigin(url: URL): string {
  return url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`;
}

/**
 * http or https, no userinfo (which fetch refuses anyway and which hides the real host from a
 * reader), and the same origin as `base`.
 * @param what names the URL in the error, e.g. `hydra:next link`
 * @throws {UnsafeLinkError} otherwise
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

/** @throws {UnsafeLinkError} for an unparseable link or one that fails {@link assertSameOrigin} */
export function resolveSameOrigin(link: string, current: URL, base: URL, what: string): URL {
  if (!URL.canParse(link, current.href)) throw new UnsafeLinkError(`refusing ${what}: not a valid URL`);
  const url = new URL(link, current);
  assertSameOrigin(url, base, what);
  return url;
}

/**
 * The form URLs are compared in for loop detection (requests keep their bytes): WHATWG-normalised,
 * without the fragment, the query sorted by name (stably), so a link that only reorders the query
 * names the same page; then a pair equal to the one before it is dropped (`x=1&y=2&x=1` → `x=1&y=2`):
 * a server reading a parameter's first, last or set of values answers both alike. Different values
 * of one name keep their order and count: the last may be what a server reads.
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
