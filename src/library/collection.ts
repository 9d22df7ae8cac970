/**
 * `collection()` and `collectionPages()`: a collection's items, or its pages, to a Node program.
 * No pager of their own: the pages come from the export's page source (`pageSteps`: offset pages
 * in parallel and in order, or cursor pages with the next one fetched ahead) over the export's
 * HTTP client, planned by the export's planner from the same options, so the pacing, waits,
 * retries, origin rule, loop guards and exact member texts are the command line's.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { planHttp, planPages, planTarget } from '../export/plan/parts.js';
import { resolveSource } from '../export/plan/collection-path.js';
import { optionNamer } from '../config/flags.js';
import type { Client, ClientEvent, RateLimitSnapshot } from '../http/client.js';
import { exportClient } from '../export/run/services.js';
import type { PagesPlan } from '../export/run/plan.js';
import { pageSteps, remaining } from '../export/run/page-loop.js';
import type { PageStep } from '../pagination/paginate.js';
import { textOfBytes, type Members } from '../json/members.js';
import type { JsonNumber } from '../json/json-value.js';
import { exportContext, listenToBudget } from './context.js';
import { createStopper, pageEvent, type ModeEvent, type Stopper } from './events.js';
import { exportOptionsOf, requestOf, settingsOf, type ConnectionOptions, type PagingOptions } from './options.js';

/**
 * A JSON value as the library hands it over: what `JSON.parse` gives, except that a number
 * JavaScript would change (an integer past 2^53, `1.0`, `1.25E-2`) is a {@link JsonNumber}
 * holding its literal.
 */
export type JsonValue = null | boolean | number | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

/** Options of {@link collection} and {@link collectionPages}. */
export interface CollectionOptions extends ConnectionOptions, PagingOptions {
  /** Extra request headers (not `X-Api-Key`, `Accept` or the pagination headers, which options set), each name once in any case. */
  headers?: Readonly<Record<string, string>>;
}

/** One page of a collection, with what its response said. */
export interface CollectionPage<T = JsonValue> {
  /** 0-based index of the page in this call. */
  readonly index: number;
  /** The page's URL (after same-origin redirects). */
  readonly url: URL;
  readonly status: number;
  /** The page's items (all of them, or the first ones under `maxItems`), parsed on first read. */
  readonly items: readonly T[];
  /** Each item's JSON text exactly as the server wrote it (whitespace between tokens aside), in order. */
  texts(): readonly string[];
  /** `hydra:totalItems`, when the page said it (offset mode; cursor mode with `total`). */
  readonly totalItems: number | undefined;
  /** The next page's URL (resolved, same origin, not seen before); undefined on the last page. */
  readonly next: URL | undefined;
  /** The response's `X-Request-ID`, when sent. */
  readonly requestId: string | undefined;
  /** The response's rate-limit headers, when sent. */
  readonly rateLimit: RateLimitSnapshot | undefined;
}

/** Returns its argument: a class extending it stamps its private fields on that object (ES2022 class fields, return override). */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- the constructor's return is the point
class Returns {
  constructor(item: object) {
    return item;
  }
}

/**
 * Where an item handed over came from (its page's members and its place there), stamped on the item
 * as private fields: invisible to every reader of it (keys, `JSON.stringify`, `structuredClone`,
 * `util.inspect`), and cheaper than a `WeakMap` entry per item, whose ephemerons the garbage
 * collector walks (test/bench/results.md, «Item sources stamped, not in a WeakMap»).
 */
class ItemSource extends Returns {
  readonly #members: Members;
  readonly #index: number;

  private constructor(item: object, members: Members, index: number) {
    super(item);
    this.#members = members;
    this.#index = index;
  }

