// The paging mode the server really uses, whatever was asked: the real service's invoice endpoints
// page by cursor only (`page` is a 400), and plain API Platform ignores `X-Pagination-Style`.
import type { Client } from '../http/client.js';
import { HttpError } from '../errors.js';
import { defined } from '../json/object.js';
import { fetchPage, type FetchedPage } from './fetch-page.js';
import { paginate, prefetch, type PageStep, type PagingMode } from './paginate.js';
import type { CollectionPage } from './page-scan.js';

/** A cursor parameter as API Platform links it (`id[lt]`, `id[gt]`; URLSearchParams decodes `%5B…%5D`). */
const CURSOR_KEY = /\[(?:lt|gt)\]$/;

function queryOf(link: string | undefined, base: URL): URLSearchParams | undefined {
  return link !== undefined && URL.canParse(link, base.href) ? new URL(link, base).searchParams : undefined;
}

/**
 * `offset` when a link of the page carries `page`; `cursor` when `next` or `previous` carries a
 * `…[lt]` or `…[gt]` the page's own URL does not hold with that value (a filter such as
 * `total[lt]=5` is in every link); undefined when the links show neither.
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

/** A 400 speaking of a cursor, as the real service's `Only cursor pagination is available for this endpoint.` */
export function isCursorOnlyRefusal(err: unknown): err is HttpError {
  return err instanceof HttpError && err.details.status === 400 && /\bcursor\b/i.test(err.details.serverMessage ?? '');
}

export interface ModeChange {
  asked: PagingMode;
  used: PagingMode;
  /** The 400 that refused the offset request; undefined when the first page's links told. */
  refusal?: HttpError;
}

export interface ServerModeOptions {
  client: Client;
  baseUrl: URL;
  start: URL;
  mode: PagingMode;
  headers: Readonly<Record<PagingMode, Readonly<Record<string, string>>>>;
  concurrency: number;
  /** Items still wanted (Infinity: all), read as pages arrive. */
  wanted: () => number;
  /** Told once, before any page is yielded, when the server pages in another mode; may throw to stop. */
  onChange: (change: ModeChange) => void;
}

/**
 * The pages from `start` in the mode the server uses. The first page is fetched alone, so no
 * read-ahead fires `page=2…` before it showed an offset collection; an offset request refused by
 * {@link isCursorOnlyRefusal}'s 400, or a first page with cursor links, goes on by cursor. Offset
 * pages asked as such go by number with `concurrency` over 1; the rest follow `next`, one page
 * ahead when cursor pages were asked or answered.
 * @throws what {@link paginate} and `onChange` throw
 */
export async function* serverModePages(options: ServerModeOptions): AsyncGenerator<PageStep, void, void> {
  const { client, baseUrl, start, mode: asked, concurrency } = options;
  let first: FetchedPage | undefined;
  let refusal: HttpError | undefined;
  try {
    first = await fetchPage(client, start, { headers: { ...options.headers[asked] } });
  } catch (err) {
    if (asked === 'cursor' || !isCursorOnlyRefusal(err)) throw err;
    refusal = err;
  }
  const mode: PagingMode = first === undefined ? 'cursor' : (modeOfPage(first.page, first.url) ?? asked);
  if (mode !== asked) options.onChange({ asked, used: mode, ...defined({ refusal }) });
  const headers = { ...options.headers[mode] };
  const ahead = mode === 'offset' && asked === 'offset' && concurrency > 1 ? { concurrency, maxItems: options.wanted() } : undefined;
  const open = (signal?: AbortSignal): AsyncGenerator<PageStep, void, void> =>
    paginate({ client, baseUrl, start, headers, emptyPageEnds: mode === 'cursor', ...defined({ signal, first, ahead }) });
  const prefetched = mode === 'cursor' || asked === 'cursor';
  const steps = prefetched ? prefetch(open, (step) => step.next !== undefined && options.wanted() > step.page.members.length) : open();
  for await (const step of steps) yield { ...step, mode };
}
