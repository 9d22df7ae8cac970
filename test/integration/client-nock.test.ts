/**
 * The client against nock (globalThis.fetch, no network) and a virtual clock: rate-limit waits by
 * the server's clock, pacing, retries, error mapping, and the origin guard.
 */
import nock from 'nock';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createClient, UnreadableBodyError, type ClientEvent, type ClientOptions } from '../../src/http/client.js';
import { fetchPage } from '../../src/pagination/fetch-page.js';
import { paginate } from '../../src/pagination/paginate.js';
import { createVirtualClock, type VirtualClock } from '../helpers/virtual-clock.js';
import { ApiUnavailableError, HttpError, RateLimitError, UnsafeLinkError } from '../../src/errors.js';
import { createFakeApi, type FakeApi } from '../helpers/fake-api.js';

const BASE = 'http://api.test';
const KEY = 'canary-KEY-1234';
const T = Date.UTC(2024, 3, 16, 18, 0, 0);
const MIN = 60_000;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

function setup(overrides: Partial<ClientOptions> = {}, clock: VirtualClock = createVirtualClock(T)) {
  const events: ClientEvent[] = [];
  const client = createClient({
    baseUrl: new URL(BASE),
    apiKey: KEY,
    fetch: globalThis.fetch,
    clock,
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    ...overrides,
  });
  return { client, clock, events };
}

/** Routes every GET of `api.test` to the fake API for `times` requests. */
function route(api: FakeApi, times: number): nock.Scope {
  return nock(BASE)
    .get(/.*/)
    .times(times)
    .reply(function (uri) {
      const r = api.handle(new URL(uri, BASE), this.req.headers['x-api-key'] ?? null);
      return [r.status, r.body, r.headers];
    });
}

const page = (members: unknown[], next?: string) =>
  JSON.stringify({
    'hydra:member': members,
    'hydra:totalItems': members.length,
    'hydra:view': { '@id': '/entities', ...(next ? { 'hydra:next': next } : {}) },
  });
const json = { 'Content-Type': 'application/ld+json' };

