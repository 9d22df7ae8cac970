/**
 * The read-ahead of concurrent offset pages: requests pages `first…last` ahead of the consumer and
 * hands them over strictly in order, adapting how many are requested ahead to which side is slower.
 *
 * Not `p-limit`: p-limit bounds the tasks *running*, and its queue would take every page up front.
 * This bounds the pages in flight *or settled and not yet consumed* (the memory the buffer holds),
 * launches a page only when the bound has room, and moves the bound while pages are consumed; the
 * rate limit itself is the governor's (rate/governor.ts), not this module's.
 */
import type { FetchedPage } from './fetch-page.js';

/**
 * Fewest pages requested ahead of the consumer once it is the bottleneck: the next one is fetched
 * (the server works on it) while the current one is written. Should that not cover the server's
 * time, the consumer waits and the window grows again.
 */
const MIN_WINDOW = 1;

/** Parsed items waiting behind the consumer's page from which the read-ahead shrinks (a 1000-item page). */
const SHRINK_AT_ITEMS = 1000;

/**
 * Default bound on the page text (UTF-16 code units, about bytes for ASCII JSON) the read-ahead
 * holds in flight and buffered, besides the consumer's own page: 2 MiB, one 1000-invoice page of
 * the sandbox (1.3 MB of text, about 6 MB parsed) or a dozen 100-item pages. A page in flight
 * counts as the average size of the pages settled so far; one page is always allowed, whatever its
 * size. Measured (scripts/bench, 100,000 invoices, no latency): 4 MiB peaked at 240–260 MiB RSS,
 * 1.5 MiB at 185–200 MiB, at the same wall time; parsed pages waiting in the buffer are promoted
 * to V8's old generation and stay there as garbage until a full collection.
 */
const READ_AHEAD_BYTES = 2 * 1024 * 1024;
// The price: pages over about 1 MiB go one ahead of the consumer whatever `--concurrency` says, so
// a slow server's latency is hidden only for pages smaller than that (a dozen 100-item pages).

/** The bounds of a {@link ReadAhead}: page text, and the items the consumer still wants. */
export interface ReadAheadBounds {
  /** Page text in flight or buffered at most (default {@link READ_AHEAD_BYTES}). */
  maxBytes?: number;
  /** Expected text length of a page until one settled. */
  pageBytes?: number;
  /**
   * Items the consumer wants from page `first` on (`--max-items` less what came before; default
   * all): a page is requested only while the pages before it cannot hold that many.
   */
  wantedItems?: number;
  /**
   * Most items a page holds (the first page's length, ≥ 1): pages not handed over yet count at
   * this size, so a page is never requested ahead when the pages before it may already complete
   * {@link ReadAheadBounds.wantedItems}; a short page moves the limit on.
   */
  perPage?: number;
}

/** Fetches page number `n`; `signal` aborts it when the consumer stops. */
export type PageFetcher = (n: number, signal: AbortSignal) => Promise<FetchedPage>;

/**
 * Pages `first…last` requested ahead: at most `concurrency` in flight or buffered at once (plus the
 * one the consumer holds), and no more than `maxBytes` of page text (see {@link READ_AHEAD_BYTES});
 * fewer (down to 1) while parsed items pile up because the consumer is the slower side, so the
 * buffer holds what keeps the consumer busy and no more.
 */
export class ReadAhead {
  private readonly pending = new Map<number, Promise<FetchedPage>>();
  private readonly settled = new Set<number>();
  private readonly controller = new AbortController();
  private nextToLaunch: number;
  private window: number;
  /** Items of the settled pages not yet consumed. */
  private settledItems = 0;
  /** Text length of the settled pages not yet consumed. */
  private settledBytes = 0;
  /** Text length of every page settled so far, and how many, for the average page size. */
  private seenBytes = 0;
  private seenPages = 0;
  private readonly maxBytes: number;
  /** Items wanted from page `first` on, and the most a page holds (see {@link ReadAheadBounds}). */
  private readonly wantedItems: number;
  private readonly perPage: number;
  /** The last page handed over, and the items of the pages handed over. */
  private lastTaken: number;
  private takenItems = 0;

