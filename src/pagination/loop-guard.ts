// Guards against a server that pages for ever: a next link to a page fetched, the same items
// under ever new URLs, empty pages that keep linking on (docs/security.md).
import { createHash } from 'node:crypto';
import { HostileResponseError, UnsafeLinkError } from '../errors.js';
import { normalizeUrl } from '../http/origin.js';
import type { FetchedPage } from './fetch-page.js';
import type { CollectionPage } from './page-scan.js';

const LOOP_HINT = 'the server returned a looping next link; stopping to avoid duplicate items';

/**
 * The item count and the SHA-256 of the first and last item's text. Distinct pages never share it
 * unless they hold the same items: cursor pages move strictly past their last item, and offset
 * pages that repeat another page whole are duplicates anyway. Two items only: the cost does not
 * grow with the page.
 */
function contentKey(page: CollectionPage): string | undefined {
  const { members } = page;
  if (members.length === 0) return undefined;
  const texts = members.texts();
  const hash = createHash('sha256');
  hash.update(texts[0] as string, 'latin1');
  hash.update('\u0000');
  hash.update(texts[texts.length - 1] as string, 'latin1');
  return `${members.length}:${hash.digest('base64')}`;
}

/** Empty pages in a row that link on, past which a server pages for ever (in cursor mode an empty page ends the collection). */
const EMPTY_PAGE_LIMIT = 3;

/** One export's fetched URLs, normalised (query sorted, repeats folded: `&x=1&x=1` is no new URL), and page contents: a short string a page. */
export class LoopGuard {
  readonly #urls = new Set<string>();
  readonly #contents = new Set<string>();
  #empty = 0;

  /** @throws {UnsafeLinkError} (exit 6) when `next` was fetched before */
  checkLink(next: URL): void {
    if (this.#urls.has(normalizeUrl(next))) {
      throw new UnsafeLinkError(`the API's hydra:next link loops back to a page already fetched (${next.pathname}${next.search})`, {
        hint: LOOP_HINT,
      });
    }
  }

  /**
   * Notes the URL asked, the page's own (after redirects), its `view`'s `@id` (`?page=1` for a
   * first page asked without `page`) and its content.
   * @throws {UnsafeLinkError} (exit 6) when its items were fetched before under another URL
   */
  addPage(asked: URL, { page, url }: FetchedPage): void {
    this.#urls.add(normalizeUrl(asked));
    this.#urls.add(normalizeUrl(url));
    const self = page.view?.id;
    // An @id that is no URL is skipped: a link to it is refused when followed.
    if (self !== undefined && URL.canParse(self, url.href)) this.#urls.add(normalizeUrl(new URL(self, url)));
    const key = contentKey(page);
    if (key === undefined) return;
    if (this.#contents.has(key)) {
      throw new UnsafeLinkError(
        `the API answered a page already fetched again under another URL (GET ${url.pathname}${url.search}: the same ${page.members.length} items)`,
        { hint: LOOP_HINT },
      );
    }
    this.#contents.add(key);
  }

  /**
   * @throws {HostileResponseError} (exit 6) at the `EMPTY_PAGE_LIMIT + 1`-th page in a row without
   *   items that links to a next one, before that link is requested
   */
  checkEmpty({ page, url }: FetchedPage, next: URL | undefined): void {
    if (next === undefined || page.members.length > 0) {
      this.#empty = 0;
      return;
    }
    if (++this.#empty > EMPTY_PAGE_LIMIT) {
      throw new HostileResponseError(
        `the API sent ${this.#empty} empty pages in a row that each link to a next one (last: GET ${url.pathname}${url.search})`,
        { hint: 'the server keeps paging without items; stopping instead of following it for ever' },
      );
    }
  }
}
