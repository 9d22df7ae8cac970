/**
 * Building blocks of the sandbox's answers: content types, fixed bodies, the HTTP-date and the
 * `X-Request-ID` format, and a mutable {@link ResponseDraft} that the request handler plans and
 * the fault table (fault-table.ts) rewrites before it is sent.
 */
import type { CollectionState, CollectionView } from './collection.js';
import type { NetworkFault } from './faults.js';
import type { RateLimitDecision } from './limiter.js';
import type { PageLinks, PagePlan } from './pages.js';
import { hash32, hex32 } from './random.js';
import { encodeJson, type WireEncoding } from './wire.js';

/** `Content-Type` of error messages (`{"message": …}`). */
export const JSON_TYPE = 'application/json';
/** `Content-Type` of collection pages. */
const LD_TYPE = 'application/ld+json; charset=utf-8';
/** `Content-Type` of injected 5xx answers (RFC 9457 problem details). */
export const PROBLEM_TYPE = 'application/problem+json';
/** `Content-Type` of the injected maintenance page. */
export const HTML_TYPE = 'text/html; charset=utf-8';

/** A proxy's maintenance page, answered with status 200 by the `html` fault. */
export const HTML_PAGE = Buffer.from('<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We’ll be right back</h1></body></html>');
/** `NaN` is not JSON (RFC 8259 §6), so every parser rejects this. */
export const INVALID_JSON = Buffer.from('{"@context":"/contexts/Error","hydra:member":[{"id":NaN,}]');
/** Reason phrases of the injected 5xx statuses (RFC 9110 §15.6); others get `Server Error`. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The JSON body `{"message": message}` of the sandbox's error answers. */
export function messageBody(message: string): Buffer {
  return Buffer.from(JSON.stringify({ message }));
}

/** HTTP-date (RFC 9110 §5.6.7) of an epoch ms, rounded down to the second. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * The `X-Request-ID` of request `number`, shaped like an AWS X-Ray trace id:
 * `Root=1-<epoch seconds, 8 hex>-<24 hex seeded by (seed, number)>`.
 * @param nowMs server time, epoch ms (without clock-offset faults)
 */
export function requestIdOf(seed: number, number: number, nowMs: number): string {
  const random = hex32(hash32(seed, number, 1)) + hex32(hash32(seed, number, 2)) + hex32(hash32(seed, number, 3));
  return `Root=1-${hex32(Math.floor(nowMs / 1000))}-${random}`;
}

/** The collection page an answer carries until a fault replaces it. */
export interface PageDraft {
  plan: PagePlan;
  view: CollectionView;
  state: CollectionState;
  /** The links to write: a copy of `plan.links` that link faults rewrite. */
  links: PageLinks;
  /** `hydra:`-prefixed terms (false: the unprefixed terms of current API Platform). */
  prefixed: boolean;
}

/** An answer being made: planned from the request, then rewritten by the faults that fired. */
export interface ResponseDraft {
  status: number;
  contentType: string;
  body: Buffer;
  /** Headers sent after the standard ones, in insertion order (`Allow`, `Location`, `Retry-After`). */
  extra: Record<string, string>;
  /** What the `X-RateLimit-*` headers say. */
  decision: RateLimitDecision;
  /** The page to render, while no fault replaced the answer. */
  page: PageDraft | undefined;
  /** How far the server clock is ahead (ms; negative: behind), by clock-offset faults. */
  offsetMs: number;
  /** The final headers, filled once the body is final; header faults rewrite them. */
  headers: Record<string, string>;
  /** A network fault the transport acts out. */
  network: NetworkFault | undefined;
}

/** A 200 draft with an empty body, no page and the limiter's decision. */
export function createDraft(decision: RateLimitDecision): ResponseDraft {
  return {
    status: 200,
    contentType: LD_TYPE,
    body: Buffer.alloc(0),
    extra: {},
    decision,
    page: undefined,
    offsetMs: 0,
    headers: {},
    network: undefined,
  };
}

/** Turns a draft into a `{"message": …}` answer with `status`; any page is dropped. */
export function setMessage(draft: ResponseDraft, status: number, message: string): void {
  draft.status = status;
  draft.contentType = JSON_TYPE;
  draft.body = messageBody(message);
  draft.page = undefined;
}

/**
 * How the sandbox writes the errors the framework answers itself (400, 404, 405): `message`, the
 * service's documented `{"message": …}`, or `problem`, API Platform's `application/problem+json`.
 * A 401 and a 429 come from the deployment in front of it: `{"message": …}` in both.
 */
export type ErrorStyle = 'message' | 'problem';

/** An unknown route's 404 as API Platform writes it (Symfony's routing, before any resource). */
const UNKNOWN_ROUTE = { type: 'https://tools.ietf.org/html/rfc2616#section-10', title: 'An error occurred', detail: 'Not Found' };

/**
 * Turns a draft into the framework's error answer with `status` in `style`: `{"message": detail}`,
 * or API Platform's problem details (an unknown route's own body when `unknownRoute`).
 */
export function setFrameworkError(
  draft: ResponseDraft,
  status: number,
  detail: string,
  style: ErrorStyle,
  wire: WireEncoding,
  unknownRoute = false,
): void {
  if (style === 'message') {
    setMessage(draft, status, detail);
    return;
  }
  const problem = unknownRoute
    ? UNKNOWN_ROUTE
    : { '@context': '/contexts/Error', '@type': 'Error', title: 'An error occurred', detail, status, description: detail, type: `/errors/${status}` };
  draft.status = status;
  draft.contentType = PROBLEM_TYPE;
  draft.body = Buffer.from(encodeJson(problem, wire));
  draft.page = undefined;
}