  /**
   * @param fetchPage fetches one page by number
   * @param first the first page number to request
   * @param last the last page number to request
   * @param concurrency pages in flight or buffered at most (≥ 1)
   * @param bounds `maxBytes`: page text in flight or buffered at most (default
   *   {@link READ_AHEAD_BYTES}); `pageBytes`: the expected text length of a page until one settled
   *   (e.g. the first page's, fetched before the read-ahead starts); `wantedItems` and `perPage`:
   *   no page is requested past the one that may complete the items wanted (`--max-items`)
   */
  constructor(
    private readonly fetchPage: PageFetcher,
    first: number,
    private readonly last: number,
    private readonly concurrency: number,
    bounds: ReadAheadBounds = {},
  ) {
    this.nextToLaunch = first;
    this.window = concurrency;
    this.maxBytes = bounds.maxBytes ?? READ_AHEAD_BYTES;
    this.wantedItems = bounds.wantedItems ?? Number.POSITIVE_INFINITY;
    this.perPage = Math.max(1, bounds.perPage ?? 1);
    this.lastTaken = first - 1;
    if (bounds.pageBytes !== undefined) {
      this.seenBytes = bounds.pageBytes;
      this.seenPages = 1;
    }
  }

  /**
   * Whether one more page fits the byte bound. Pages buffered count at their size, pages in flight
   * at the average size (a fast server turns them into buffered pages within milliseconds).
   * Counting them only while the consumer was seldom kept waiting was tried: on a 2-core machine
   * shared with the server the consumer waits often enough that the bound then hardly applies, and
   * peak RSS stayed at 230–270 MiB.
   */
  private fitsBytes(): boolean {
    if (this.pending.size === 0 || this.seenPages === 0) return true;
    const average = this.seenBytes / this.seenPages;
    const inFlight = this.pending.size - this.settled.size;
    return this.settledBytes + (inFlight + 1) * average <= this.maxBytes;
  }

  /**
   * The last page the consumer may need: the pages handed over hold their real counts, the others
   * {@link ReadAheadBounds.perPage} at most, so any page after this one would only hold items past
   * {@link ReadAheadBounds.wantedItems} (`--max-items` spends no request it does not need).
   */
  get lastNeeded(): number {
    const left = this.wantedItems - this.takenItems;
    if (left === Number.POSITIVE_INFINITY) return this.last;
    return Math.min(this.last, this.lastTaken + Math.ceil(Math.max(0, left) / this.perPage));
  }

  /** Requests pages until the window or the byte bound is full (or every page needed is requested). */
  launch(): void {
    const last = this.lastNeeded;
    while (this.nextToLaunch <= last && this.pending.size < this.window && this.fitsBytes()) this.request(this.nextToLaunch++);
  }

  /** Requests page `n`. */
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

  /**
   * Waits for page `n` (the next in order, already launched or launched now) and hands it over.
   * A page asked for is requested even past {@link ReadAhead.lastNeeded}: the consumer knows best.
   * @throws what fetching page `n` threw (the pages before it have been handed over)
   */
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
    // Adapt how many pages are requested ahead to who is slower. The consumer waited: the
    // network or the server is, so ask for one more (latency hiding). The page was ready and
    // at least SHRINK_AT_ITEMS parsed items wait behind it: the consumer is, so more requests
    // ahead would only buffer parsed pages, which outlive the young generation and cost
    // old-generation GC and memory for nothing. A burst of small pages after a latency is ready
    // too, but holds few items: no reason to give up latency hiding for it.
    if (!ready) this.window = Math.min(this.concurrency, this.window + 1);
    else if (this.settledItems >= SHRINK_AT_ITEMS) this.window = Math.max(Math.min(MIN_WINDOW, this.concurrency), this.window - 1);
    this.launch();
    return fetched;
  }

  /** Aborts the requests in flight and launches no more. */
  stop(): void {
    this.controller.abort();
  }
}
