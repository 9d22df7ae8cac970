// Offset pages by number, several in flight, yielded strictly in order; every request goes through
// the client's rate-limit governor, so concurrency never outruns the quota.
import type { Client } from '../http/client.js';
import { isSameOrigin } from '../http/origin.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';

// Not `p-limit`: it bounds the tasks running and queues every page up front; this bounds the pages held, in flight or buffered.

/** Fewest pages requested ahead once the consumer is the bottleneck: the next one, fetched while this one is written. */
const MIN_WINDOW = 1;

/** Parsed items waiting behind the consumer's page from which the read-ahead shrinks (a 1000-item page). */
const SHRINK_AT_ITEMS = 1000;

/**
 * Page text (UTF-16 code units, about bytes) held in flight and buffered besides the consumer's
 * page: one 1000-invoice page or a dozen 100-item pages. Buffered parsed pages reach V8's old
 * generation and stay there as garbage until a full collection, so a larger bound costs peak memory
 * and gains no speed (test/bench/results.md, «Read-ahead bound»). The price: pages over half the
 * bound go one ahead whatever `--concurrency` says, so a slow server's latency is hidden only for
 * smaller pages.
 */
const READ_AHEAD_BYTES = 2 * 1024 * 1024;

export interface ReadAheadBounds {
  /** The first page's text length, the average page size until pages arrive. */
  pageBytes?: number;
  /** Items the consumer wants from page `first` on (default all). */
  wantedItems?: number;
  /** Most items a page holds (≥ 1): pages not handed over count at this size against `wantedItems`. */
  perPage?: number;
}

export type PageFetcher = (n: number, signal: AbortSignal) => Promise<FetchedPage>;

/**
 * Pages `first…last`: at most `concurrency` in flight or buffered (plus the consumer's), within
 * {@link READ_AHEAD_BYTES} of text (one page always goes), fewer while the consumer is slower.
 */
export class ReadAhead {
  private readonly pending = new Map<number, Promise<FetchedPage>>();
  private readonly settled = new Set<number>();
  private readonly controller = new AbortController();
  private nextToLaunch: number;
  private window: number;
  // Settled and not yet taken; and every page settled, for the average page size.
  private settledItems = 0;
  private settledBytes = 0;
  private seenBytes = 0;
  private seenPages = 0;
  private readonly wantedItems: number;
  private readonly perPage: number;
  private lastTaken: number;
  private takenItems = 0;

  constructor(
    private readonly fetchPage: PageFetcher,
    first: number,
    private readonly last: number,
    private readonly concurrency: number,
    bounds: ReadAheadBounds = {},
  ) {
    this.nextToLaunch = first;
    this.window = concurrency;
    this.wantedItems = bounds.wantedItems ?? Number.POSITIVE_INFINITY;
    this.perPage = Math.max(1, bounds.perPage ?? 1);
    this.lastTaken = first - 1;
    if (bounds.pageBytes !== undefined) {
      this.seenBytes = bounds.pageBytes;
      this.seenPages = 1;
    }
  }

  /**
   * Pages in flight count at the average size: a fast server makes them buffered pages within
   * milliseconds (counting them less was tried: «Read-ahead bound»).
   */
  private fitsBytes(): boolean {
    if (this.pending.size === 0 || this.seenPages === 0) return true;
    const average = this.seenBytes / this.seenPages;
    const inFlight = this.pending.size - this.settled.size;
    return this.settledBytes + (inFlight + 1) * average <= READ_AHEAD_BYTES;
  }

  /** The last page that may hold an item wanted (`--max-items` spends no request it does not need). */
  get lastNeeded(): number {
    const left = this.wantedItems - this.takenItems;
    if (left === Number.POSITIVE_INFINITY) return this.last;
    return Math.min(this.last, this.lastTaken + Math.ceil(Math.max(0, left) / this.perPage));
  }

  launch(): void {
    const last = this.lastNeeded;
    while (this.nextToLaunch <= last && this.pending.size < this.window && this.fitsBytes()) this.request(this.nextToLaunch++);
  }

  private request(n: number): void {
    const p = this.fetchPage(n, this.controller.signal);
    // Awaited in order later; a failure of a later page must not be an unhandled rejection meanwhile.
    p.then(
      (f) => {
        this.settled.add(n);
        this.settledItems += f.page.members.length;
        this.settledBytes += f.text.length;
        this.seenBytes += f.text.length;
        this.seenPages += 1;
      },
      () => this.settled.add(n),
    );
    this.pending.set(n, p);
  }

