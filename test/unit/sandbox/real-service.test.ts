/**
 * The switches that make the sandbox answer as the real service was seen answering (docs/sandbox.md):
 * cursor-only endpoints, a server that ignores `X-Pagination-Style`, pages without `view`, dates
 * without a zone and embedded batch payments. Each is off by default, so the default bytes stay.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox, type SandboxOptions } from '../../../src/sandbox/app.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, headers, KEY } from './helpers.js';

const CURSOR = headers({ 'X-Pagination-Style': 'cursor' });
const ONLY_CURSOR = { message: 'Only cursor pagination is available for this endpoint.' };

function sandbox(options: SandboxOptions = {}, invoices = 30) {
  return createSandbox({
    apiKey: KEY,
    limit: 0,
    clock: createVirtualClock(),
    sizes: { taxpayers: 1, invoicesPerTaxpayer: invoices, paymentsPerTaxpayer: 5, entities: 3, events: 0 },
    ...options,
  });
}

const tp = (sb: ReturnType<typeof sandbox>): string => encodeURIComponent(sb.taxpayers()[0]!);
const json = async (r: Response): Promise<Record<string, unknown>> => (await r.json()) as Record<string, unknown>;
const view = (body: Record<string, unknown>): Record<string, string> | undefined => body['hydra:view'] as Record<string, string> | undefined;

describe('cursorOnly', () => {
  it.each([
    ['page=1', {}],
    ['itemsPerPage=10&page=2', {}],
    ['page=1', { 'X-Pagination-Style': 'cursor' }],
  ])('answers a request carrying page (%s) with the 400 of the real service', async (query, extra) => {
    const sb = sandbox({ cursorOnly: true });
    const r = await get(sb, `/taxpayers/${tp(sb)}/invoices?${query}`, headers(extra));
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual(ONLY_CURSOR);
  });

  it('pages by cursor without X-Pagination-Style, on every cursor-capable endpoint', async () => {
    const sb = sandbox({ cursorOnly: true });
    for (const path of [`/taxpayers/${tp(sb)}/invoices`, `/taxpayers/${tp(sb)}/invoices/line-items`, `/taxpayers/${tp(sb)}/invoices/payments`]) {
      const body = await json(await get(sb, `${path}?itemsPerPage=2`));
      expect(body['hydra:totalItems'], path).toBeUndefined();
      expect(view(body)!['hydra:next'], path).toMatch(/id%5Blt%5D=/);
    }
  });

  it('leaves the offset-only endpoints as they are', async () => {
    const sb = sandbox({ cursorOnly: true });
    const r = await get(sb, '/entities?page=1&itemsPerPage=2');
    expect(r.status).toBe(200);
    expect(view(await json(r))!['hydra:next']).toBe('/entities?itemsPerPage=2&page=2');
  });

  it('is off by default: page is accepted and the header chooses', async () => {
    const sb = sandbox();
    const r = await get(sb, `/taxpayers/${tp(sb)}/invoices?page=1&itemsPerPage=2`);
    expect(r.status).toBe(200);
    expect(view(await json(r))!['hydra:next']).toMatch(/page=2$/);
  });

  it('cannot be combined with ignorePaginationStyle', () => {
    expect(() => sandbox({ cursorOnly: true, ignorePaginationStyle: true })).toThrow(RangeError);
  });
});

describe('ignorePaginationStyle (plain API Platform)', () => {
  it('answers offset pages with totalItems and page links to X-Pagination-Style: cursor', async () => {
    const sb = sandbox({ ignorePaginationStyle: true });
    const body = await json(await get(sb, `/taxpayers/${tp(sb)}/invoices?itemsPerPage=10`, CURSOR));
    expect(body['hydra:totalItems']).toBe(30);
    expect(view(body)).toMatchObject({
      'hydra:next': expect.stringMatching(/page=2$/) as unknown,
      'hydra:last': expect.stringMatching(/page=3$/) as unknown,
    });
  });
});

describe("singlePage: 'no-view'", () => {
  it.each([
    ['a collection that fits one page', 'itemsPerPage=50', 30],
    ['an empty collection', 'itemsPerPage=50', 0],
  ])('%s comes without view and with a hydra:search template', async (_name, query, invoices) => {
    const sb = sandbox({ singlePage: 'no-view' }, invoices);
    const body = await json(await get(sb, `/taxpayers/${tp(sb)}/invoices?${query}`));
    expect(view(body)).toBeUndefined();
    expect(body['hydra:member']).toHaveLength(invoices);
    expect(body['hydra:totalItems']).toBe(invoices);
    const search = body['hydra:search'] as { 'hydra:template': string; 'hydra:mapping': Array<{ variable: string; property: string }> };
    expect(search['hydra:template']).toMatch(
      new RegExp(`^/taxpayers/${tp(sb)}/invoices\\{\\?status,.*createdAt\\[after\\],.*order\\[issuedAt\\]\\}$`),
    );
    expect(search['hydra:mapping']).toContainEqual(expect.objectContaining({ variable: 'updatedAt[strictly_before]', property: 'updatedAt' }));
  });

  it('keeps the view of a page that links on (more pages, or a cursor page)', async () => {
    const sb = sandbox({ singlePage: 'no-view' });
    expect(view(await json(await get(sb, `/taxpayers/${tp(sb)}/invoices?itemsPerPage=10`)))).toBeDefined();
    expect(view(await json(await get(sb, `/taxpayers/${tp(sb)}/invoices?itemsPerPage=50`, CURSOR)))).toBeDefined();
  });

  it('leaves out the view of a cursor page that links nowhere (an empty collection)', async () => {
    const sb = sandbox({ singlePage: 'no-view' }, 0);
    const body = await json(await get(sb, `/taxpayers/${tp(sb)}/invoices`, CURSOR));
    expect(view(body)).toBeUndefined();
    expect(body['hydra:member']).toEqual([]);
  });

  it('writes no hydra:search for a collection without filters', async () => {
    const sb = sandbox({ singlePage: 'no-view' });
    const body = await json(await get(sb, `/taxpayers/${tp(sb)}/invoices/payments?itemsPerPage=50`));
    expect(body).not.toHaveProperty('hydra:view');
    expect(body).not.toHaveProperty('hydra:search');
  });
});

describe('record shapes of the real service', () => {
  it("dates: 'naive' writes every date without a zone; the date filters still read them in UTC", async () => {
    const iso = sandbox();
    const naive = sandbox({ dates: 'naive' });
    const path = `/taxpayers/${tp(iso)}/invoices?itemsPerPage=50`;
    const a = (await json(await get(iso, path)))['hydra:member'] as Array<Record<string, string>>;
    const b = (await json(await get(naive, path)))['hydra:member'] as Array<Record<string, string>>;
    expect(a[0]!.issuedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(b[0]!.issuedAt).toBe(a[0]!.issuedAt!.replace('T', ' ').slice(0, 19));
    expect(JSON.stringify(b)).not.toMatch(/\d\dT\d\d:\d\d/);
    const since = a[9]!.updatedAt!;
    const filtered = `/taxpayers/${tp(iso)}/invoices?itemsPerPage=50&updatedAt[after]=${since}`;
    const count = async (sb: ReturnType<typeof sandbox>): Promise<number> => (await json(await get(sb, filtered)))['hydra:totalItems'] as number;
    expect(await count(naive)).toBe(await count(iso));
  });

  it("batchPayment: 'object' embeds the batch payment; every other field stays as in the IRI shape", async () => {
    const path = (sb: ReturnType<typeof sandbox>): string => `/taxpayers/${tp(sb)}/invoices/payments?itemsPerPage=5`;
    const iri = sandbox();
    const object = sandbox({ batchPayment: 'object' });
    const a = (await json(await get(iri, path(iri))))['hydra:member'] as Array<Record<string, unknown>>;
    const b = (await json(await get(object, path(object))))['hydra:member'] as Array<Record<string, unknown>>;
    expect(a[0]!.batchPayment).toMatch(/^\/invoices\/batch-payments\/[0-9a-f-]{36}$/);
    const batch = b[0]!.batchPayment as Record<string, unknown>;
    expect(batch).toMatchObject({ '@id': a[0]!.batchPayment, '@type': 'BatchPayment', amount: b[0]!.amount });
    expect(batch.payerBank).toEqual({ rfc: expect.any(String) as unknown, name: expect.any(String) as unknown });
    expect(batch.operationNumber).toMatch(/^\d{9}$/);
    expect(b.map((p) => ({ ...p, batchPayment: null }))).toEqual(a.map((p) => ({ ...p, batchPayment: null })));
  });
});
