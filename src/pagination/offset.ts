/**
 * Concurrent offset pagination (`--concurrency`, "As fast as Node allows"): after the first page,
 * the page URLs are known (`page=2…last`), so several can be in flight at once. Pages are still
 * yielded strictly in order, with bounded buffering, and every request goes through the client's
 * rate-limit governor, so concurrency never outruns `X-RateLimit-Remaining`.
 */
import type { Client } from '../http/client.js';
import { assertSameOrigin, isSameOrigin } from '../http/origin.js';
import { createEmptyPageGuard } from './empty-pages.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';
import { LoopGuard } from './loop-guard.js';
import { paginate, resolveNext, type PageStep } from './paginate.js';
import { ReadAhead } from './read-ahead.js';

/** Options of {@link fetchOffsetPages}. */
export interface OffsetPagesOptions {
  client: Client;
  /** The configured base URL: every request keeps its origin. */
  baseUrl: URL;
  /** First page to fetch (absolute), with its `page` and `itemsPerPage` query parameters. */
  start: URL;
  /** Page number of `start` (default: its `page` query parameter, else 1). */
  firstPage?: number;
  /** Pages in flight at once (≥ 1); the governor may allow fewer. */
  concurrency: number;
  /** Extra headers for every page. */
  headers?: Record<string, string>;
  /** Stop after this many pages (default: all). */
  maxPages?: number;
  /**
   * Items the consumer wants from `start` on (`--max-items` less what a resumed export already
   * wrote; default all): no page past the one that may complete them is requested ahead.
   */
  maxItems?: number;
}

/**
 * The `page` query parameter of a URL as a positive integer.
 * @returns undefined when absent or not a positive integer
 */
export function pageNumberOf(url: URL): number | undefined {
  const v = url.searchParams.get('page');
  if (v === null || !/^\d{1,15}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 1 ? n : undefined;
}

/**
 * A copy of `url` with its `page` query parameter set to `page`. The other parameters are kept
 * byte for byte (URLSearchParams would re-encode `issuedAt[after]` and spaces), so the server sees
 * the same filters on every page.
 */
export function withPage(url: URL, page: number): URL {
  const out = new URL(url);
  const query = out.search.startsWith('?') ? out.search.slice(1) : out.search;
  const parts = query.length > 0 ? query.split('&') : [];
  let found = false;
  const replaced: string[] = [];
  for (const p of parts) {
    const isPage = p.split('=', 1)[0] === 'page';
    if (isPage) found = true;
    replaced.push(isPage ? `page=${page}` : p);
  }
  if (!found) replaced.push(`page=${page}`);
  out.search = `?${replaced.join('&')}`;
  return out;
}

/**
 * The last page number the first page announces: `hydra:last`'s `page` (same origin and path
 * only), else `ceil(totalItems / itemsPerPage)` with `itemsPerPage` from the URL or, on a full first
 * page, from its length.
 */
function lastPageOf(first: FetchedPage, baseUrl: URL, start: URL): number | undefined {
  const lastLink = first.page.view?.last;
  if (lastLink !== undefined) {
    let u: URL;
    try {
      u = new URL(lastLink, first.url);
    } catch {
      return undefined;
    }
    if (!isSameOrigin(u, baseUrl) || u.pathname !== first.url.pathname) return undefined;
    return pageNumberOf(u);
  }
  const total = first.page.totalItems;
  if (total === undefined) return undefined;
  const param = start.searchParams.get('itemsPerPage');
  const perPage = param !== null && /^\d+$/.test(param) ? Number(param) : first.page.members.length;
  if (!(perPage > 0)) return undefined;
  return Math.max(1, Math.ceil(total / perPage));
}

/** What the parts of one {@link fetchOffsetPages} run share. */
interface OffsetRun {
  client: Client;
  baseUrl: URL;
  headers: Record<string, string> | undefined;
  maxPages: number;
  /** Items wanted from the first page on (Infinity: all). */
  maxItems: number;
  /** URLs and page contents fetched so far, for loop detection (pagination/loop-guard.ts). */
  loop: LoopGuard;
}

/**
 * Fetches offset pages `first…last` with up to `concurrency` requests in flight, yielding them
 * strictly in page order. At most `concurrency` pages are in flight or buffered at once (plus the
 * one the consumer holds); fewer (down to 1) while parsed items pile up because the consumer is the
 * slower side ({@link ReadAhead}). Page URLs are built by setting `page` on the first page's URL, so
 * they share its origin by construction. When the first page's links do not describe the range
 * (no `last` nor `totalItems`, or a `next` that is not `page + 1` of the same path), it falls back
 * to following `next` one page at a time ({@link paginate}). If the last page still has a `next`
 * (the collection grew), that link is followed the same way. Breaking out of the loop aborts the
 * requests in flight and starts no more. Too many empty pages in a row that are not the last stop
 * the export ({@link createEmptyPageGuard}), as in {@link paginate}; so does a page that repeats
 * the items of one fetched before, also one fetched by number (a server that ignores `page`:
 * {@link LoopGuard}).
 * @throws everything {@link paginate} and {@link fetchPage} throw; a failed page is thrown
 *   once every page before it has been yielded.
 */
export async function* fetchOffsetPages(options: OffsetPagesOptions): AsyncGenerator<PageStep, void, void> {
  if (!((options.maxPages ?? Number.POSITIVE_INFINITY) >= 1)) return;
  assertSameOrigin(options.start, options.baseUrl, 'the first page');
  yield* offsetPagesAfter(options, await fetchPage(options.client, options.start, { headers: options.headers }));
}

/**
 * {@link fetchOffsetPages} once its first page was fetched (by pagination/modes.ts, which reads it
 * first to learn the server's mode): that page, then the others.
 * @param first the page fetched from `options.start`
 */
export async function* offsetPagesAfter(options: OffsetPagesOptions, first: FetchedPage): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl, start, headers } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  if (!(maxPages >= 1)) return;
  const firstNo = options.firstPage ?? pageNumberOf(start) ?? 1;
  const maxItems = options.maxItems ?? Number.POSITIVE_INFINITY;
  const run: OffsetRun = { client, baseUrl, headers, maxPages, maxItems, loop: new LoopGuard([start.href, first.url.href]) };
  run.loop.addPage(first.page, first.url);
  const next = resolveNext(first, baseUrl, run.loop);
  if (next === undefined) {
    yield { ...first, index: 0, next: undefined };
    return;
  }
  const last = lastPageOf(first, baseUrl, start);
  const agrees = last !== undefined && last > firstNo && next.pathname === first.url.pathname && pageNumberOf(next) === firstNo + 1;
  if (!agrees || maxPages === 1) {
    yield { ...first, index: 0, next };
    yield* followNext(run, next, 1);
    return;
  }
  // The first page's own URL (after redirects) carries the filters the server accepted.
  const template = pageNumberOf(first.url) === firstNo ? first.url : start;
  yield* fetchRange(run, first, { firstNo, last, template, concurrency });
}

