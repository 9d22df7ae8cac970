// Offset pages requested ahead and handed over in order. Not `p-limit`: it bounds the tasks
// running and queues every page up front; this bounds the pages held, in flight or buffered.
import type { FetchedPage } from './fetch-page.js';

/** Fewest pages requested ahead once the consumer is the bottleneck: the next one, fetched while this one is written. */
const MIN_WINDOW = 1;

/** Parsed items waiting behind the consumer's page from which the read-ahead shrinks (a 1000-item page). */
const SHRINK_AT_ITEMS = 1000;

/**
 * Page text (UTF-16 code units, about bytes) held in flight and buffered besides the consumer's
 * page: one 1000-invoice sandbox page (1.3 MB of text, about 6 MB parsed) or a dozen 100-item pages.
 * Measured (scripts/bench, 100,000 invoices): 4 MiB peaked at 240–260 MiB RSS, 1.5 MiB at 185–200
 * MiB, at the same wall time; buffered parsed pages reach V8's old generation and stay there as
 * garbage until a full collection. The price: pages over about 1 MiB go one ahead whatever
 * `--concurrency` says, so a slow server's latency is hidden only for smaller pages.
 */
const READ_AHEAD_BYTES = 2 * 1024 * 1024;

export interface ReadAheadBounds {
  /** Page text in flight or buffered at most (default {@link READ_AHEAD_BYTES}; one page is always allowed). */
  maxBytes?: number;
  pageBytes?: number;
  /** Items the consumer wants from page `first` on (default all). */
  wantedItems?: number;
  /** Most items a page holds (≥ 1): pages not handed over count at this size against `wantedItems`. */
  perPage?: number;
}

export type PageFetcher = (n: number, signal: AbortSignal) => Promise<FetchedPage>;

/**
 * Pages `first…last`: at most `concurrency` in flight or buffered (plus the consumer's), within
 * `maxBytes` of text, fewer (down to 1) while parsed items pile up because the consumer is slower.
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
  private readonly maxBytes: number;
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
   * Pages in flight count at the average size: a fast server makes them buffered pages within
   * milliseconds. Counting them only while the consumer was seldom kept waiting was tried: on 2 cores
   * shared with the server the bound then hardly applied, and peak RSS stayed at 230–270 MiB.
   */
  private fitsBytes(): boolean {
    if (this.pending.size === 0 || this.seenPages === 0) return true;
    const average = this.seenBytes / this.seenPages;
    const inFlight = this.pending.size - this.settled.size;
    return this.settledBytes + (inFlight + 1) * average <= this.maxBytes;
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

  /**
   * Page `n`, the next in order; requested even past {@link ReadAhead.lastNeeded}: the consumer knows best.
   * @throws what fetching page `n` threw
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
    // The consumer waited: the server is slower, ask for one more ahead. The page was ready with
    // SHRINK_AT_ITEMS parsed items behind it: the consumer is, and more pages ahead would only
    // outlive the young generation. A burst of small pages after a latency holds few items: kept.
    if (!ready) this.window = Math.min(this.concurrency, this.window + 1);
    else if (this.settledItems >= SHRINK_AT_ITEMS) this.window = Math.max(Math.min(MIN_WINDOW, this.concurrency), this.window - 1);
    this.launch();
    return fetched;
  }

  stop(): void {
    this.controller.abort();
  }
}
