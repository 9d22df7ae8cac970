import { describe, expect, it } from 'vitest';
import { createSandbox, type SandboxOptions } from '../../../src/sandbox/app.js';
import { createSandboxFetch } from '../../../src/sandbox/fetch.js';
import { parseFaultSpec, type FaultRule } from '../../../src/sandbox/faults.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { headers, KEY, ORIGIN, type HydraBody, type UnprefixedBody } from './helpers.js';

const T0 = Date.UTC(2024, 3, 16, 18, 0, 7, 250);

function setup(faults: FaultRule[] | string, options: SandboxOptions = {}) {
  const clock = createVirtualClock(T0);
  const sandbox = createSandbox({ apiKey: KEY, clock, faults, sizes: { invoicesPerTaxpayer: 30 }, ...options });
  const fetch = createSandboxFetch(sandbox, { origin: ORIGIN });
  const rfc = sandbox.taxpayers()[0]!;
  const invoices = `${ORIGIN}/taxpayers/${rfc}/invoices`;
  const go = (url: string, extra: Record<string, string> = {}, init: RequestInit = {}) =>
    fetch(url, { headers: headers(extra), redirect: 'manual', ...init });
  return { clock, sandbox, fetch, rfc, invoices, go };
}

describe('parseFaultSpec', () => {
  it.each([
    ['', { rules: [] }],
    ['status status=503 p=0.25', { rules: [{ kind: 'status', status: 503, probability: 0.25 }] }],
    [
      'reset-mid-body requests=3-5; hang requests=9',
      {
        rules: [
          { kind: 'reset-mid-body', requests: { from: 3, to: 5 } },
          { kind: 'hang', requests: 9 },
        ],
      },
    ],
    ['seed=42; status pages=2,4 retryAfter=http-date', { seed: 42, rules: [{ kind: 'status', pages: [2, 4], retryAfter: 'http-date' }] }],
    ['clock-offset offsetMs=-600000', { rules: [{ kind: 'clock-offset', offsetMs: -600000 }] }],
    ['foreign-next url=http://127.0.0.1:9/', { rules: [{ kind: 'foreign-next', url: 'http://127.0.0.1:9/' }] }],
    ['[{"kind":"html","times":1}]', { rules: [{ kind: 'html', times: 1 }] }],
    ['{"seed":3,"rules":[{"kind":"drip","chunkBytes":10}]}', { seed: 3, rules: [{ kind: 'drip', chunkBytes: 10 }] }],
  ])('parses %j', (spec, expected) => {
    expect(parseFaultSpec(spec)).toEqual(expected);
  });

  it.each([
    'explode',
    'status p=2',
    'status status=404',
    'status 503',
    'redirect',
    'foreign-next url=not-a-url',
    '{"rules":5}',
    '{oops',
    'status pages=a',
  ])('refuses %j with a usage error', (spec) => {
    expect(() => parseFaultSpec(spec)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('status faults', () => {
  it('fails with probability p, replayably from the seed', async () => {
    const run = async () => {
      const { go, invoices } = setup([{ kind: 'status', status: 502, probability: 0.5 }], { limit: 0 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await go(`${invoices}?page=${(i % 2) + 1}&itemsPerPage=10`)).status);
      return statuses;
    };
    const a = await run();
    expect(a).toEqual(await run());
    expect(a.filter((s) => s === 502).length).toBeGreaterThan(5);
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(5);
  });

  it('sends Retry-After in seconds or as an HTTP-date, and a problem body', async () => {
    const { go, invoices, sandbox } = setup([{ kind: 'status', status: 503, retryAfter: 7 }]);
    const res = await go(invoices);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 503, title: 'Service Unavailable' });
    sandbox.setFaults([{ kind: 'status', status: 504, retryAfter: 'http-date' }]);
    const res2 = await go(invoices);
    expect(res2.status).toBe(504);
    expect(Date.parse(res2.headers.get('retry-after')!)).toBe(Date.UTC(2024, 3, 16, 18, 0, 9));
  });

  it('keeps one page always failing while the others answer (offset and cursor)', async () => {
    const { go, invoices } = setup('status status=503 pages=2', { limit: 0 });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await go(`${invoices}?itemsPerPage=10&page=2`)).status).toBe(503);
    }
    expect((await go(`${invoices}?itemsPerPage=10&page=1`)).status).toBe(200);
    expect((await go(`${invoices}?itemsPerPage=10&page=3`)).status).toBe(200);
    const first = (await (await go(`${invoices}?itemsPerPage=10`, { 'X-Pagination-Style': 'cursor' })).json()) as HydraBody;
    const next = `${ORIGIN}${first['hydra:view']['hydra:next']}`;
    expect((await go(next, { 'X-Pagination-Style': 'cursor' })).status).toBe(503);
  });

  it('scopes by request numbers and times, and can be changed at run time', async () => {
    const { go, invoices, sandbox } = setup([{ kind: 'status', requests: { from: 2, to: 3 } }]);
    expect([(await go(invoices)).status, (await go(invoices)).status, (await go(invoices)).status, (await go(invoices)).status]).toEqual([
      200, 503, 503, 200,
    ]);
    sandbox.setFaults([{ kind: 'status', status: 500, times: 1 }]);
    expect([(await go(invoices)).status, (await go(invoices)).status]).toEqual([500, 200]);
    expect(sandbox.requests().map((e) => e.faults.join())).toEqual(['', 'status', 'status', '', 'status', '']);
  });
});

