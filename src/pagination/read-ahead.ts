/**
 * The read-ahead of concurrent offset pages: requests pages `first…last` ahead of the consumer and
 * hands them over strictly in order, adapting how many are requested ahead to which side is slower.
 *
 * Not `p-limit`: p-limit bounds the tasks *running*, and its queue would take every page up front.
 * This bounds the pages in flight *or settled and not yet consumed* (the memory the buffer holds),
 * launches a page only when the bound has room, and moves the bound while pages are consumed; the
 * rate limit itself is the governor's (http/governor.ts), not this module's.
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

/** Fetches page number `n`; `signal` aborts it when the consumer stops. */
export type PageFetcher = (n: number, signal: AbortSignal) => Promise<FetchedPage>;

/**
 * Pages `first…last` requested ahead: at most `concurrency` in flight or buffered at once (plus the
 * one the consumer holds); fewer (down to 1) while parsed items pile up because the consumer is the
 * slower side, so the buffer holds what keeps the consumer busy and no more.
 */
export class ReadAhead {
  private readonly pending = new Map<number, Promise<FetchedPage>>();
  private readonly settled = new Set<number>();
  private readonly controller = new AbortController();
  private nextToLaunch: number;
  private window: number;
  /** Items of the settled pages not yet consumed. */
  private settledItems = 0;

  /**
   * @param fetchPage fetches one page by number
   * @param first the first page number to request
   * @param last the last page number to request
   * @param concurrency pages in flight or buffered at most (≥ 1)
   */
  constructor(
    private readonly fetchPage: PageFetcher,
    first: number,
    private readonly last: number,
    private readonly concurrency: number,
  ) {
    this.nextToLaunch = first;
    this.window = concurrency;
  }

  /** Requests pages until the window is full (or every page is requested). */
  launch(): void {
    while (this.nextToLaunch <= this.last && this.pending.size < this.window) {
      const n = this.nextToLaunch++;
      const p = this.fetchPage(n, this.controller.signal);
      // Awaited in order later; a failure of a later page must not be an unhandled rejection meanwhile.
      p.then(
        (f) => {
          this.settled.add(n);
          this.settledItems += f.page.members.length;
        },
        () => this.settled.add(n),
      );
      this.pending.set(n, p);
    }
  }

  /**
   * Waits for page `n` (the next in order, already launched or launched now) and hands it over.
   * @throws what fetching page `n` threw (the pages before it have been handed over)
   */
  async take(n: number): Promise<FetchedPage> {
    this.launch();
    const ready = this.settled.has(n);
    const fetched = await this.pending.get(n)!;
    this.pending.delete(n);
    this.settled.delete(n);
    this.settledItems -= fetched.page.members.length;
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
