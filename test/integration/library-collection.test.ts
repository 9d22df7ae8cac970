import { inspect } from 'node:util';
/**
 * The library's `collection()` and `collectionPages()` (src/index.ts) against the in-process
 * sandbox on a virtual clock: offset and cursor mode, exact item texts, abort, events and waits,
 * the origin rule, and bad options refused before any request.
 */
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  collection,
  collectionPages,
  JsonNumber,
  sourceText,
  UnsafeLinkError,
  UsageError,
  type CollectionEvent,
  type CollectionOptions,
  type JsonValue,
} from '../../src/index.js';
import { createSandboxFetch } from '../../src/sandbox/fetch.js';
import { SAMPLE_ENTITY_IDS } from '../../src/sandbox/records/entities.js';
import { CANARY, createWorld, START, type SandboxWorld } from '../helpers/world.js';

/** Options wired to `world`: its base URL and key, its clock, and a fetch that reaches its origin only. */
function wired(world: SandboxWorld, bodies?: string[], headers?: Array<Record<string, string>>) {
  const inner = createSandboxFetch(world.sandbox, { origin: world.base });
  const fetch: CollectionOptions['fetch'] = async (input, init) => {
    headers?.push({ ...(init?.headers as Record<string, string>) });
    const res = await inner(input, init);
    if (bodies) bodies.push(await res.clone().text());
    return res;
  };
  return { options: { baseUrl: world.base, apiKey: world.key, fetch, clock: world.clock }, foreign: inner.foreignRequests };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const idOf = (item: JsonValue): string => (item as Record<string, string>).id!;
const pathOf = (world: SandboxWorld): string => `/taxpayers/${world.taxpayer}/invoices`;

describe('collection()', () => {
  it('yields every item in order in offset mode, pages fetched in parallel', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const items = await all(collection(pathOf(world), { ...options, itemsPerPage: 7, concurrency: 4 }));
    expect(items.map(idOf)).toEqual(world.sandbox.invoiceIds(world.taxpayer));
  });

  it('yields every item in cursor mode, asking with X-Pagination-Style: cursor', async () => {
    const world = createWorld();
    const headers: Array<Record<string, string>> = [];
    const { options } = wired(world, undefined, headers);
    const items = await all(collection(pathOf(world), { ...options, cursor: true, itemsPerPage: 25 }));
    expect(items.map(idOf)).toEqual(world.sandbox.invoiceIds(world.taxpayer));
    expect(headers.every((h) => h['X-Pagination-Style'] === 'cursor')).toBe(true);
    expect(world.sandbox.requests().map((r) => r.url)[1]).toMatch(/id%5Blt%5D=|id\[lt\]=/);
  });

  it("sends User-Agent: collections/<version>, which a caller's user-agent header replaces in any case, as -H does", async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 3 } });
    const headers: Array<Record<string, string>> = [];
    const { options } = wired(world, undefined, headers);
    await all(collection(pathOf(world), options));
    expect(headers[0]!['User-Agent']).toMatch(/^collections\/\d+\.\d+\.\d+/);
    headers.length = 0;
    await all(collection(pathOf(world), { ...options, headers: { 'user-agent': 'my-app/2' } }));
    const sent = Object.entries(headers[0]!).filter(([name]) => name.toLowerCase() === 'user-agent');
    expect(sent).toEqual([['user-agent', 'my-app/2']]);
  });

  it('keeps a 64-bit number exactly: a JsonNumber, and the item’s source text as the server wrote it', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 3 } });
    const bodies: string[] = [];
    const { options } = wired(world, bodies);
    const [item] = await all(collection(pathOf(world), options));
    const folio = (item as Record<string, JsonValue>).satFolio;
    expect(folio).toBeInstanceOf(JsonNumber);
    const literal = (folio as JsonNumber).toString();
    expect(BigInt(literal) > 2n ** 53n).toBe(true);
    expect(String(Number(literal))).not.toBe(literal);
    const text = sourceText(item);
    expect(text).toContain(`"satFolio":${literal},`);
    // API Platform's escapes (`\/`) stay as received: the text is the server's, not JSON.stringify's.
    expect(text).toContain('"@id":"\\/invoices\\/');
    expect(bodies[0]).toContain(text);
    expect(JSON.stringify(item)).toContain(`"satFolio":"${literal}"`);
    expect(() => sourceText({ id: 'x' })).toThrow(TypeError);
  });

  it('leaves no trace of sourceText() on an item: its keys, clone and inspection are what JSON.parse gives', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 3 } });
    const { options } = wired(world);
    const items = await all(collection(pathOf(world), options));
    const pages = await all(collectionPages(pathOf(world), options));
    for (const item of [...items, ...pages[0]!.items]) {
      const plain = JSON.parse(sourceText(item)) as object;
      expect(Reflect.ownKeys(item as object)).toEqual(Reflect.ownKeys(plain));
      expect(Object.getOwnPropertySymbols(item)).toEqual([]);
      expect(Object.isExtensible(item)).toBe(true);
      expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
      expect(Reflect.ownKeys(structuredClone(item as object))).toEqual(Reflect.ownKeys(plain));
      expect(() => sourceText(structuredClone(item))).toThrow(TypeError);
      expect(inspect(item, { depth: 0 })).toBe(inspect({ ...(item as object) }, { depth: 0 }));
    }
    // Read twice, a page's items are the same objects, and each still tells its own text.
    expect(pages[0]!.items.map(sourceText)).toEqual(pages[0]!.texts());
  });

  it('stops at exactly maxItems, asking for no page past them', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const items = await all(collection(pathOf(world), { ...options, itemsPerPage: 10, maxItems: 25 }));
    expect(items.map(idOf)).toEqual(world.sandbox.invoiceIds(world.taxpayer).slice(0, 25));
    expect(world.sandbox.requests().length).toBe(3);
  });

  it('sends the query of the path, then params, and since as the endpoint’s date filter (in cursor mode, as the command does)', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const since = new Date('2024-01-01T00:00:00Z');
    await all(collection(`${pathOf(world)}?status=VIGENTE`, { ...options, params: [['type', 'I']], since }));
    const url = decodeURIComponent(world.sandbox.requests()[0]!.url);
    expect(url).toMatch(/\?status=VIGENTE&type=I&updatedAt\[after\]=2024-01-01T00:00:00\+00:00&itemsPerPage=1000$/);
  });

  it('pages any path get takes, since on its known date field or on sinceField, as get sends it', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const path = `/entities/${SAMPLE_ENTITY_IDS[0]}/invoices`;
    const items = await all(collection(path, { ...options, since: '2024-01-01' }));
    expect(items.length).toBeGreaterThan(0);
    expect(decodeURIComponent(world.sandbox.requests()[0]!.url)).toContain('updatedAt[after]=2024-01-01T00:00:00+00:00');
    await all(collection('/invoices/payments', { ...options, since: '2024-01-01', sinceField: 'createdAt', maxItems: 1 }));
    expect(decodeURIComponent(world.sandbox.requests().at(-1)!.url)).toContain('createdAt[after]=2024-01-01T00:00:00+00:00');
  });
});

