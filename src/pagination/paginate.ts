// Every `hydra:next` is resolved against its page's URL and checked before anything is sent to it:
// another origin or a loop stops the export (the key stays home).
import type { Client } from '../http/client.js';
import { assertSameOrigin, resolveSameOrigin } from '../http/origin.js';
import { LoopGuard } from './loop-guard.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';
import { offsetRange, type OffsetRangeOptions, type PageRange } from './offset.js';
import { defined } from '../json/object.js';

export interface PaginateOptions {
  client: Client;
  /** The configured base URL: links must keep its origin. */
  baseUrl: URL;
  start: URL;
  /** `X-Pagination-Style`, `X-Pagination-Enable-Partial`. */
  headers?: Record<string, string>;
  /**
   * Cursor mode: a page without items ends the collection, whatever it links to. API Platform's
   * `PartialCollectionViewNormalizer` links every cursor page on, since 4.3.5 an empty one too.
   */
  emptyPageEnds?: boolean;
  signal?: AbortSignal;
  /** The page `start` answered, fetched already: yielded without a request. */
  first?: FetchedPage;
  /** Offset pages fetched ahead by number once the first page shows their range ({@link offsetRange}). */
  ahead?: Pick<OffsetRangeOptions, 'concurrency' | 'maxItems'>;
}

/** Offset pages (`page=N`, `totalItems`) or cursor pages (`id[lt]=…` links). */
export type PagingMode = 'cursor' | 'offset';

export interface PageStep extends FetchedPage {
  /** 0-based, in this run. */
  index: number;
  /** Resolved and origin-checked; undefined on the last page. */
  next: URL | undefined;
  /** The mode the server pages in, once known. */
  mode?: PagingMode;
}

/**
 * Yields pages in order until one has no `next` (or, with `emptyPageEnds`, no items). A page whose
 * `next` is refused, or that repeats the items of a page fetched before, is not yielded: its error
 * comes instead, before any request to the link.
 * @throws {UnsafeLinkError} for another origin or a loop; {@link HostileResponseError} for too many
 *   empty pages in a row that link on; what {@link fetchPage} throws
 */
export async function* paginate(options: PaginateOptions): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl, headers, signal } = options;
  assertSameOrigin(options.start, baseUrl, 'the first page');
  const loop = new LoopGuard();
  let range: PageRange | undefined;
  let url: URL | undefined = options.start;
  try {
    for (let index = 0; url !== undefined; index++) {
      const fetched: FetchedPage =
        index === 0 && options.first
          ? options.first
          : await (range?.take(index) ?? fetchPage(client, url, { headers, ...(signal ? { signal } : {}) }));
      loop.addPage(url, fetched);
      const ends = options.emptyPageEnds === true && fetched.page.members.length === 0;
      let next = range?.next(index);
      const link = next === undefined && !ends ? fetched.page.view?.next : undefined;
      if (link !== undefined) {
        // Against the page's own URL: `?page=2`, `/path?page=2` and absolute links.
        next = resolveSameOrigin(link, fetched.url, baseUrl, 'a hydra:next link');
        loop.checkLink(next);
      }
      if (index === 0 && next !== undefined && options.ahead) {
        range = offsetRange({ client, baseUrl, start: options.start, ...options.ahead, ...defined({ headers }) }, fetched, next);
        next = range?.next(0) ?? next;
      }
      loop.checkEmpty(fetched, next);
      yield { ...fetched, index, next };
      url = next;
    }
  } finally {
    range?.stop();
  }
}

/**
 * Yields what `open`'s generator yields, asking it for the next item as soon as one is handed
 * over, so the consumer's work on page k overlaps the fetch of page k+1 (pages that must come one
 * after the other: cursor mode). At most one item ahead.
 * - An error producing item k+1 reaches the consumer when it asks for item k+1, as without this.
 * - `wants(item)` false (e.g. `--max-items` reached): nothing is asked for ahead.
 * - The consumer stopping aborts `open`'s signal, cancelling a request ahead, then closes the source.
 */
export async function* prefetch<T>(
  open: (signal: AbortSignal) => AsyncGenerator<T, void, void>,
  wants: (item: T) => boolean,
): AsyncGenerator<T, void, void> {
  const controller = new AbortController();
  const source = open(controller.signal);
  let ahead: Promise<IteratorResult<T, void>> | undefined = source.next();
  try {
    for (;;) {
      const result: IteratorResult<T, void> = await (ahead ?? source.next());
      ahead = undefined;
      if (result.done === true) return;
      if (wants(result.value)) {
        ahead = source.next();
        // Awaited on the consumer's next request; until then, a failure is not an unhandled rejection.
        ahead.catch(() => undefined);
      }
      yield result.value;
    }
  } finally {
    if (ahead !== undefined) {
      controller.abort();
      await ahead.catch(() => undefined);
    }
    await source.return();
  }
}