describe('rate limits: 429 → wait by the server clock → retry', () => {
  it.each([
    ['clocks agree', 0],
    ['local clock 5 min fast', -5 * MIN],
    ['local clock 10 min slow', 10 * MIN],
  ])('%s: no request before the reset, and within 1.5 s after it', async (_name, skewMs) => {
    const { client, clock, events } = setup();
    // Window of 6 minutes with 2 requests; the test starts 2 s into the window... by the server's clock.
    clock.setNow(T + 2_000 - skewMs);
    const api = createFakeApi({ clock, skewMs, limit: 2, windowMs: 6 * MIN, total: 1 });
    const scope = route(api, 4);
    const url = new URL('/entities?page=1', BASE);
    await fetchPage(client, url);
    await fetchPage(client, url);
    // The third exhausts nothing yet: Remaining 0 after the 2nd makes the client pace, so force a 429
    // by using another client instance that does not know the window is spent.
    const fresh = setup({}, clock);
    const got = await fetchPage(fresh.client, url);
    expect(got.page.members).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
    expect(api.log.map((l) => l.status)).toEqual([200, 200, 429, 200]);
    const [, , limited, retried] = api.log;
    expect(retried!.serverAt).toBeGreaterThanOrEqual(limited!.resetAt);
    expect(retried!.serverAt - limited!.resetAt).toBeLessThanOrEqual(1500);
    const wait = fresh.events.find((e) => e.type === 'wait');
    expect(wait).toMatchObject({ type: 'wait', reason: 'rate-limit', remaining: 0, limit: 2 });
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(fresh.client.requests).toBe(2);
  });

  it('paces on Remaining 0: zero 429s, the next request waits for the reset (local clock 5 min fast)', async () => {
    const clock = createVirtualClock(T);
    const skewMs = -5 * MIN;
    clock.setNow(T + 500 - skewMs);
    const { client, events } = setup({}, clock);
    const api = createFakeApi({ clock, skewMs, limit: 2, windowMs: MIN, total: 7, perPage: 1 });
    const scope = route(api, 7);
    const pages = [];
    for await (const step of paginate({ client, baseUrl: new URL(BASE), start: new URL('/entities?page=1', BASE) })) pages.push(step);
    expect(pages).toHaveLength(7);
    expect(scope.isDone()).toBe(true);
    expect(api.log.every((l) => l.status === 200)).toBe(true);
    // 7 requests at 2 per window: windows 0..3; each first request of a window is after its start.
    const windows = api.log.map((l) => Math.floor(l.serverAt / MIN));
    expect(windows).toEqual([windows[0], windows[0], windows[0]! + 1, windows[0]! + 1, windows[0]! + 2, windows[0]! + 2, windows[0]! + 3]);
    const waits = events.filter((e) => e.type === 'wait');
    expect(waits).toHaveLength(3);
    expect(waits.every((w) => w.reason === 'pacing')).toBe(true);
    // Pacing wakes within a second of the window start by the server's clock.
    for (const l of api.log.slice(2)) {
      if (l.serverAt % MIN < 30_000) expect(l.serverAt % MIN).toBeLessThanOrEqual(1000);
    }
  });

  it('Retry-After in seconds without Reset is honoured (at least that long)', async () => {
    const { client, clock, events } = setup();
    const times: number[] = [];
    const scope = nock(BASE)
      .get('/entities')
      .reply(() => {
        times.push(clock.now());
        return [429, '{"message":"slow down"}', { 'Retry-After': '7', 'Content-Type': 'application/json' }];
      })
      .get('/entities')
      .reply(() => {
        times.push(clock.now());
        return [200, page([1]), json];
      });
    await fetchPage(client, new URL('/entities', BASE));
    expect(scope.isDone()).toBe(true);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(7000);
    expect(events.find((e) => e.type === 'wait')).toMatchObject({ reason: 'retry-after', ms: 7000 });
  });

  it('garbage Reset: 1 s floor, then 2 s on the second 429 in a row', async () => {
    const { client, clock } = setup();
    const times: number[] = [];
    const reply429 = (): [number, string, Record<string, string>] => {
      times.push(clock.now());
      return [429, '{}', { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': 'soon' }];
    };
    const scope = nock(BASE)
      .get('/entities')
      .reply(reply429)
      .get('/entities')
      .reply(reply429)
      .get('/entities')
      .reply(() => {
        times.push(clock.now());
        return [200, page([]), json];
      });
    await fetchPage(client, new URL('/entities', BASE));
    expect(scope.isDone()).toBe(true);
    expect([times[1]! - times[0]!, times[2]! - times[1]!]).toEqual([1000, 2000]);
  });

  it('a wait longer than maxWait fails at once with RateLimitError (exit 5), without waiting', async () => {
    const { client, clock } = setup({ maxWaitMs: 10 * MIN });
    const scope = nock(BASE)
      .get('/entities')
      .reply(429, '{"message":"quota"}', {
        Date: new Date(T).toUTCString(),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String((T + 2 * 3600_000) / 1000),
      });
    const err = await fetchPage(client, new URL('/entities', BASE)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).exitCode).toBe(5);
    expect((err as RateLimitError).resetAt).toBe(T + 2 * 3600_000);
    expect(clock.now()).toBe(T);
    expect(scope.isDone()).toBe(true);
  });

  it('a 429 forever: bounded attempts, then RateLimitError', async () => {
    const { client } = setup();
    const scope = nock(BASE).get('/entities').times(5).reply(429, '{}', { 'X-RateLimit-Remaining': '0' });
    const err = await fetchPage(client, new URL('/entities', BASE)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(scope.isDone()).toBe(true);
    expect(client.requests).toBe(5);
  });
});

describe('retries', () => {
  it('retries 503 and a reset socket with full-jitter backoff, then succeeds; waits are not retries', async () => {
    const { client, clock, events } = setup();
    const times: number[] = [];
    const scope = nock(BASE)
      .get('/entities')
      .reply(() => {
        times.push(clock.now());
        return [503, '<html>down</html>', { 'Content-Type': 'text/html' }];
      })
      .get('/entities')
      .replyWithError({ code: 'ECONNRESET' })
      .get('/entities')
      .reply(() => {
        times.push(clock.now());
        return [200, page([{ a: 1 }]), json];
      });
    const got = await fetchPage(client, new URL('/entities', BASE));
    expect(got.page.members.values()).toEqual([{ a: 1 }]);
    expect(scope.isDone()).toBe(true);
    const retries = events.filter((e) => e.type === 'retry');
    // random() = 0.5: half of 1 s, then half of 2 s.
    expect(retries).toEqual([
      { type: 'retry', attempt: 1, delayMs: 500, reason: 'HTTP 503' },
      { type: 'retry', attempt: 2, delayMs: 1000, reason: 'ECONNRESET' },
    ]);
    expect(times[1]! - times[0]!).toBe(1500);
    expect(client.requests).toBe(3);
  });

  it.each([
    ['invalid JSON', '{"hydra:member": [1, 2', json, 'invalid JSON'],
    ['an HTML 200', '<html>maintenance</html>', { 'Content-Type': 'text/html' }, 'HTML instead of JSON'],
    ['a 200 that is not a collection', '{"hello":"world"}', json, 'not a Hydra collection'],
  ])('retries %s', async (_name, body, headers, reason) => {
    const { client, events } = setup();
    const scope = nock(BASE)
      .get('/entities')
      .reply(200, body, headers)
      .get('/entities')
      .reply(200, page([7]), json);
    const got = await fetchPage(client, new URL('/entities', BASE));
    expect(got.page.members.values()).toEqual([7]);
    expect(scope.isDone()).toBe(true);
    const retry = events.find((e) => e.type === 'retry');
    expect(retry?.type === 'retry' && retry.reason).toContain(reason);
  });

  it('gives up after `retries` with ApiUnavailableError (exit 6) naming the last cause and request id', async () => {
    const { client } = setup({ retries: 2 });
    const scope = nock(BASE)
      .get('/entities?page=3')
      .times(3)
      .reply(503, '{"detail":"Maintenance window"}', { 'Content-Type': 'application/problem+json', 'X-Request-ID': 'Root=1-abc' });
    const err = await fetchPage(client, new URL('/entities?page=3', BASE)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiUnavailableError);
    expect((err as ApiUnavailableError).exitCode).toBe(6);
    expect((err as Error).message).toBe(
      'the API could not be read (GET /entities?page=3): HTTP 503: Maintenance window (after 2 retries) [X-Request-ID: Root=1-abc]',
    );
    expect(scope.isDone()).toBe(true);
  });

  it('a per-attempt timeout covers a body that never ends, and is retried', async () => {
    const { client, events } = setup({ timeoutMs: 200, retries: 1 });
    const scope = nock(BASE)
      .get('/entities')
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the headers must arrive and the body stall; delay(ms) would hold the headers back
      .delayBody(2000)
      .reply(200, page([1]), json)
      .get('/entities')
      .reply(200, page([2]), json);
    const got = await fetchPage(client, new URL('/entities', BASE));
    expect(got.page.members.values()).toEqual([2]);
    expect(scope.isDone()).toBe(true);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ reason: expect.stringContaining('timeout after 200 ms') as string });
  });
});

