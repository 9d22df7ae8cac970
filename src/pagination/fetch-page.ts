/**
 * One collection page fetched through the HTTP client and parsed as Hydra inside the client's
 * retry loop: an HTML page, invalid JSON or a 200 that is not a collection is retried like a 5xx
 * (docs/rate-limits.md, "Rate limits, retries and safety": retries), so a page is only ever returned whole.
 */
import type { Client, ResponseHead, ResponseInfo } from '../http/client.js';
import { UnreadableBodyError } from '../http/client.js';
import { parseHttpDate } from '../rate/index.js';
import { HostileResponseError } from '../errors.js';
import { valueMembers, textOfBytes } from '../json/members.js';
import { PageFormatError, parsePageText, refuseHtml } from './hydra.js';
import { scanPageText, type CollectionPage } from './page-scan.js';

/** A page fetched and parsed whole. */
export interface FetchedPage extends ResponseInfo {
  page: CollectionPage;
  /**
   * The exact body text `page` was read from (its length measures the page for memory budgets; the
   * members' texts are slices of it, so keeping it costs nothing more). It is usually a byte text
   * (http/body.ts `readBoundedByteText`): its length is bytes.
   */
  text: string;
  /** The response's `Date` (RFC 9110 §6.6.1), server epoch ms; undefined when absent or unreadable. */
  date?: number;
}

/** Per-call options of {@link fetchPage}. */
export interface PageRequestOptions {
  /** Extra headers (`X-Pagination-Style`, `X-Pagination-Enable-Partial`). */
  headers?: Record<string, string>;
  /** Aborts this request (and its waits) only. */
  signal?: AbortSignal;
  /** Requests still to come to this endpoint after this one, when known (offset pages). */
  demand?: number;
}

/**
 * The client's body parser for collection pages: page-scan.ts {@link scanPageText} of the body (a
 * byte text when the client could read it so: valid UTF-8 without a BOM; else the text decoded as
 * `Response.text()` does, U+FFFD for invalid sequences, as before). A body the scan refuses gets
 * the verdict of {@link parsePageText} (`invalid JSON`, the depth guard, not a collection); were
 * `JSON.parse` to accept what the scan refused, its values are taken rather than failing the page.
 * A {@link PageFormatError} becomes the client's retryable {@link UnreadableBodyError} (same
 * message, so the `retry` event names it: `invalid JSON`, `HTML instead of JSON`, `not a Hydra
 * collection: …`). A {@link HostileResponseError} (JSON nested too deep) is not retried; the
 * page's path is added to its message.
 */
function readHydraBody(text: string, response: ResponseHead): CollectionPage {
  try {
    const contentType = response.headers.get('content-type');
    refuseHtml(contentType);
    const byteText = response.byteText === true;
    const page = scanPageText(text, byteText);
    if (page !== undefined) return page;
    const parsed = parsePageText(byteText ? textOfBytes(text) : text, contentType);
    return { ...parsed, members: valueMembers(parsed.members) };
  } catch (err) {
    if (err instanceof PageFormatError) throw new UnreadableBodyError(err.message, { cause: err });
    if (err instanceof HostileResponseError) {
      const path = response.url.pathname + response.url.search;
      throw new HostileResponseError(`${err.message} (GET ${path})`, { cause: err, ...(err.hint ? { hint: err.hint } : {}) });
    }
    throw err;
  }
}

/**
 * GETs one collection page and parses it.
 * @throws everything {@link Client.get} throws; a body that stays unreadable after the retries
 *   gives ApiUnavailableError (exit 6) naming why, e.g. `invalid JSON`
 */
export async function fetchPage(client: Client, url: URL, options: PageRequestOptions = {}): Promise<FetchedPage> {
  const res = await client.get(url, { ...options, bytes: true, parse: readHydraBody });
  const fetched: FetchedPage = { url: res.url, page: res.body, status: res.status, text: res.text };
  if (res.requestId !== undefined) fetched.requestId = res.requestId;
  if (res.rateLimit !== undefined) fetched.rateLimit = res.rateLimit;
  const date = parseHttpDate(res.headers.get('date'));
  if (date !== undefined) fetched.date = date;
  return fetched;
}
