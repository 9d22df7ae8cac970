/**
 * Concurrent offset pages through the real client and governor, against the fake API's in-process
 * fetch (answers after a varying number of event-loop turns, so pages complete out of order).
 */
import { describe, expect, it } from 'vitest';
import { createClient, type Client, type ClientEvent } from '../../src/http/client.js';
import type { PageStep } from '../../src/pagination/paginate.js';
import { createVirtualClock } from '../helpers/virtual-clock.js';
import { createFakeApi, type FakeApi } from '../helpers/fake-api.js';
import { offsetPages as pagesFrom } from '../helpers/pages.js';
import { ApiUnavailableError } from '../../src/errors.js';

const BASE = 'http://api.test';
const KEY = 'canary-KEY-1234';
const T = Date.UTC(2024, 3, 16, 18, 0, 30);
const MIN = 60_000;

function setup(api: (clock: ReturnType<typeof createVirtualClock>) => FakeApi, turns?: (n: number) => number) {
  const clock = createVirtualClock(T);
  const fake = api(clock);
  const events: ClientEvent[] = [];
  const client = createClient({
    baseUrl: new URL(BASE),
    apiKey: KEY,
    fetch: fake.fetch(turns ?? ((n) => ((n * 7) % 5) + 1)),
    clock,
    random: () => 0.5,
    onEvent: (e) => events.push(e),
  });
  return { clock, fake, client, events };
}

async function collect(gen: AsyncGenerator<PageStep, void, void>): Promise<PageStep[]> {
  const out: PageStep[] = [];
  for await (const s of gen) out.push(s);
  return out;
}

/** Offset pages as an export asks for them (`serverModePages`, offset mode, `concurrency` > 1). */
function offsetPages(client: Client, start: string, concurrency: number): AsyncGenerator<PageStep, void, void> {
  return pagesFrom(client, new URL(BASE), new URL(start, BASE), concurrency);
}

const ids = (steps: PageStep[]): string[] => steps.flatMap((s) => s.page.members.values().map((m) => (m as { id: string }).id));
const expectedIds = (n: number): string[] => Array.from({ length: n }, (_, i) => `item-${i}`);

describe('offset pages fetched ahead', () => {
  it('yields every page strictly in order, with at most `concurrency` requests in flight', async () => {
    const { fake, client } = setup((clock) => createFakeApi({ clock, total: 50 }));
    const steps = await collect(offsetPages(client, '/entities?itemsPerPage=5&page=1', 4));
    expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ids(steps)).toEqual(expectedIds(50));
    expect(steps.map((s) => s.next?.search)).toEqual([...[2, 3, 4, 5, 6, 7, 8, 9, 10].map((p) => `?itemsPerPage=5&page=${p}`), undefined]);
    expect(fake.maxInFlight).toBeGreaterThan(1);
    expect(fake.maxInFlight).toBeLessThanOrEqual(4);
    expect(client.requests).toBe(10);
  });

  it('never has more requests in flight than Remaining allows: zero 429s across windows', async () => {
    const { fake, client, events } = setup((clock) => createFakeApi({ clock, total: 30, limit: 3, windowMs: MIN }));
    const steps = await collect(offsetPages(client, '/entities?itemsPerPage=3&page=1', 4));
    expect(ids(steps)).toEqual(expectedIds(30));
    expect(fake.log.map((l) => l.status).filter((s) => s !== 200)).toEqual([]);
    expect(fake.maxInFlight).toBeLessThanOrEqual(3);
    // 10 requests at 3 per window: 4 windows, in order.
    const windows = fake.log.map((l) => Math.floor(l.serverAt / MIN) - Math.floor(fake.log[0]!.serverAt / MIN));
    expect(windows).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
    expect(events.filter((e) => e.type === 'wait')).toHaveLength(3);
  });

  it('stops fetching when the consumer breaks', async () => {
    const { fake, client } = setup((clock) => createFakeApi({ clock, total: 100, perPage: 5 }));
    const got: number[] = [];
    for await (const s of offsetPages(client, '/entities?page=1', 3)) {
      got.push(s.index);
      if (s.index === 1) break;
    }
    const sent = fake.log.length;
    expect(got).toEqual([0, 1]);
    expect(sent).toBeLessThanOrEqual(2 + 3);
    for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
    expect(fake.log.length).toBe(sent);
  });

  it('starts from the `page` of a resumed start URL', async () => {
    const { client } = setup((clock) => createFakeApi({ clock, total: 40, perPage: 4 }));
    const steps: PageStep[] = [];
    for await (const s of offsetPages(client, '/entities?page=4', 2)) if (steps.push(s) === 3) break;
    expect(ids(steps)).toEqual(expectedIds(40).slice(12, 24));
    expect(steps.map((s) => s.next?.search)).toEqual(['?page=5', '?page=6', '?page=7']);
  });

  it('works with unprefixed keys and query-only links', async () => {
    const { client } = setup((clock) => createFakeApi({ clock, total: 10, perPage: 3, unprefixed: true, links: 'query' }));
    const steps = await collect(offsetPages(client, '/events?page=1', 3));
    expect(ids(steps)).toEqual(expectedIds(10));
  });

  it('falls back to following next when the first page has no last nor totalItems', async () => {
    const clock = createVirtualClock(T);
    const seen: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const fetch = async (input: string | URL): Promise<Response> => {
      const u = new URL(String(input));
      seen.push(u.search);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise<void>((r) => setImmediate(r));
      inFlight--;
      const p = Number(u.searchParams.get('page'));
      const view = p < 4 ? { 'hydra:next': `/entities?page=${p + 1}` } : {};
      return new Response(JSON.stringify({ 'hydra:member': [p], 'hydra:view': view }), { status: 200 });
    };
    const client = createClient({ baseUrl: new URL(BASE), apiKey: KEY, fetch, clock });
    const steps = await collect(offsetPages(client, '/entities?page=1', 4));
    expect(steps.flatMap((s) => s.page.members.values())).toEqual([1, 2, 3, 4]);
    expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(seen).toEqual(['?page=1', '?page=2', '?page=3', '?page=4']);
    expect(maxInFlight).toBe(1);
  });

  it('yields the pages before a failed page, then throws', async () => {
    const clock = createVirtualClock(T);
    const fetch = (input: string | URL): Promise<Response> => {
      const p = Number(new URL(String(input)).searchParams.get('page'));
      if (p === 3) return Promise.resolve(new Response('oops', { status: 500 }));
      const body = {
        'hydra:member': [p],
        'hydra:totalItems': 5,
        'hydra:view': { 'hydra:last': '/e?page=5', ...(p < 5 ? { 'hydra:next': `/e?page=${p + 1}` } : {}) },
      };
      return Promise.resolve(new Response(JSON.stringify(body), { status: 200 }));
    };
    const client = createClient({ baseUrl: new URL(BASE), apiKey: KEY, fetch, clock, retries: 1, random: () => 0 });
    const got: unknown[] = [];
    const run = async (): Promise<void> => {
      for await (const s of offsetPages(client, '/e?page=1', 4)) got.push(...s.page.members.values());
    };
    await expect(run()).rejects.toBeInstanceOf(ApiUnavailableError);
    expect(got).toEqual([1, 2]);
  });
});