/**
 * Follows `next` links one page at a time from `start`, numbering the pages from `index`, until
 * there is none or `maxPages` pages were yielded in all.
 */
async function* followNext(run: OffsetRun, start: URL, index: number): AsyncGenerator<PageStep, void, void> {
  let count = index;
  if (count >= run.maxPages) return;
  const { client, baseUrl, headers, loop } = run;
  for await (const step of paginate({ client, baseUrl, start, headers, loop })) {
    yield { ...step, index: count };
    if (++count >= run.maxPages) return;
  }
}

/** The page range a first page announced. */
interface PageRange {
  /** Page number of the first page. */
  firstNo: number;
  /** The last page number it announced. */
  last: number;
  /** The URL other pages are built from with {@link withPage}. */
  template: URL;
  concurrency: number;
}

/**
 * Yields the first page, then pages `firstNo + 1…last` (at most `maxPages` in all) fetched ahead
 * concurrently, in order; then follows a `next` link the last page may still have.
 */
async function* fetchRange(run: OffsetRun, first: FetchedPage, range: PageRange): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl, headers, loop } = run;
  const { firstNo, last, template } = range;
  const lastToFetch = Math.min(last, firstNo + run.maxPages - 1);
  // `demand`: the pages needed after this one, so the governor knows when a window cannot serve them all.
  const fetchNo = (n: number, signal: AbortSignal): Promise<FetchedPage> =>
    fetchPage(client, withPage(template, n), { headers, signal, demand: Math.max(0, ahead.lastNeeded - n) });
  // The first page is as long as a page gets (`itemsPerPage`, or the server's own cap of it).
  const items = first.page.members.length;
  const ahead = new ReadAhead(fetchNo, firstNo + 1, lastToFetch, range.concurrency, {
    pageBytes: first.text.length,
    wantedItems: run.maxItems - items,
    perPage: items,
  });
  const checkEmpty = createEmptyPageGuard();
  try {
    ahead.launch();
    checkEmpty(first, withPage(template, firstNo + 1));
    yield { ...first, index: 0, next: withPage(template, firstNo + 1) };
    for (let n = firstNo + 1; n <= lastToFetch; n++) {
      const fetched = await ahead.take(n);
      // Pages built from numbers never loop by URL, but a server that ignores `page` repeats one.
      loop.addPage(fetched.page, fetched.url);
      if (n < last) checkEmpty(fetched, withPage(template, n + 1));
      if (n < lastToFetch) {
        yield { ...fetched, index: n - firstNo, next: withPage(template, n + 1) };
        continue;
      }
      if (n < last) {
        // Stopped by maxPages: the following page exists.
        yield { ...fetched, index: n - firstNo, next: withPage(template, n + 1) };
        return;
      }
      for (let k = firstNo; k <= n; k++) loop.addUrl(withPage(template, k));
      loop.addUrl(fetched.url);
      const more = resolveNext(fetched, baseUrl, loop);
      checkEmpty(fetched, more);
      yield { ...fetched, index: n - firstNo, next: more };
      if (more === undefined) return;
      yield* followNext(run, more, n - firstNo + 1);
      return;
    }
  } finally {
    ahead.stop();
  }
}
