/**
 * The one type HTTP needs from the outside world, kept in a leaf module so that the ground floor
 * (`context.ts`) can name it without importing the rest of `http/`.
 */

/**
 * The subset of WHATWG `fetch` the client uses. Production binds undici's fetch to one shared Agent
 * (http/transport.ts); tests pass `globalThis.fetch` under nock, or a sandbox's handler.
 */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;