  /** An item that is not an object or array has no identity: nothing to stamp. */
  static stamp(item: unknown, members: Members, index: number): void {
    if (typeof item === 'object' && item !== null && !(#members in item)) new ItemSource(item, members, index);
  }

  static textOf(item: unknown): string | undefined {
    if (typeof item !== 'object' || item === null || !(#members in item)) return undefined;
    return textOfBytes(item.#members.texts()[item.#index]!);
  }
}

/**
 * The exact JSON text of an item that {@link collection} or {@link collectionPages} handed over,
 * as the server wrote it (escapes, number literals and key order kept; whitespace between tokens
 * dropped). Use it to keep 64-bit ids or decimal literals exactly, or to write the item on.
 * @throws {TypeError} for a value that is not an item handed over by this library (an item that is
 *   not an object or array has no identity: read it from {@link CollectionPage.texts})
 */
export function sourceText(item: unknown): string {
  const text = ItemSource.textOf(item);
  if (text === undefined) throw new TypeError('sourceText() takes an item (an object or array) handed over by collection() or collectionPages()');
  return text;
}

/** A page step as a {@link CollectionPage}, its items cut to `members`. */
function pageOf<T>(step: PageStep, members: Members): CollectionPage<T> {
  let items: readonly T[] | undefined;
  let texts: readonly string[] | undefined;
  return {
    index: step.index,
    url: step.url,
    status: step.status,
    get items() {
      if (items !== undefined) return items;
      const values = members.values();
      values.forEach((value, index) => ItemSource.stamp(value, members, index));
      return (items = values as readonly T[]);
    },
    texts: () => (texts ??= members.texts().map(textOfBytes)),
    totalItems: step.page.totalItems,
    next: step.next,
    requestId: step.requestId,
    rateLimit: step.rateLimit,
  };
}

/** A call, planned and connected. */
interface Walk {
  pages: PagesPlan;
  client: Client;
  stopper: Stopper;
  /** Stops telling the call of its `budget` database's failure. */
  unlisten?: () => void;
}

/**
 * Plans a call as an export plans its pages (`planTarget`, `planPages`, `planHttp`).
 * @throws {UsageError} for every bad option, before any request
 */
function openWalk(path: string, options: CollectionOptions): Walk {
  const { command, options: planned } = requestOf(path, exportOptionsOf(options));
  const settings = settingsOf(options);
  const target = planTarget(resolveSource(command, planned, optionNamer), planned, '/', undefined, optionNamer);
  const pages = planPages(target, planned, settings);
  const http = planHttp(planned, settings);
  const stopper = createStopper(options);
  const wiring = { signal: stopper.signal, onEvent: (event: ClientEvent) => stopper.emit(event), onWaitCut: () => undefined };
  const client = exportClient(http, exportContext(options, stopper.signal), wiring);
  return {
    pages,
    client,
    stopper,
    ...(http.budget === undefined ? {} : { unlisten: listenToBudget((message) => stopper.emit({ type: 'budget', message })) }),
  };
}

async function* walkPages<P>(walk: Walk, pageOf: (step: PageStep, members: Members) => P): AsyncGenerator<P, void, undefined> {
  const { pages, client, stopper } = walk;
  const tally = { items: 0 };
  const hooks = { tally, resumedMode: undefined, onMode: (note: Omit<ModeEvent, 'type'>) => stopper.emit({ type: 'mode', ...note }) };
  try {
    stopper.throwIfStopped();
    for await (const step of pageSteps(pages, client, pages.start, hooks)) {
      // A turn first: undici writes a request on a reused connection a turn after it is made (as page-loop's writePages).
      await nextTurn();
      const left = remaining(pages, tally);
      const members = step.page.members.take(left);
      tally.items += members.length;
      stopper.emit(pageEvent(step));
      stopper.throwIfStopped();
      yield pageOf(step, members);
      if (step.page.members.length >= left) return;
    }
  } catch (err) {
    throw stopper.explain(err);
  } finally {
    walk.unlisten?.();
  }
}

/**
 * The pages of a collection, in order, each with its items and what its response said (rate-limit
 * state, request id, links). Pages are fetched as {@link collection} fetches them.
 * @param path the collection's path under the base URL, e.g. `/taxpayers/PEIC211118IS0/invoices`;
 *   a query in it is sent with every page
 * @throws {UsageError} at once, for a bad option (nothing is sent); while iterating, the errors of
 *   {@link collection}
 */
export function collectionPages<T = JsonValue>(path: string, options: CollectionOptions): AsyncGenerator<CollectionPage<T>, void, undefined> {
  return walkPages(openWalk(path, options), pageOf<T>);
}

/**
 * The items of a collection, in order, following `hydra:next` (offset mode: numbered pages fetched
 * `concurrency` at a time; cursor mode: one after the other, the next fetched while the caller
 * works). Rate limits are waited out by the server's clock (`X-RateLimit-Reset`, `Retry-After`),
 * paced before a 429; network errors, 5xx and unreadable pages are retried with backoff; a link to
 * another origin or back to a page already seen stops the iteration. `break` stops it and cancels
 * what is in flight.
 * @param path the collection's path under the base URL, e.g. `/taxpayers/PEIC211118IS0/invoices`
 * @returns the items as {@link JsonValue}s; {@link sourceText} gives each one's exact text
 * @throws {UsageError} at once, for a bad option (nothing is sent). While iterating:
 *   `HttpError` (400/422: `E_API_REJECTED`; 401/403: `E_AUTH`; 404: `E_NOT_FOUND`),
 *   `RateLimitError` (a wait over `maxWaitMs`, or 429s in a row), `ApiUnavailableError` (after the
 *   retries), `UnsafeLinkError`, `HostileResponseError`, `AbortError` (the signal aborted), or
 *   the error `onEvent` threw
 */
export function collection<T = JsonValue>(path: string, options: CollectionOptions): AsyncGenerator<T, void, undefined> {
  const walk = openWalk(path, options);
  return walkItems<T>(
    walkPages(walk, (_, members) => members),
    walk.stopper,
  );
}

async function* walkItems<T>(pages: AsyncGenerator<Members, void, undefined>, stopper: Stopper): AsyncGenerator<T, void, undefined> {
  for await (const members of pages) {
    for (let index = 0; index < members.length; index++) {
      if (stopper.signal.aborted) stopper.throwIfStopped();
      const item = members.value(index);
      ItemSource.stamp(item, members, index);
      yield item as T;
    }
  }
}