describe('network faults through the fetch adapter', () => {
  it('rejects like undici when the connection is reset before the headers or refused', async () => {
    const { go, invoices, sandbox } = setup('reset-before-headers');
    const err = await go(invoices).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } });
    sandbox.setFaults('refuse untilMs=3000');
    await expect(go(invoices)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await sandbox.clock.sleep(3000);
    expect((await go(invoices)).status).toBe(200);
    expect(sandbox.requests()[0]!.status).toBe(0);
  });

  it('errors the body stream mid-way with a reset', async () => {
    const { go, invoices } = setup([{ kind: 'reset-mid-body', afterBytes: 100 }]);
    const res = await go(invoices);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(first.value!.length).toBe(100);
    await expect(reader.read()).rejects.toMatchObject({ message: 'terminated', cause: { code: 'ECONNRESET' } });
  });

  it('never answers a hanging request until it is aborted', async () => {
    const { go, invoices, clock } = setup('hang');
    const controller = new AbortController();
    let settled = false;
    const pending = go(invoices, {}, { signal: controller.signal }).finally(() => (settled = true));
    await clock.sleep(60_000);
    expect(settled).toBe(false);
    controller.abort(new Error('per-attempt timeout'));
    await expect(pending).rejects.toThrow('per-attempt timeout');
  });

  it('drips the body in chunks on the sandbox clock, and a timeout can cut it', async () => {
    const { go, invoices, clock } = setup([{ kind: 'drip', chunkBytes: 500, intervalMs: 1000 }]);
    const res = await go(invoices);
    const t0 = clock.monotonic();
    const text = await res.text();
    expect((JSON.parse(text) as HydraBody)['hydra:member']).toHaveLength(20);
    expect(clock.monotonic() - t0).toBe((Math.ceil(Buffer.byteLength(text) / 500) - 1) * 1000);
    const res2 = await go(invoices, {}, { signal: AbortSignal.abort(new Error('gone')) }).catch((e: unknown) => e);
    expect(res2).toMatchObject({ message: 'gone' });
  });

  it('rejects at once when the signal is already aborted, even with latency', async () => {
    const { go, invoices } = setup([], { latencyMs: 5000 });
    const controller = new AbortController();
    const p = go(invoices, {}, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});

describe('body faults', () => {
  it('truncates the body with a correct status', async () => {
    const { go, invoices } = setup('truncate afterBytes=300');
    const res = await go(invoices);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(Buffer.byteLength(text)).toBe(300);
    expect((): unknown => JSON.parse(text)).toThrow();
  });

  it('answers invalid JSON and an HTML 200', async () => {
    const { go, invoices, sandbox } = setup('invalid-json');
    const bad = await go(invoices);
    expect(bad.status).toBe(200);
    await expect(bad.json()).rejects.toThrow();
    sandbox.setFaults('html');
    const html = await go(invoices);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toMatch(/^<!DOCTYPE html>/);
  });

  it('writes unprefixed Hydra keys', async () => {
    const { go, invoices } = setup('unprefixed');
    const body = (await (await go(`${invoices}?itemsPerPage=5`)).json()) as UnprefixedBody;
    expect(Object.keys(body)).toEqual(['@context', '@id', '@type', 'totalItems', 'member', 'view']);
    expect(body['@type']).toBe('Collection');
    expect(body.member).toHaveLength(5);
    expect(body.view.next).toMatch(/page=2$/);
    expect(body.view['@type']).toBe('PartialCollectionView');
  });

  it("writes absolute links on the request's own origin", async () => {
    const { go, invoices } = setup('absolute-links');
    const body = (await (await go(`${invoices}?itemsPerPage=5`)).json()) as HydraBody;
    expect(body['hydra:view']['hydra:next']).toBe(`${invoices}?itemsPerPage=5&page=2`);
    expect(body['hydra:view']['@id']).toBe(`${invoices}?itemsPerPage=5&page=1`);
  });

  it('points next at another origin or loops it', async () => {
    const { go, invoices, sandbox, rfc } = setup('foreign-next url=http://evil.test/');
    const body = (await (await go(`${invoices}?itemsPerPage=5`)).json()) as HydraBody;
    expect(body['hydra:view']['hydra:next']).toBe(`http://evil.test/taxpayers/${rfc}/invoices?itemsPerPage=5&page=2`);
    sandbox.setFaults('loop-next');
    const self = (await (await go(`${invoices}?itemsPerPage=5&page=3`)).json()) as HydraBody;
    expect(self['hydra:view']['hydra:next']).toBe(self['hydra:view']['@id']);
    sandbox.setFaults('loop-next to=first');
    const cursor = (await (await go(`${invoices}?itemsPerPage=5`, { 'X-Pagination-Style': 'cursor' })).json()) as HydraBody;
    expect(cursor['hydra:view']['hydra:next']).toBe(`/taxpayers/${rfc}/invoices?itemsPerPage=5`);
  });

  it('redirects to another origin: manual returns the 302, follow would carry the key there', async () => {
    const { go, invoices, fetch } = setup('redirect url=http://evil.test/');
    const res = await go(`${invoices}?page=2`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`http://evil.test${new URL(invoices).pathname}?page=2`);
    expect(fetch.foreignRequests).toEqual([]);
    await expect(fetch(invoices, { headers: headers() })).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    expect(fetch.foreignRequests).toHaveLength(1);
    expect(fetch.foreignRequests[0]!.headers['x-api-key']).toBe(KEY);
  });
});

describe('rate-limit header faults', () => {
  it('shifts Date and Reset by a clock offset while the windows keep real time', async () => {
    const { go, invoices, clock } = setup('clock-offset offsetMs=-600000', { limit: 1, windowSeconds: 60 });
    const ok = await go(invoices);
    expect(Date.parse(ok.headers.get('date')!)).toBe(Date.UTC(2024, 3, 16, 17, 50, 7));
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBe(Date.UTC(2024, 3, 16, 17, 51, 0) / 1000);
    const limited = await go(invoices);
    expect(limited.status).toBe(429);
    // Waiting Reset − Date from now is enough, whatever the offset.
    const waitMs = Number(limited.headers.get('x-ratelimit-reset')) * 1000 - Date.parse(limited.headers.get('date')!);
    await clock.sleep(waitMs);
    expect((await go(invoices)).status).toBe(200);
  });

  it.each([
    ['iso', (resetMs: number) => new Date(resetMs).toISOString()],
    ['ms', (resetMs: number) => String(resetMs)],
    ['zero', () => '0'],
    ['past', () => String(Math.floor(T0 / 1000) - 3600)],
    ['garbage', () => 'soon'],
    ['far', () => String(Math.ceil(T0 / 1000) + 7200)],
  ])('writes X-RateLimit-Reset as %s', async (format, expected) => {
    const { go, invoices } = setup(`reset-format format=${format}`);
    const res = await go(invoices);
    expect(res.headers.get('x-ratelimit-reset')).toBe(expected(Date.UTC(2024, 3, 16, 18, 1, 0)));
  });

  it('sends Retry-After without Reset on a 429, in seconds or as an HTTP-date', async () => {
    const { go, invoices, sandbox } = setup('retry-after', { limit: 1 });
    await go(invoices);
    const res = await go(invoices);
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-reset')).toBeNull();
    expect(res.headers.get('retry-after')).toBe('53');
    sandbox.setFaults('retry-after format=http-date seconds=30');
    const res2 = await go(invoices);
    expect(res2.headers.get('retry-after')).toBe('Tue, 16 Apr 2024 18:00:38 GMT');
  });

  it('answers 429 forever with permanent-429, and Remaining 0 on a 200 with remaining-zero', async () => {
    const { go, invoices, clock, sandbox } = setup('permanent-429');
    for (let i = 0; i < 3; i++) {
      const res = await go(invoices);
      expect(res.status).toBe(429);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      await clock.sleep(61_000);
    }
    sandbox.setFaults('remaining-zero');
    const res = await go(invoices);
    expect([res.status, res.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
  });
});
