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
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher: agent } as Parameters<typeof undiciFetch>[1])) as unknown as FetchLike;
}
