/**
 * What the library tells its caller as it works (the client's events plus one per page), and how a
 * call stops: the caller's `AbortSignal`, or an error of the caller's listener.
 */
import { AbortError } from '../errors.js';
import type { ClientEvent, RateLimitSnapshot } from '../http/client.js';
import type { PageStep } from '../pagination/paginate.js';

/** A page fetched, before its items are handed over. */
export interface PageEvent {
  type: 'page';
  /** 0-based index of the page in this call. */
  index: number;
  /** Path and query of the page (after redirects). */
  path: string;
  /** Items on the page. */
  items: number;
  /** `hydra:totalItems`, when the page said it. */
  totalItems?: number;
  /** The response's `X-Request-ID`, when sent. */
  requestId?: string;
  /** The response's `X-RateLimit-*` headers, when sent. */
  rateLimit?: RateLimitSnapshot;
}

/** The API pages in another mode than the one asked for, and the call goes on in it (README, cursor-only endpoints). */
export interface ModeEvent {
  type: 'mode';
  /** The mode the API uses. */
  mode: 'cursor' | 'offset';
  /** The mode asked for. */
  asked: 'cursor' | 'offset';
  message: string;
}

/** The `budget` database could not be used: the call paces by the server's headers alone (told once per process). */
export interface BudgetEvent {
  type: 'budget';
  /** Names the database without its password. */
  message: string;
}

/**
 * One event of a call: `page` (a page fetched), `mode` (the API pages in another mode than asked),
 * `budget` (the shared rate budget's database failed; the call paces alone),
 * and the HTTP client's `response` (every response, redirect hops included), `wait` (a rate-limit
 * wait about to be slept: after a 429, on `Remaining: 0`, or a `Retry-After`) and `retry` (a
 * failed attempt about to be retried).
 */
export type CollectionEvent = ClientEvent | PageEvent | ModeEvent | BudgetEvent;

export function pageEvent(step: PageStep): PageEvent {
  const event: PageEvent = { type: 'page', index: step.index, path: step.url.pathname + step.url.search, items: step.page.members.length };
  if (step.page.totalItems !== undefined) event.totalItems = step.page.totalItems;
  if (step.requestId !== undefined) event.requestId = step.requestId;
  if (step.rateLimit !== undefined) event.rateLimit = step.rateLimit;
  return event;
}

/** How one call stops early; see {@link createStopper}. */
export interface Stopper {
  /** Aborted by the caller's signal or by a failure of its listener. */
  readonly signal: AbortSignal;
  /** Hands an event to the caller's listener; an error it throws aborts {@link Stopper.signal}. */
  emit(event: CollectionEvent): void;
  /** What the call throws for `err`: the listener's error, an `AbortError` once the caller aborted, else `err`. */
  explain(err: unknown): unknown;
  /** @throws what {@link Stopper.explain} gives, once the call was stopped */
  throwIfStopped(): void;
}

/** The stopper of one call, from its `signal` and `onEvent` options. */
export function createStopper(options: { signal?: AbortSignal | undefined; onEvent?: ((event: CollectionEvent) => void) | undefined }): Stopper {
  const { signal: caller, onEvent } = options;
  const own = new AbortController();
  const signal = caller === undefined ? own.signal : AbortSignal.any([caller, own.signal]);
  let failure: { error: unknown } | undefined;
  const explain = (err: unknown): unknown => {
    if (failure !== undefined) return failure.error;
    if (caller?.aborted === true) return err instanceof AbortError ? err : new AbortError('aborted', { cause: caller.reason });
    return err;
  };
  return {
    signal,
    emit(event) {
      if (onEvent === undefined || failure !== undefined) return;
      try {
        onEvent(event);
      } catch (error) {
        failure = { error };
        own.abort(error);
      }
    },
    explain,
    throwIfStopped() {
      if (signal.aborted) throw explain(signal.reason);
    },
  };
}
