/**
 * Follows `hydra:next` from a first URL, yielding each page once it parsed whole
 * (conventions.md, rule 8). STUB: interface fixed; implementation by the http work.
 */
import type { Client, FetchedPage } from '../http/client.js';

/** Options of {@link paginate}. */
export interface PaginateOptions {
  client: Client;
  /** The configured base URL: links resolve against it and must keep its origin. */
  baseUrl: URL;
  /** First page to fetch (absolute). */
  start: URL;
  /** Extra headers for every page (`X-Pagination-Style`, `X-Pagination-Enable-Partial`). */
  headers?: Record<string, string>;
  /** Links already fetched before a resume (absolute URL strings), for loop detection. */
  seen?: Iterable<string>;
}

/** A page plus where to go next. */
export interface PageStep extends FetchedPage {
  /** 0-based index of the page in this run. */
  index: number;
  /** The resolved, origin-checked next link; undefined on the last page. */
  next: URL | undefined;
}

/**
 * Yields pages in order until one has no `next`. Callers may `break` at any time.
 * @throws {UnsafeLinkError} when `next` has another origin or was already fetched (a loop),
 *   plus everything {@link Client.getPage} throws.
 */
export async function* paginate(options: PaginateOptions): AsyncGenerator<PageStep, void, void> {
  void options;
  throw new Error('not implemented');
}