describe('errors are not retried', () => {
  it.each([
    [400, '{"message":"Unknown filter"}', 2],
    [401, '{"message":"Invalid API key"}', 3],
    [403, '{"@type":"hydra:Error","hydra:title":"An error occurred","hydra:description":"Access Denied."}', 3],
    [404, '{"message":"Taxpayer not found"}', 4],
    [422, '{"violations":[{"propertyPath":"itemsPerPage","message":"too big"}]}', 2],
  ])('HTTP %i → HttpError with the server message, exit %i', async (status, body, exitCode) => {
    const { client } = setup();
    const scope = nock(BASE)
      .get('/taxpayers/ABC/invoices?itemsPerPage=5')
      .reply(status, body, { 'Content-Type': 'application/json', 'X-Request-ID': 'Root=1-xyz' });
    const err = await fetchPage(client, new URL('/taxpayers/ABC/invoices?itemsPerPage=5', BASE)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    const e = err as HttpError;
    expect(e.exitCode).toBe(exitCode);
    expect(e.details).toMatchObject({ method: 'GET', path: '/taxpayers/ABC/invoices?itemsPerPage=5', status, requestId: 'Root=1-xyz' });
    expect(e.details.serverMessage).toBeTruthy();
    expect(e.message).toContain(e.details.serverMessage!);
    expect(JSON.stringify({ m: e.message, d: e.details, s: e.stack })).not.toContain(KEY);
    expect(scope.isDone()).toBe(true);
    expect(client.requests).toBe(1);
  });

  it('a server that echoes the key gets it redacted', async () => {
    const { client } = setup();
    nock(BASE)
      .get('/entities')
      .reply(401, JSON.stringify({ message: `key ${KEY} is unknown` }), { 'Content-Type': 'application/json' });
    const err = (await fetchPage(client, new URL('/entities', BASE)).catch((e: unknown) => e)) as HttpError;
    expect(err.message).not.toContain(KEY);
    expect(err.details.serverMessage).toBe('key [REDACTED] is unknown');
  });
});

describe('request headers', () => {
  it('sends X-Api-Key, Accept: application/ld+json and extras, and an extra cannot replace the key', async () => {
    const { client } = setup({ headers: { 'User-Agent': 'collections/test', 'x-api-key': 'other' } });
    const scope = nock(BASE, {
      reqheaders: { 'x-api-key': KEY, accept: 'application/ld+json', 'user-agent': 'collections/test', 'x-pagination-style': 'cursor' },
    })
      .get('/entities')
      .reply(200, page([]), json);
    await fetchPage(client, new URL('/entities', BASE), { headers: { 'X-Pagination-Style': 'cursor' } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('the origin guard', () => {
  it('refuses a cross-origin hydra:next; the other host receives nothing', async () => {
    const { client } = setup();
    const scope = nock(BASE)
      .get('/entities?page=1')
      .reply(200, page([1], 'http://evil.test/entities?page=2'), json);
    const evil = nock('http://evil.test').get(/.*/).reply(200, page([]), json);
    const got: unknown[] = [];
    const run = async (): Promise<void> => {
      for await (const s of paginate({ client, baseUrl: new URL(BASE), start: new URL('/entities?page=1', BASE) })) got.push(s);
    };
    await expect(run()).rejects.toBeInstanceOf(UnsafeLinkError);
    expect(scope.isDone()).toBe(true);
    expect(evil.isDone()).toBe(false);
    expect(got).toEqual([]);
    expect(client.requests).toBe(1);
  });

  it.each([
    ['another host', 'http://evil.test/x'],
    ['another port', 'http://api.test:8080/entities'],
    ['another scheme', 'https://api.test/entities'],
    ['scheme-relative', '//evil.test/entities'],
    ['userinfo trick', 'http://api.test:80@evil.test/entities'],
  ])('refuses a 302 to %s before sending anything there', async (_name, location) => {
    const { client } = setup();
    const scope = nock(BASE).get('/entities').reply(302, '', { Location: location });
    const evil = nock('http://evil.test').get(/.*/).reply(200, page([]), json);
    const other = nock('http://api.test:8080').get(/.*/).reply(200, page([]), json);
    const err = await fetchPage(client, new URL('/entities', BASE)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeLinkError);
    expect((err as UnsafeLinkError).exitCode).toBe(6);
    expect(scope.isDone()).toBe(true);
    expect(evil.isDone()).toBe(false);
    expect(other.isDone()).toBe(false);
  });

  it('follows a same-origin redirect and reports the final URL', async () => {
    const { client } = setup();
    const scope = nock(BASE)
      .get('/entities')
      .reply(301, '', { Location: '/v2/entities' })
      .get('/v2/entities')
      .reply(200, page([1]), json);
    const got = await fetchPage(client, new URL('/entities', BASE));
    expect(got.url.href).toBe(`${BASE}/v2/entities`);
    expect(scope.isDone()).toBe(true);
    expect(client.requests).toBe(2);
  });

  it('refuses a redirect loop after 5 hops', async () => {
    const { client } = setup();
    const scope = nock(BASE).get('/a').times(6).reply(302, '', { Location: '/a' });
    await expect(fetchPage(client, new URL('/a', BASE))).rejects.toBeInstanceOf(ApiUnavailableError);
    expect(scope.isDone()).toBe(true);
  });

  it('detects a next link that loops back, before requesting it again', async () => {
    const { client } = setup();
    const scope = nock(BASE)
      .get('/entities?page=1')
      .reply(200, page([1], '?page=2'), json)
      .get('/entities?page=2')
      .reply(200, page([2], 'http://API.test:80/entities?page=1#x'), json);
    const got: number[] = [];
    const run = async (): Promise<void> => {
      for await (const s of paginate({ client, baseUrl: new URL(BASE), start: new URL('/entities?page=1', BASE) })) got.push(s.index);
    };
    await expect(run()).rejects.toThrow(/loops back/);
    expect(got).toEqual([0]);
    expect(scope.isDone()).toBe(true);
    expect(client.requests).toBe(2);
  });
});

describe('probe', () => {
  it('returns a 429 as an answer with its quota, without waiting or retrying', async () => {
    const { client, clock } = setup();
    const scope = nock(BASE)
      .get('/entities?itemsPerPage=1')
      .reply(429, '{"message":"Too many"}', {
        'Content-Type': 'application/json',
        Date: new Date(T + 5 * MIN).toUTCString(),
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String((T + 6 * MIN) / 1000),
        'X-Request-ID': 'r1',
      });
    const r = await client.probe(new URL('/entities?itemsPerPage=1', BASE));
    expect(r).toMatchObject({
      status: 429,
      requestId: 'r1',
      serverMessage: 'Too many',
      rateLimit: { limit: 60, remaining: 0, resetAt: T + 6 * MIN, observedAt: T, resetLocalAt: T + MIN },
    });
    expect(clock.now()).toBe(T);
    expect(client.requests).toBe(1);
    expect(scope.isDone()).toBe(true);
  });

  it('still refuses a cross-origin redirect', async () => {
    const { client } = setup();
    const scope = nock(BASE).get('/entities').reply(307, '', { Location: 'http://evil.test/' });
    const evil = nock('http://evil.test').get(/.*/).reply(200, '{}');
    await expect(client.probe(new URL('/entities', BASE))).rejects.toBeInstanceOf(UnsafeLinkError);
    expect(scope.isDone()).toBe(true);
    expect(evil.isDone()).toBe(false);
  });
});

describe('get: the HTTP-only result', () => {
  it('returns the final URL, status, headers, request id, rate limit and the body text exactly as received', async () => {
    const { client } = setup();
    const body = '{ "hydra:member" : [1] }';
    nock(BASE)
      .get('/entities')
      .reply(302, '', { Location: '/v2/entities' })
      .get('/v2/entities')
      .reply(200, body, { ...json, 'X-Request-ID': 'r9', 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9' });
    const res = await client.get(new URL('/entities', BASE));
    expect(res.url.href).toBe(`${BASE}/v2/entities`);
    expect(res).toMatchObject({ status: 200, requestId: 'r9', text: body, body, rateLimit: { limit: 10, remaining: 9, observedAt: T } });
    expect(res.headers.get('content-type')).toBe('application/ld+json');
    expect(res.receivedAt).toBe(T);
  });

  it('retries an UnreadableBodyError thrown by parse, and hands parse the response head', async () => {
    const { client, events } = setup();
    nock(BASE).get('/entities').reply(200, 'first', json).get('/entities').reply(200, 'second', json);
    const seen: string[] = [];
    const res = await client.get(new URL('/entities', BASE), {
      parse: (text, head) => {
        seen.push(`${text} ${head.status} ${head.headers.get('content-type')}`);
        if (text === 'first') throw new UnreadableBodyError('not yet');
        return text.length;
      },
    });
    expect(res.body).toBe(6);
    expect(seen).toEqual(['first 200 application/ld+json', 'second 200 application/ld+json']);
    expect(events.filter((e) => e.type === 'retry')).toEqual([{ type: 'retry', attempt: 1, delayMs: 500, reason: 'not yet' }]);
  });

  it('does not retry any other error thrown by parse', async () => {
    const { client } = setup();
    const scope = nock(BASE).get('/entities').reply(200, 'x', json);
    const boom = new Error('boom');
    await expect(
      client.get(new URL('/entities', BASE), {
        parse: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    expect(scope.isDone()).toBe(true);
    expect(client.requests).toBe(1);
  });
});
