/**
 * Small helpers for the sandbox tests: a request against `handle()` and a walker that follows
 * `hydra:next` links to the end.
 */
import type { Sandbox } from '../../../src/sandbox/app.js';

export const KEY = 'test-key';
export const ORIGIN = 'http://sandbox.test';

/** Headers of an authenticated request, optionally in cursor mode. */
export function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { 'X-Api-Key': KEY, Accept: 'application/ld+json', ...extra };
}

/** GET `pathAndQuery` on the sandbox with `hdrs`. */
export function get(sandbox: Sandbox, pathAndQuery: string, hdrs: Record<string, string> = headers()): Promise<Response> {
  return sandbox.handle(new Request(new URL(pathAndQuery, ORIGIN), { headers: hdrs }));
}

/** A page body with prefixed Hydra keys, as far as the tests read it (JSON.parse does not check it). */
export interface HydraBody {
  '@type': string;
  'hydra:member': unknown[];
  'hydra:view': { '@id': string; 'hydra:next': string };
}

/** A page body with unprefixed keys (the `unprefixed` fault), as far as the tests read it. */
export interface UnprefixedBody {
  '@type': string;
  member: unknown[];
  view: { '@type': string; next: string };
}

/** A collection page, either key style. */
export interface Page {
  members: Array<{ id: string; [k: string]: unknown }>;
  total: number | undefined;
  view: Record<string, string>;
  raw: Record<string, unknown>;
}

/** Parses a page body (prefixed Hydra keys). */
export function parsePage(body: unknown): Page {
  const raw = body as Record<string, unknown>;
  return {
    members: raw['hydra:member'] as Page['members'],
    total: raw['hydra:totalItems'] as number | undefined,
    view: raw['hydra:view'] as Record<string, string>,
    raw,
  };
}

/**
 * Follows `hydra:next` from `first` until there is none or a page is empty, as a client must: since
 * API Platform 4.3.5 an empty cursor page links on, so the first empty page is the end (it is not
 * returned in `pages`, unless it is the first). Calls `between` after each page (to mutate the
 * collection mid-walk). Fails after `maxPages` to catch loops.
 */
export async function walk(
  sandbox: Sandbox,
  first: string,
  hdrs: Record<string, string> = headers(),
  between: (pageIndex: number) => void = () => {},
  maxPages = 10_000,
): Promise<{ ids: string[]; pages: Page[] }> {
  const ids: string[] = [];
  const pages: Page[] = [];
  let next: string | undefined = first;
  while (next !== undefined) {
    if (pages.length >= maxPages) throw new Error('too many pages');
    const res = await get(sandbox, next, hdrs);
    if (res.status !== 200) throw new Error(`status ${res.status} on ${next}`);
    const page = parsePage(await res.json());
    if (page.members.length === 0 && pages.length > 0) break;
    pages.push(page);
    ids.push(...page.members.map((m) => m.id));
    between(pages.length - 1);
    next = page.view['hydra:next'];
  }
  return { ids, pages };
}