describe('collection(): stopping', () => {
  it('throws an AbortError once the signal aborts, with the reason as its cause', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const item of collection(pathOf(world), { ...options, itemsPerPage: 10, signal: controller.signal })) {
        seen.push(idOf(item));
        if (seen.length === 3) controller.abort('enough');
      }
    };
    const err: unknown = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ name: 'AbortError', code: 'E_ABORTED', exitCode: 130, cause: 'enough' });
    expect(seen).toHaveLength(3);
  });

  it('sends nothing when the signal was aborted before', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const err: unknown = await all(collection(pathOf(world), { ...options, signal: AbortSignal.abort() })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(world.sandbox.requests()).toEqual([]);
  });

  it('throws the error a listener threw, and stops there', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const boom = new Error('listener failed');
    const onEvent = (e: CollectionEvent): void => {
      if (e.type === 'page') throw boom;
    };
    await expect(all(collection(pathOf(world), { ...options, itemsPerPage: 10, concurrency: 1, onEvent }))).rejects.toBe(boom);
    expect(world.sandbox.requests().length).toBeLessThanOrEqual(2);
  });

  it('refuses a link to another origin before anything is sent to it', async () => {
    const world = createWorld();
    world.sandbox.setFaults([{ kind: 'foreign-next', url: 'http://evil.test/' }]);
    const { options, foreign } = wired(world);
    const err: unknown = await all(collection(pathOf(world), { ...options, cursor: true, itemsPerPage: 10 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeLinkError);
    expect((err as UnsafeLinkError).exitCode).toBe(6);
    expect(foreign).toEqual([]);
  });

  it.each([
    ['itemsPerPage 0', { itemsPerPage: 0 }, 'itemsPerPage must be a whole number from 1 to 1000 (got 0)'],
    ['concurrency 17', { concurrency: 17 }, 'concurrency must be a whole number from 1 to 16 (got 17)'],
    ['a page parameter', { params: { page: '3' } }, 'params: page is set by the page option'],
    ['the key as a header', { headers: { 'X-Api-Key': 'other' } }, 'headers: X-Api-Key cannot be set this way: the apiKey option sets it'],
    [
      'a header in two cases',
      { headers: { 'Accept-Version': '1', 'accept-version': '2' } },
      'headers: Accept-Version is given twice (as Accept-Version and accept-version); each header name is sent once',
    ],
    ['a transport header', { headers: { 'Content-Length': '5' } }, 'headers: Content-Length cannot be set: the HTTP transport sets it'],
    ['a bad base URL', { baseUrl: 'ftp://x' }, "baseUrl must be an http or https URL (got 'ftp:')"],
    ['since on payments', { since: '2024-01-01' }, undefined],
  ] as const)('refuses %s at the call, before any request', (_name, bad, message) => {
    const world = createWorld();
    const { options } = wired(world);
    const path = 'since' in bad ? `/taxpayers/${world.taxpayer}/invoices/payments` : pathOf(world);
    let thrown: unknown;
    try {
      collection(path, { ...options, ...bad });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    if (message !== undefined) expect((thrown as UsageError).message).toBe(message);
    expect((thrown as UsageError).exitCode).toBe(2);
    expect((thrown as Error).message).not.toContain(CANARY);
    expect(world.sandbox.requests()).toEqual([]);
  });
});

describe('collectionPages() and events', () => {
  it('hands each page with its items, texts and what its response said', async () => {
    const world = createWorld();
    const { options } = wired(world);
    const pages = await all(collectionPages(pathOf(world), { ...options, itemsPerPage: 25 }));
    expect(pages.map((p) => [p.index, p.items.length, p.totalItems, p.status])).toEqual([
      [0, 25, 60, 200],
      [1, 25, 60, 200],
      [2, 10, 60, 200],
    ]);
    expect(pages[0]!.next?.searchParams.get('page')).toBe('2');
    expect(pages[2]!.next).toBeUndefined();
    expect(pages[0]!.texts()).toEqual(pages[0]!.items.map(sourceText));
    expect(pages[0]!.rateLimit?.limit).toBeGreaterThan(0);
  });

  it('tells of a rate-limit wait before sleeping it on the injected clock, and sends no request past the limit', async () => {
    const world = createWorld({ limit: 2, windowSeconds: 60 });
    const { options } = wired(world);
    const events: CollectionEvent[] = [];
    const items = await all(collection(pathOf(world), { ...options, itemsPerPage: 10, concurrency: 1, onEvent: (e) => events.push(e) }));
    expect(items).toHaveLength(60);
    const waits = events.filter((e) => e.type === 'wait');
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits[0]).toMatchObject({ type: 'wait', reason: 'pacing' });
    expect(world.clock.now() - START).toBeGreaterThanOrEqual(waits[0]!.ms);
    expect(events.filter((e) => e.type === 'page')).toHaveLength(6);
    expect(world.sandbox.stats().byStatus[429]).toBeUndefined();
  });
});
