/**
 * The paging mode the server really uses (docs/choices.md, "Cursor-only endpoints and honest mode"), whatever
 * the client asked for: the real service's current invoice endpoints page by cursor only (a request
 * carrying `page` is a 400 `Only cursor pagination is available for this endpoint.`), and plain API
 * Platform ignores `X-Pagination-Style`, the deployment's own header, so `--cursor` gets offset pages.
 * {@link serverModePages} reads the first page (or that 400), says once when the mode is not the one
 * asked for, and pages on in the mode the server uses.
 */
import type { Client } from '../http/client.js';
import { HttpError } from '../errors.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';
import { offsetPagesAfter } from './offset.js';
import { paginate, type PageStep, type PagingMode } from './paginate.js';
import type { CollectionPage } from './page-scan.js';
import { prefetch } from './prefetch.js';

export type { PagingMode } from './paginate.js';

/** A cursor parameter as API Platform links it (`id[lt]`, `id[gt]`; URLSearchParams decodes `%5B…%5D`). */
const CURSOR_KEY = /\[(?:lt|gt)\]$/;

/** The query of `link` resolved against `base`; undefined for a link that is no URL. */
function queryOf(link: string | undefined, base: URL): URLSearchParams | undefined {
  if (link === undefined) return undefined;
  try {
    return new URL(link, base).searchParams;
  } catch {
    return undefined;
  }
}

/**
 * The mode a page's links show: `offset` when one of them carries `page`; `cursor` when `next` or
 * `previous` carries a cursor (a `…[lt]` or `…[gt]` parameter the page's own URL does not hold with
 * that value: a filter such as `total[lt]=5` is in every link) and none carries `page`; undefined
 * when they show neither (no `view`, or no link to another page).
 * @param url the page's URL, which its links are resolved against
 */
export function modeOfPage(page: Pick<CollectionPage, 'view'>, url: URL): PagingMode | undefined {
  const view = page.view;
  if (view === undefined) return undefined;
  const links = [view.id, view.first, view.previous, view.next, view.last].map((l) => queryOf(l, url));
  if (links.some((q) => q?.has('page'))) return 'offset';
  const own = url.searchParams;
  const moves = (q: URLSearchParams | undefined): boolean => q !== undefined && [...q].some(([k, v]) => CURSOR_KEY.test(k) && own.get(k) !== v);
  return moves(queryOf(view.next, url)) || moves(queryOf(view.previous, url)) ? 'cursor' : undefined;
}

/**
 * Whether `err` is a server saying that only cursor pagination is available: a 400 whose message
 * speaks of a cursor, as the real service's `Only cursor pagination is available for this endpoint.`
 */
export function isCursorOnlyRefusal(err: unknown): err is HttpError {
  return err instanceof HttpError && err.details.status === 400 && /\bcursor\b/i.test(err.details.serverMessage ?? '');
}

/** The server pages in another mode than the one asked for. */
export interface ModeChange {
  asked: PagingMode;
  used: PagingMode;
  /** The 400 that refused the offset request; undefined when the first page's links told. */
  refusal?: HttpError;
}

/** Options of {@link serverModePages}. */
export interface ServerModeOptions {
  client: Client;
  /** The configured base URL: links must keep its origin. */
  baseUrl: URL;
  /** First page to fetch (absolute). */
  start: URL;
  /** The mode asked for. */
  mode: PagingMode;
  /** The pagination headers of each mode (cursor: `X-Pagination-Style: cursor`). */
  headers: Readonly<Record<PagingMode, Readonly<Record<string, string>>>>;
  /** Offset pages in flight once the first page showed an offset collection (≥ 1). */
  concurrency: number;
  /** Items still wanted (`--max-items` less those written; Infinity: all), read as pages arrive. */
  wanted: () => number;
  /**
   * Told once, before any page is yielded, when the server pages in another mode; it may throw to
   * stop (e.g. `--page` asked for offset pages the server does not have).
   */
  onChange: (change: ModeChange) => void;
}

/**
 * The pages from `start` in the mode the server uses, each step with its `mode`. The first page is
 * fetched alone in the mode asked for, so no offset read-ahead fires `page=2…` before it showed an
 * offset collection. An offset request refused with {@link isCursorOnlyRefusal}'s 400, or a first
 * page whose links are cursors, goes on in cursor mode from `start` or that page; a cursor request
 * answered with offset pages goes on following their `next`. Cursor mode ends at the first empty
 * page (paginate.ts `emptyPageEnds`) and fetches the next page while this one is written
 * (prefetch.ts), as does a `--cursor` export the server pages by offset; an offset export pages by
 * number, `concurrency` pages in flight (offset.ts).
 * @throws what {@link paginate}, {@link offsetPagesAfter} and `onChange` throw; the 400 when the
 *   request already was in cursor mode
 */
export async function* serverModePages(options: ServerModeOptions): AsyncGenerator<PageStep, void, void> {
  const { client, start, mode: asked, headers } = options;
  let first: FetchedPage;
  try {
    first = await fetchPage(client, start, { headers: { ...headers[asked] } });
  } catch (err) {
    if (asked === 'cursor' || !isCursorOnlyRefusal(err)) throw err;
    options.onChange({ asked, used: 'cursor', refusal: err });
    yield* following(options, 'cursor', start);
    return;
  }
  const used = modeOfPage(first.page, first.url) ?? asked;
  if (used !== asked) options.onChange({ asked, used });
  if (used === 'offset' && asked === 'offset' && options.concurrency > 1) {
    const steps = offsetPagesAfter({ ...options, headers: { ...headers.offset }, maxItems: options.wanted() }, first);
    for await (const step of steps) yield { ...step, mode: used };
    return;
  }
  yield* following(options, used, start, first);
}

/**
 * Follows `next` from `start` (whose page is `first` when fetched already) in `mode`: in cursor
 * mode the first empty page ends it. The next page is fetched while this one is written, unless
 * the items wanted are reached, or the export pages by offset one page at a time as asked
 * (`--concurrency 1`).
 */
async function* following(options: ServerModeOptions, mode: PagingMode, start: URL, first?: FetchedPage): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl } = options;
  const headers = { ...options.headers[mode] };
  const open = (signal?: AbortSignal): AsyncGenerator<PageStep, void, void> =>
    paginate({ client, baseUrl, start, headers, emptyPageEnds: mode === 'cursor', ...(signal ? { signal } : {}), ...(first ? { first } : {}) });
  const ahead = mode === 'cursor' || options.mode === 'cursor';
  const steps = ahead ? prefetch(open, (step) => step.next !== undefined && options.wanted() > step.page.members.length) : open();
  for await (const step of steps) yield { ...step, mode };
}
