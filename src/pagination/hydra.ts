/**
 * Pure parsing of one JSON-LD/Hydra collection page (api-contract.md §2). Accepts the prefixed
 * (`hydra:member`) and unprefixed (`member`) spellings, as API Platform emits both (real-service.md).
 */

/** Links of a page's `hydra:view` (all as they appear in the body: relative or absolute URI strings). */
export interface HydraView {
  /** `@id`: the current page. */
  id?: string;
  first?: string;
  /** Absent on the last page. */
  next?: string;
  previous?: string;
  last?: string;
}

/** One parsed collection page. */
export interface HydraPage {
  /** `hydra:member` / `member`: the items, as parsed JSON values. */
  members: unknown[];
  /** `hydra:totalItems` / `totalItems` when present (always in offset mode; in cursor mode only with `X-Pagination-Enable-Partial: 0`). */
  totalItems?: number;
  /** `hydra:view` / `view`; undefined when the page has none (a single-page collection). */
  view?: HydraView;
}

/** The body is not a Hydra collection (retryable: the page is never emitted). */
export class PageFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageFormatError';
  }
}

/**
 * Parses a decoded JSON body into a {@link HydraPage}.
 * @throws {PageFormatError} when the body is not an object, or `member` is present but not an array,
 *   or neither `member`, `totalItems` nor `view` is present (not a collection).
 */
export function parsePage(body: unknown): HydraPage {
  void body;
  throw new Error('not implemented');
}
