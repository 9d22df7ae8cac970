/**
 * Follows `hydra:next` from a first URL, yielding each page once it parsed whole. Every link is
 * resolved against the URL of the page it came from and checked before anything is sent to it:
 * another origin or a page already fetched (a loop) stops the export (README, "Rate limits,
 * retries and safety": the key stays home; links).
 */
import type { Client } from '../http/client.js';
import { UnsafeLinkError } from '../errors.js';
import { assertSameOrigin, normalizeUrl, resolveSameOrigin } from '../http/origin.js';
import { createEmptyPageGuard } from './empty-pages.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';

export type { FetchedPage } from './fetch-page.js';

/** Options of {@link paginate}. */
export interface PaginateOptions {
  client: Client;
  /** The configured base URL: links must keep its origin. */
  baseUrl: URL;
  /** First page to fetch (absolute). */
  start: URL;
  /** Extra headers for every page (`X-Pagination-Style`, `X-Pagination-Enable-Partial`). */
  headers?: Record<string, string>;
  /** Links already fetched before a resume (absolute URL strings), for loop detection. */
  seen?: Iterable<string>;
  /** Aborts the request in flight (pagination/prefetch.ts cancels a page fetched ahead). */
  signal?: AbortSignal;
}

/**
 * A page plus where to go next: `url` (final, after redirects), `page` (the parsed Hydra page),
 * `text` (the exact body it was parsed from), `status`, `requestId`, `rateLimit`, `index`, `next`.
 */
export interface PageStep extends FetchedPage {
  /** 0-based index of the page in this run. */
  index: number;
  /** The resolved, origin-checked next link; undefined on the last page. */
  next: URL | undefined;
}

/**
 * Resolves a page's `next` link against the page's own URL (so `?page=2`, `/path?page=2` and
 * absolute links all work) and checks its origin and that it was not fetched before.
 * @param seen normalised URLs already fetched (see {@link normalizeUrl})
 * @returns the next URL, or undefined on the last page
 * @throws {UnsafeLinkError} for another origin, userinfo, a bad URL, or a loop
 */
export function resolveNext(fetched: FetchedPage, baseUrl: URL, seen: ReadonlySet<string>): URL | undefined {
  const link = fetched.page.view?.next;
  if (link === undefined) return undefined;
  const next = resolveSameOrigin(link, fetched.url, baseUrl, 'a hydra:next link');
  if (seen.has(normalizeUrl(next))) {
    throw new UnsafeLinkError(`the API's hydra:next link loops back to a page already fetched (${next.pathname}${next.search})`, {
      hint: 'the server returned a looping next link; stopping to avoid duplicate items',
    });
  }
  return next;
}

/**
 * Yields pages in order until one has no `next`. Callers may `break` at any time. A page whose
 * `next` is refused is not yielded: the error comes instead, before any request to the link.
 * @throws {UnsafeLinkError} when `start` or `next` has another origin or `next` was already fetched
 *   (a loop, compared with the query sorted); {@link HostileResponseError} for too many empty
 *   pages in a row with a next link ({@link createEmptyPageGuard}); everything {@link fetchPage} throws.
 */
export async function* paginate(options: PaginateOptions): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl, headers, signal } = options;
  assertSameOrigin(options.start, baseUrl, 'the first page');
  const seen = new Set<string>();
  for (const s of options.seen ?? []) seen.add(normalizeUrl(s));
  const checkEmpty = createEmptyPageGuard();
  let url: URL | undefined = options.start;
  for (let index = 0; url !== undefined; index++) {
    seen.add(normalizeUrl(url));
    const fetched = await fetchPage(client, url, { headers, ...(signal ? { signal } : {}) });
    seen.add(normalizeUrl(fetched.url));
    const next = resolveNext(fetched, baseUrl, seen);
    checkEmpty(fetched, next);
    yield { ...fetched, index, next };
    url = next;
  }
}
