// A page is parsed inside the client's retry loop: HTML, invalid JSON or a 200 that is not a
// collection is retried like a 5xx, so a page is only ever returned whole.
import type { Client, GetOptions, ResponseHead, ResponseInfo } from '../http/client.js';
import { parseHttpDate } from '../rate/index.js';
import { HostileResponseError } from '../errors.js';
import { defined } from '../json/object.js';
import { valueMembers, textOfBytes } from '../json/members.js';
import { parsePageText, refuseHtml } from './hydra.js';
import { scanPageText, type CollectionPage } from './page-scan.js';

export interface FetchedPage extends ResponseInfo {
  page: CollectionPage;
  /** The body `page` was read from, usually a byte text: it measures the page, and the members' texts are slices of it. */
  text: string;
  /** The response's `Date`, server epoch ms. */
  date?: number;
}

/**
 * The client's body parser. A body the scan refuses gets {@link parsePageText}'s verdict (were
 * `JSON.parse` to accept it, its values are taken rather than failing the page): one that is no
 * collection is the retryable `UnreadableBodyError`, whose message the `retry` event names; JSON
 * nested too deep is not retried, and gets the page's path.
 */
function readHydraBody(text: string, response: ResponseHead): CollectionPage {
  try {
    refuseHtml(response.headers.get('content-type'));
    const byteText = response.byteText === true;
    const page = scanPageText(text, byteText);
    if (page !== undefined) return page;
    const parsed = parsePageText(byteText ? textOfBytes(text) : text);
    return { ...parsed, members: valueMembers(parsed.members) };
  } catch (err) {
    if (!(err instanceof HostileResponseError)) throw err;
    const path = response.url.pathname + response.url.search;
    throw new HostileResponseError(`${err.message} (GET ${path})`, { cause: err, ...(err.advice ? { hint: err.advice } : {}) });
  }
}

/** @throws what {@link Client.get} throws; a body still unreadable after the retries is ApiUnavailableError (exit 6) */
export async function fetchPage(
  client: Client,
  url: URL,
  options: Pick<GetOptions<unknown>, 'headers' | 'signal' | 'demand'> = {},
): Promise<FetchedPage> {
  const res = await client.get(url, { ...options, parse: readHydraBody });
  const date = parseHttpDate(res.headers.get('date'));
  const { requestId, rateLimit } = res;
  return { url: res.url, page: res.body, status: res.status, text: res.text, ...defined({ requestId, rateLimit, date }) };
}
