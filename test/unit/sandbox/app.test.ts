import { describe, expect, it } from 'vitest';
import { createSandbox, type WireEncoding } from '../../../src/sandbox/app.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { SAMPLE_IDS } from '../../../src/commands/help-text.js';
import { get, headers, KEY, parsePage } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const REQUEST_ID = /^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/;

/** The fields of the generated records these tests read. */
type PartyRecord = {
  rfc: string;
  name: string;
};
type InvoiceRecord = {
  '@id': string;
  '@type': string;
  id: string;
  uuid: string;
  issuer: PartyRecord;
  receiver: PartyRecord;
  isIssuer: boolean;
  total: number;
  relations: unknown;
  tags: unknown;
  type: string;
  status: string;
  issuedAt: string;
  createdAt: string;
};
type LineItemRecord = {
  '@id': string;
  id: string;
  invoice: unknown;
  totalAmount: number;
  unitAmount: number;
  quantity: number;
};
type PaymentRecord = {
  amount: number;
  invoice: string;
};
type EntityRecord = {
  '@type': string;
  taxpayer: { id: string };
  credential: { rfc: string };
};
type EventRecord = {
  data: unknown;
};

function sandbox(seed = 1, wire?: WireEncoding) {
  return createSandbox({
    apiKey: KEY,
    seed,
    clock: createVirtualClock(),
    sizes: { invoicesPerTaxpayer: 40, paymentsPerTaxpayer: 60 },
    ...(wire ? { wire } : {}),
  });
}

