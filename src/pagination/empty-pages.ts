/**
 * The bound on empty pages (docs/security.md, "A hostile or broken server"): a server that keeps answering
 * pages with no items and a `next` link would otherwise be followed for ever. It guards offset
 * mode; in cursor mode an empty page is the end of the collection (pagination/paginate.ts
 * `emptyPageEnds`), so the chain API Platform 4.3.5+ links on from it is never followed.
 */
import { HostileResponseError } from '../errors.js';
import type { FetchedPage } from './fetch-page.js';

/** Consecutive empty pages with a next link accepted; one more stops the export. */
const MAX_EMPTY_PAGES = 3;

/**
 * Counts consecutive pages that have no items yet link to a next page; a page with items, or
 * without a next link, resets the count.
 * @param limit empty pages with a next link accepted in a row (default {@link MAX_EMPTY_PAGES})
 * @returns a check to call with every page and its resolved next link, before the page is yielded
 * @throws {HostileResponseError} (exit 6, from the check) for the `limit + 1`-th such page in a row,
 *   before its next link is requested
 */
export function createEmptyPageGuard(limit = MAX_EMPTY_PAGES): (fetched: FetchedPage, next: URL | undefined) => void {
  let empty = 0;
  return (fetched, next) => {
    if (next === undefined || fetched.page.members.length > 0) {
      empty = 0;
      return;
    }
    if (++empty > limit) {
      throw new HostileResponseError(
        `the API sent ${empty} empty pages in a row that each link to a next one (last: GET ${fetched.url.pathname}${fetched.url.search})`,
        { hint: 'the server keeps paging without items; stopping instead of following it for ever' },
      );
    }
  };
}
