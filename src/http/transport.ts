/**
 * The only module that imports undici (so the rest of the code depends on `FetchLike` alone): one
 * shared keep-alive Agent and undici's fetch bound to it.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from './fetch-like.js';

/** Options of the shared Agent. */
export interface TransportOptions {
  /** Sockets per origin (default 16; offset-mode concurrency never needs more). */
  connections?: number;
  /** How long an idle socket is kept, ms (default 10 000). */
  keepAliveTimeoutMs?: number;
}

/**
 * Creates undici's fetch bound to one keep-alive {@link Agent}. Redirects are left to the caller
 * (`redirect: 'manual'`), so no redirect carries the key to another origin (undici #4917).
 */
export function createTransportFetch(options: TransportOptions = {}): FetchLike {
  const agent = new Agent({
    connections: options.connections ?? 16,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    pipelining: 1,
  });
  // The package's Response is a WHATWG Response but not the class of Node's global `Response` (Node
  // bundles its own copy of undici); FetchLike asks for the shape only, and no code tests `instanceof`.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a structural fetch on purpose, see above
  return (input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent });
}