describe('errors', () => {
  it.each([
    ['no key', {}],
    ['a wrong key', { 'X-Api-Key': 'nope' }],
  ])('answers 401 {"message":"Unauthorized"} with %s, without rate-limit headers', async (_name, hdrs) => {
    const res = await get(sandbox(), '/entities', hdrs);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ message: 'Unauthorized' });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(res.headers.get('date')).toMatch(/GMT$/);
  });

  it('takes the key header in any case', async () => {
    const res = await get(sandbox(), '/entities', { 'x-api-KEY': KEY });
    expect(res.status).toBe(200);
  });

  it.each([
    '/taxpayers/XAXX010101000/invoices',
    '/invoices/00000000-0000-7000-8000-000000000000/line-items',
    '/nope',
    '/entities/',
    '/taxpayers//invoices',
  ])('answers 404 {"message":"Not Found"} on %s, with rate-limit headers', async (path) => {
    const res = await get(sandbox(), path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ message: 'Not Found' });
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it("answers 404 for another taxpayer's invoice", async () => {
    const sb = sandbox();
    const [a, b] = sb.taxpayers();
    const invoice = sb.invoiceIds(a!)[0]!;
    expect((await get(sb, `/taxpayers/${encodeURIComponent(a!)}/invoices/${invoice}/line-items`)).status).toBe(200);
    expect((await get(sb, `/taxpayers/${encodeURIComponent(b!)}/invoices/${invoice}/line-items`)).status).toBe(404);
  });

  it.each(['0', '1001', '1.5', 'abc'])('answers 400 with a message for itemsPerPage=%s', async (v) => {
    const res = await get(sandbox(), `/events?itemsPerPage=${v}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string };
    expect(body.message).toMatch(/itemsPerPage/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('answers 405 to other methods', async () => {
    const sb = sandbox();
    const res = await sb.handle(new Request('http://sandbox.test/entities', { method: 'POST', headers: headers(), body: '{}' }));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('records', () => {
  it('generates RFCs of 12 (companies) and 13 (persons) characters, with & and Ñ among them', () => {
    const rfcs = sandbox().taxpayers();
    for (const rfc of rfcs) expect(Array.from(rfc).length === 12 || Array.from(rfc).length === 13).toBe(true);
    expect(rfcs.some((r) => r.includes('&'))).toBe(true);
    expect(rfcs.some((r) => r.includes('Ñ'))).toBe(true);
  });

  it('is deterministic per seed and differs between seeds', () => {
    const path = (sb: ReturnType<typeof sandbox>) => `/taxpayers/${encodeURIComponent(sb.taxpayers()[0]!)}/invoices`;
    const a = sandbox(7);
    const b = sandbox(7);
    const c = sandbox(8);
    expect(JSON.stringify(a.items(path(a)))).toBe(JSON.stringify(b.items(path(b))));
    expect(JSON.stringify(a.items(path(a)))).not.toBe(JSON.stringify(c.items(path(c))));
  });

  it.each([1, 7, 8])('serves the ids of the README and --help as written, for seed %i', async (seed) => {
    const sb = sandbox(seed);
    expect(sb.taxpayers().slice(0, 2)).toEqual(['PEIC211118IS0', 'AAA010101AAA']);
    expect(sb.taxpayers()).not.toContain('XAXX010101000');
    const ids = sb.invoiceIds(SAMPLE_IDS.taxpayerId);
    // Newest first, as id descending: the sample invoice keeps the order the cursor pages rely on.
    expect(ids[0]).toBe(SAMPLE_IDS.invoiceId);
    expect([...ids].sort().reverse()).toEqual(ids);
    for (const path of [
      `/invoices/${SAMPLE_IDS.invoiceId}/line-items`,
      `/taxpayers/${SAMPLE_IDS.taxpayerId}/invoices/${SAMPLE_IDS.invoiceId}/line-items`,
    ]) {
      const res = await get(sb, path);
      expect(res.status, path).toBe(200);
      expect(parsePage(await res.json()).members.length).toBeGreaterThan(0);
    }
    expect((await get(sb, `/taxpayers/AAA010101AAA/invoices/${SAMPLE_IDS.invoiceId}/line-items`)).status).toBe(404);
    const inserted = sb.insert(`/taxpayers/${SAMPLE_IDS.taxpayerId}/invoices`)[0]!;
    expect(inserted > SAMPLE_IDS.invoiceId).toBe(true);
  });

  it('shapes invoices like the real service, with relative @ids and UUIDv7 ids', async () => {
    const sb = sandbox();
    const rfc = sb.taxpayers()[0]!;
    const page = parsePage(await (await get(sb, `/taxpayers/${rfc}/invoices?itemsPerPage=40`)).json());
    expect(page.raw['@context']).toBe('/contexts/Invoice');
    for (const inv of page.members as InvoiceRecord[]) {
      expect(inv['@id']).toBe(`/invoices/${inv.id}`);
      expect(inv['@type']).toBe('Invoice');
      expect(inv.id).toMatch(UUID);
      expect(inv.uuid).not.toBe(inv.id);
      expect([inv.issuer.rfc, inv.receiver.rfc]).toContain(rfc);
      expect(inv.isIssuer).toBe(inv.issuer.rfc === rfc);
      expect(typeof inv.total).toBe('number');
      expect(Array.isArray(inv.relations) && Array.isArray(inv.tags)).toBe(true);
      expect(['I', 'E', 'P', 'N', 'T']).toContain(inv.type);
      expect(['VIGENTE', 'CANCELADO']).toContain(inv.status);
      expect(inv.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(new Date(inv.createdAt).toISOString()).toBe(inv.createdAt);
    }
    const names = (sb.items(`/taxpayers/${rfc}/invoices`) as InvoiceRecord[]).flatMap((i) => [i.issuer.name, i.receiver.name]);
    expect(names.some((n: string) => /[ÁÉÍÓÚÑ]/.test(n))).toBe(true);
  });

  it('embeds a subset of the invoice in each line item', () => {
    const sb = sandbox();
    const rfc = sb.taxpayers()[1]!;
    const invoices = sb.items(`/taxpayers/${rfc}/invoices`) as InvoiceRecord[];
    const inv = invoices[5]!;
    const items = sb.items(`/invoices/${inv.id}/line-items`) as LineItemRecord[];
    expect(items.length).toBeGreaterThan(0);
    for (const li of items) {
      expect(li['@id']).toBe(`/invoices/line-items/${li.id}`);
      expect(li.invoice).toEqual({
        '@id': inv['@id'],
        '@type': 'Invoice',
        id: inv.id,
        uuid: inv.uuid,
        type: inv.type,
        issuedAt: inv.issuedAt,
        total: inv.total,
        status: inv.status,
      });
      expect(li.totalAmount).toBeCloseTo(li.unitAmount * li.quantity, 2);
    }
    expect(sb.items(`/taxpayers/${encodeURIComponent(rfc)}/invoices/${inv.id}/line-items`)).toEqual(items);
  });

  it('writes payments with IRIs, some negative, and entities and events with nested objects', () => {
    const sb = sandbox();
    const rfcs = sb.taxpayers();
    const payments = rfcs.flatMap((r) => sb.items(`/taxpayers/${encodeURIComponent(r)}/invoices/payments`)) as PaymentRecord[];
    expect(payments.some((p) => p.amount < 0)).toBe(true);
    expect(payments.some((p) => p.amount > 0)).toBe(true);
    for (const p of payments.slice(0, 20)) expect(p.invoice).toMatch(/^\/invoices\/[0-9a-f-]{36}$/);
    const entities = sb.items('/entities') as EntityRecord[];
    expect(entities[0]!['@type']).toBe('Link');
    expect(entities.map((e) => e.taxpayer.id)).toEqual(expect.arrayContaining(rfcs));
    expect(entities[0]!.credential.rfc).toBe(entities[0]!.taxpayer.id);
    const events = sb.items('/events') as EventRecord[];
    for (const e of events) {
      expect(e.data).toHaveProperty('object');
      expect(e.data).toHaveProperty('changes');
    }
  });
});

describe('response headers and log', () => {
  it('sends Date from the server clock and a request id on every response', async () => {
    const clock = createVirtualClock(Date.UTC(2024, 3, 16, 18, 4, 10, 900));
    const sb = createSandbox({ apiKey: KEY, clock });
    const res = await get(sb, '/entities');
    expect(res.headers.get('date')).toBe('Tue, 16 Apr 2024 18:04:10 GMT');
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(res.headers.get('x-request-id')).toContain(Math.floor(clock.now() / 1000).toString(16));
  });

  it('sleeps latencyMs on the clock before answering', async () => {
    const clock = createVirtualClock();
    const sb = createSandbox({ apiKey: KEY, clock, latencyMs: 750 });
    const t0 = clock.monotonic();
    await get(sb, '/entities');
    expect(clock.monotonic() - t0).toBe(750);
  });

  it('logs method, path, status, key presence and time, never the key', async () => {
    const clock = createVirtualClock();
    const sb = createSandbox({ apiKey: KEY, clock });
    await get(sb, '/entities?itemsPerPage=3');
    await get(sb, '/events', {});
    const log = sb.requests();
    expect(log).toMatchObject([
      { number: 1, method: 'GET', url: '/entities?itemsPerPage=3', status: 200, hasApiKey: true, endpoint: 'entities', timeMs: clock.now() },
      { number: 2, url: '/events', status: 401, hasApiKey: false },
    ]);
    expect(JSON.stringify(log)).not.toContain(KEY);
    expect(sb.stats().byStatus).toEqual({ 200: 1, 401: 1 });
  });

  it('mutates a collection automatically every n requests', async () => {
    const sb = createSandbox({ apiKey: KEY, clock: createVirtualClock(), limit: 0, sizes: { invoicesPerTaxpayer: 30 } });
    const path = `/taxpayers/${sb.taxpayers()[0]}/invoices`;
    const mutating = createSandbox({
      apiKey: KEY,
      clock: createVirtualClock(),
      limit: 0,
      sizes: { invoicesPerTaxpayer: 30 },
      mutations: [{ path, every: 2, insert: 2, remove: 1 }],
    });
    for (let i = 0; i < 4; i++) await get(mutating, `${path}?page=${i + 1}`);
    expect(mutating.items(path)).toHaveLength(30 + 2 * 2 - 2);
    expect(sb.items(path)).toHaveLength(30);
  });
});

describe('performance', () => {
  it('serves a taxpayer with a million invoices lazily, and a cached 1000-item page in a few ms', async () => {
    const started = performance.now();
    const sb = createSandbox({ apiKey: KEY, limit: 0, clock: createVirtualClock(), sizes: { taxpayers: 1, invoicesPerTaxpayer: 1_000_000 } });
    const path = `/taxpayers/${sb.taxpayers()[0]}/invoices?itemsPerPage=1000&page=1000`;
    const first = parsePage(await (await get(sb, path)).json());
    expect(first.total).toBe(1_000_000);
    expect(first.members).toHaveLength(1000);
    expect(first.view['hydra:next']).toBeUndefined();
    // Building 1M objects up front would take far longer than this.
    expect(performance.now() - started).toBeLessThan(2000);
    const cursor = await get(
      sb,
      `/taxpayers/${sb.taxpayers()[0]}/invoices?itemsPerPage=1000&id%5Blt%5D=${first.members[0]!.id}`,
      headers({ 'X-Pagination-Style': 'cursor' }),
    );
    expect(parsePage(await cursor.json()).members[0]!.id).toBe(first.members[1]!.id);
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const reply = await sb.reply({ method: 'GET', url: `http://sandbox.test${path}`, header: (n) => (n === 'x-api-key' ? KEY : null) });
      best = Math.min(best, performance.now() - t0);
      expect(reply.status).toBe(200);
    }
    expect(best).toBeLessThan(25);
  });

  // About bytes: pinned to the compact wire (the default is API Platform's escapes, tested in wire.test.ts).
  it('writes members byte for byte as JSON.stringify would with --wire compact', async () => {
    const sb = sandbox(1, 'compact');
    const text = await (await get(sb, `/taxpayers/${encodeURIComponent(sb.taxpayers()[3]!)}/invoices/line-items?itemsPerPage=50`)).text();
    expect(JSON.stringify(JSON.parse(text))).toBe(text);
    expect(text).toContain('"hydra:member":[{"@id":"/invoices/line-items/');
  });
});