  /** Page `n`, the next in order; requested even past {@link ReadAhead.lastNeeded}: the consumer knows best. */
  async take(n: number): Promise<FetchedPage> {
    this.launch();
    if (!this.pending.has(n) && n === this.nextToLaunch && n <= this.last) this.request(this.nextToLaunch++);
    const ready = this.settled.has(n);
    const fetched = await this.pending.get(n)!;
    this.pending.delete(n);
    this.settled.delete(n);
    this.settledItems -= fetched.page.members.length;
    this.settledBytes -= fetched.text.length;
    this.lastTaken = n;
    this.takenItems += fetched.page.members.length;
    // The consumer waited: the server is slower, ask for one more ahead. The page was ready with
    // SHRINK_AT_ITEMS parsed items behind it: the consumer is, and more pages ahead would only
    // outlive the young generation. A burst of small pages after a latency holds few items: kept.
    if (!ready) this.window = Math.min(this.concurrency, this.window + 1);
    else if (this.settledItems >= SHRINK_AT_ITEMS) this.window = Math.max(Math.min(MIN_WINDOW, this.concurrency), this.window - 1);
    this.launch();
    return fetched;
  }

  /** Aborts the requests still in flight. Not when none is: each finished request's listener is still on the signal until collected, and an abort walks them all. */
  stop(): void {
    if (this.pending.size > this.settled.size) this.controller.abort();
  }
}

export interface OffsetRangeOptions {
  client: Client;
  baseUrl: URL;
  start: URL;
  /** Pages in flight at once (≥ 1); the governor may allow fewer. */
  concurrency: number;
  headers?: Record<string, string>;
  /** Items wanted from `start` on (Infinity: all): no page past the one that may complete them is requested ahead. */
  maxItems: number;
}

/** The `page` query parameter when it is a positive integer. */
export function pageNumberOf(url: URL): number | undefined {
  const v = url.searchParams.get('page');
  if (v === null || !/^\d{1,15}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 1 ? n : undefined;
}

/** `url` with `page` set; the other parameters byte for byte (URLSearchParams would re-encode `issuedAt[after]` and spaces). */
export function withPage(url: URL, page: number): URL {
  const out = new URL(url);
  const query = out.search.startsWith('?') ? out.search.slice(1) : out.search;
  const parts = query.length > 0 ? query.split('&') : [];
  const isPage = (p: string): boolean => p.split('=', 1)[0] === 'page';
  const replaced = parts.map((p) => (isPage(p) ? `page=${page}` : p));
  if (!parts.some(isPage)) replaced.push(`page=${page}`);
  out.search = `?${replaced.join('&')}`;
  return out;
}

/** `hydra:last`'s `page` (same origin and path only), else `ceil(totalItems / itemsPerPage)`, per page from the URL or the first page. */
function lastPageOf(first: FetchedPage, baseUrl: URL, start: URL): number | undefined {
  const lastLink = first.page.view?.last;
  if (lastLink !== undefined) {
    if (!URL.canParse(lastLink, first.url.href)) return undefined;
    const u = new URL(lastLink, first.url);
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

/** Pages after the first, fetched ahead; then the last one's `next` is followed. */
export interface PageRange {
  /** The page at `index` (≥ 1), undefined past the range. */
  take(index: number): Promise<FetchedPage> | undefined;
  /** The URL after page `index`, undefined from the range's last page on. */
  next(index: number): URL | undefined;
  stop(): void;
}

/**
 * Pages `firstNo + 1…last` of the first page's range, each `withPage(template, n)`, fetched ahead;
 * undefined when the first page does not describe the range (its `next` is then followed).
 */
export function offsetRange(options: OffsetRangeOptions, first: FetchedPage, next: URL): PageRange | undefined {
  const { client, baseUrl, start, headers } = options;
  const firstNo = pageNumberOf(start) ?? 1;
  const last = lastPageOf(first, baseUrl, start);
  if (last === undefined || last <= firstNo || next.pathname !== first.url.pathname || pageNumberOf(next) !== firstNo + 1) return undefined;
  // The first page's own URL (after redirects) carries the filters the server accepted.
  const template = pageNumberOf(first.url) === firstNo ? first.url : start;
  // `demand`: the pages needed after this one, so the governor knows when a window cannot serve them all.
  const fetchNo = (n: number, signal: AbortSignal): Promise<FetchedPage> =>
    fetchPage(client, withPage(template, n), { headers, signal, demand: Math.max(0, ahead.lastNeeded - n) });
  // The first page is as long as a page gets (`itemsPerPage`, or the server's own cap of it).
  const items = first.page.members.length;
  const ahead = new ReadAhead(fetchNo, firstNo + 1, last, Math.max(1, Math.floor(options.concurrency)), {
    pageBytes: first.text.length,
    wantedItems: options.maxItems - items,
    perPage: items,
  });
  ahead.launch();
  return {
    take: (index) => (firstNo + index <= last ? ahead.take(firstNo + index) : undefined),
    next: (index) => (firstNo + index < last ? withPage(template, firstNo + index + 1) : undefined),
    stop: () => ahead.stop(),
  };
}
