/**
 * The loop guard (docs/security.md, "A hostile or broken server": loops): a `hydra:next` chain must not lead
 * back to a page already fetched. Two checks that padding cannot defeat together:
 * - by URL: every URL fetched is remembered in the normalised form of http/origin.ts
 *   `normalizeUrl` (query sorted by name, identical pairs in a row folded), and a next link to one
 *   of them is refused before it is requested;
 * - by content: a non-empty page whose items are those of a page already fetched (same count, same
 *   first and last item, compared by hash) is refused before it is yielded, so a server that answers
 *   the same page under ever new URLs (`&x=1`, `&x=1&x=1`, …, or `&x=1&x=2&x=1`…) is stopped on the
 *   second copy, and no item is written twice.
 */
import { createHash } from 'node:crypto';
import { UnsafeLinkError } from '../errors.js';
import { normalizeUrl } from '../http/origin.js';
import type { CollectionPage } from './page-scan.js';

/** The hint of every loop refusal. */
const LOOP_HINT = 'the server returned a looping next link; stopping to avoid duplicate items';

/**
 * The identity of a page's content: its item count and the SHA-256 of its first and last item's
 * JSON text (json/members.ts `Members.texts`: the bytes as received, whitespace outside strings dropped). Two
 * distinct pages of a collection never share it unless they hold the same items: cursor pages move
 * strictly past their last item, and offset pages that repeat another page whole are duplicates
 * anyway. Only two items are hashed, so the cost does not grow with the page.
 * @returns undefined for a page without items (empty pages are bounded by pagination/empty-pages.ts)
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

/**
 * What one export has fetched: normalised URLs and page contents. Memory grows by one short string
 * per URL and per page, like the checkpoint's page count, never with the items.
 */
export class LoopGuard {
  readonly #urls = new Set<string>();
  readonly #contents = new Set<string>();

  /** @param urls URLs fetched before (absolute strings, e.g. before a resume) */
  constructor(urls: Iterable<string> = []) {
    for (const u of urls) this.#urls.add(normalizeUrl(u));
  }

  /** Notes a URL as fetched (the one requested, and the final one after redirects). */
  addUrl(url: URL | string): void {
    this.#urls.add(normalizeUrl(url));
  }

  /**
   * Refuses a next link to a page already fetched.
   * @throws {UnsafeLinkError} (exit 6) when `next`, normalised, was fetched before
   */
  checkLink(next: URL): void {
    if (this.#urls.has(normalizeUrl(next))) {
      throw new UnsafeLinkError(`the API's hydra:next link loops back to a page already fetched (${next.pathname}${next.search})`, {
        hint: LOOP_HINT,
      });
    }
  }

  /**
   * Notes a page's content, refusing a page whose items were already fetched under another URL,
   * and its own name for itself (`view`'s `@id`, e.g. `?page=1` for a first page asked without
   * `page`) as a URL fetched.
   * @param url the page's URL, for the message and to resolve its `@id` against
   * @throws {UnsafeLinkError} (exit 6) for the second page with the same content key
   */
  addPage(page: CollectionPage, url: URL): void {
    const self = page.view?.id;
    if (self !== undefined) {
      try {
        this.#urls.add(normalizeUrl(new URL(self, url)));
      } catch {
        // Not a URL: a link to it is refused when followed.
      }
    }
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
}
