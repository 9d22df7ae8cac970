/**
 * Follows `hydra:next` from a first URL, yielding each page once it parsed whole. Every link is
 * resolved against the URL of the page it came from and checked before anything is sent to it:
 * another origin or a page already fetched (a loop, pagination/loop-guard.ts) stops the export
 * (docs/rate-limits.md, "Rate limits, retries and safety": the key stays home; links). In cursor mode an empty
 * page ends the collection whatever it links to: API Platform links every cursor page on, the
 * last and (since 4.3.5) empty ones included.
 */
import type { Client } from '../http/client.js';
import { assertSameOrigin, resolveSameOrigin } from '../http/origin.js';
import { createEmptyPageGuard } from './empty-pages.js';
import { LoopGuard } from './loop-guard.js';
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
  /** What was fetched before (pagination/offset.ts: the pages of a range), for loop detection; default a new guard. */
  loop?: LoopGuard;
  /**
   * Cursor mode: a page without items is the end of the collection, whatever its links say
   * (API Platform's `PartialCollectionViewNormalizer` links every non-empty cursor page on, and
   * since 4.3.5 an empty page too: `id[lt]=X` becomes `id[lt]=X−itemsPerPage`). Default false:
   * empty pages that link on are followed, up to the bound of pagination/empty-pages.ts.
   */
  emptyPageEnds?: boolean;
  /** Aborts the request in flight (pagination/prefetch.ts cancels a page fetched ahead). */
  signal?: AbortSignal;
  /** The page `start` answered, fetched already (pagination/modes.ts reads it first): yielded without a request. */
  first?: FetchedPage;
}

/** Offset pages (`page=N`, `totalItems`) or cursor pages (`id[lt]=…` links); see pagination/modes.ts. */
export type PagingMode = 'cursor' | 'offset';

/**
 * A page plus where to go next: `url` (final, after redirects), `page` (the parsed Hydra page),
 * `text` (the exact body it was parsed from), `status`, `requestId`, `rateLimit`, `index`, `next`.
 */
export interface PageStep extends FetchedPage {
  /** 0-based index of the page in this run. */
  index: number;
  /** The resolved, origin-checked next link; undefined on the last page. */
  next: URL | undefined;
  /** The mode the server pages in, once pagination/modes.ts read it; undefined from the lower layers. */
  mode?: PagingMode;
}

/**
 * Resolves a page's `next` link against the page's own URL (so `?page=2`, `/path?page=2` and
 * absolute links all work) and checks its origin and that it was not fetched before.
 * @param loop what was fetched so far
 * @returns the next URL, or undefined on the last page
 * @throws {UnsafeLinkError} for another origin, userinfo, a bad URL, or a loop
 */
export function resolveNext(fetched: FetchedPage, baseUrl: URL, loop: LoopGuard): URL | undefined {
  const link = fetched.page.view?.next;
  if (link === undefined) return undefined;
  const next = resolveSameOrigin(link, fetched.url, baseUrl, 'a hydra:next link');
  loop.checkLink(next);
  return next;
}

/**
 * Yields pages in order until one has no `next` (or, with `emptyPageEnds`, has no items). Callers
 * may `break` at any time. A page whose `next` is refused, or that repeats the items of a page
 * already fetched, is not yielded: the error comes instead, before any request to the link.
 * @throws {UnsafeLinkError} when `start` or `next` has another origin, or for a loop: `next` was
 *   already fetched (compared normalised, http/origin.ts `normalizeUrl`) or the page's items were
 *   ({@link LoopGuard}); {@link HostileResponseError} for too many empty pages in a row with a next
 *   link ({@link createEmptyPageGuard}); everything {@link fetchPage} throws.
 */
export async function* paginate(options: PaginateOptions): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl, headers, signal } = options;
  assertSameOrigin(options.start, baseUrl, 'the first page');
  const loop = options.loop ?? new LoopGuard();
  const checkEmpty = createEmptyPageGuard();
  let url: URL | undefined = options.start;
  for (let index = 0; url !== undefined; index++) {
    loop.addUrl(url);
    const fetched: FetchedPage =
      index === 0 && options.first ? options.first : await fetchPage(client, url, { headers, ...(signal ? { signal } : {}) });
    loop.addUrl(fetched.url);
    loop.addPage(fetched.page, fetched.url);
    const ends = options.emptyPageEnds === true && fetched.page.members.length === 0;
    const next = ends ? undefined : resolveNext(fetched, baseUrl, loop);
    checkEmpty(fetched, next);
    yield { ...fetched, index, next };
    url = next;
  }
}
