import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/app.js';
import { parsePageQuery } from '../../../src/sandbox/pages.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, headers, KEY, parsePage, walk } from './helpers.js';

const CURSOR = headers({ 'X-Pagination-Style': 'cursor' });

function sandbox(invoices = 53) {
  return createSandbox({
    apiKey: KEY,
    limit: 0,
    clock: createVirtualClock(),
    sizes: { taxpayers: 4, invoicesPerTaxpayer: invoices, paymentsPerTaxpayer: 37, lineItemsPerInvoice: 3, entities: 9, events: 11 },
  });
}

describe('parsePageQuery', () => {
  const none = (): null => null;
  it.each([
    ['', 20, 1],
    ['itemsPerPage=1', 1, 1],
    ['itemsPerPage=1000&page=7', 1000, 7],
    ['page=12345678', 20, 12345678],
  ])('accepts %j', (query, ipp, page) => {
    const q = parsePageQuery(new URLSearchParams(query), true, none);
    expect(q).toMatchObject({ mode: 'offset', itemsPerPage: ipp, page });
  });

  it.each([
    'itemsPerPage=0',
    'itemsPerPage=1001',
    'itemsPerPage=1.5',
    'itemsPerPage=abc',
    'itemsPerPage=',
    'itemsPerPage=-3',
    'page=0',
    'page=1.5',
    'page=x',
  ])('rejects %j', (query) => {
    expect(parsePageQuery(new URLSearchParams(query), true, none)).toHaveProperty('error');
  });

  it('uses cursor mode only where the endpoint supports it, and reads the total header', () => {
    const h = (name: string): string | null => ({ 'x-pagination-style': 'cursor', 'x-pagination-enable-partial': '0' })[name] ?? null;
    expect(parsePageQuery(new URLSearchParams('id[lt]=b'), true, h)).toMatchObject({ mode: 'cursor', before: 'b', withTotal: true });
    expect(parsePageQuery(new URLSearchParams('id[lt]=b&page=2'), false, h)).toMatchObject({ mode: 'offset', page: 2, before: undefined });
  });
});

describe('offset pagination', () => {
  it.each([1, 7, 20, 53, 1000])('returns every invoice exactly once with itemsPerPage=%i', async (ipp) => {
    const sb = sandbox();
    const rfc = sb.taxpayers()[2]!; // the one with '&'
    const path = `/taxpayers/${encodeURIComponent(rfc)}/invoices`;
    const { ids, pages } = await walk(sb, `${path}?itemsPerPage=${ipp}`);
    const expected = sb.invoiceIds(rfc);
    expect(expected).toHaveLength(53);
    expect(ids).toEqual(expected);
    expect(pages).toHaveLength(Math.ceil(53 / ipp));
    for (const p of pages) expect(p.total).toBe(53);
  });

  it('writes relative first/previous/next/last links that keep the filters', async () => {
    const sb = sandbox();
    const res = await get(sb, '/entities?itemsPerPage=2&page=2&foo=bar');
    const page = parsePage(await res.json());
    expect(page.raw['@id']).toBe('/entities');
    expect(page.raw['@type']).toBe('hydra:Collection');
    expect(page.view).toEqual({
      '@id': '/entities?itemsPerPage=2&foo=bar&page=2',
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': '/entities?itemsPerPage=2&foo=bar&page=1',
      'hydra:previous': '/entities?itemsPerPage=2&foo=bar&page=1',
      'hydra:next': '/entities?itemsPerPage=2&foo=bar&page=3',
      'hydra:last': '/entities?itemsPerPage=2&foo=bar&page=5',
    });
  });

  it('omits first/next/last on a single page and answers an empty page past the end', async () => {
    const sb = sandbox();
    const single = parsePage(await (await get(sb, '/events?itemsPerPage=100')).json());
    expect(single.members).toHaveLength(11);
    expect(Object.keys(single.view).sort()).toEqual(['@id', '@type']);
    const past = parsePage(await (await get(sb, '/events?itemsPerPage=5&page=9')).json());
    expect(past.members).toEqual([]);
    expect(past.total).toBe(11);
    expect(past.view['hydra:next']).toBeUndefined();
  });

  it('filters invoices on status and type and ignores unknown filters', async () => {
    const sb = sandbox(200);
    const rfc = sb.taxpayers()[0]!;
    const all = sb.items(`/taxpayers/${rfc}/invoices`) as Array<{ status: string; type: string }>;
    const { ids } = await walk(sb, `/taxpayers/${rfc}/invoices?status=CANCELADO&itemsPerPage=7&nonsense=1`);
    const canceled = all.filter((i) => i.status === 'CANCELADO');
    expect(canceled.length).toBeGreaterThan(0);
    expect(ids).toEqual(canceled.map((i) => (i as unknown as { id: string }).id));
    const typed = parsePage(await (await get(sb, `/taxpayers/${rfc}/invoices?type=E&itemsPerPage=1000`)).json());
    expect(typed.total).toBe(all.filter((i) => i.type === 'E').length);
    const ignored = parsePage(await (await get(sb, `/taxpayers/${rfc}/invoices?colour=red`)).json());
    expect(ignored.total).toBe(200);
  });
});

describe('cursor pagination', () => {
  it.each([
    ['invoices', (rfc: string) => `/taxpayers/${encodeURIComponent(rfc)}/invoices`],
    ['payments', (rfc: string) => `/taxpayers/${encodeURIComponent(rfc)}/invoices/payments`],
    ['taxpayer line items', (rfc: string) => `/taxpayers/${encodeURIComponent(rfc)}/invoices/line-items`],
  ])('returns every %s item exactly once, newest first, without a total', async (_name, pathOf) => {
    const sb = sandbox();
    const rfc = sb.taxpayers()[3]!; // the one with 'Ñ'
    const path = pathOf(rfc);
    const { ids, pages } = await walk(sb, `${path}?itemsPerPage=6`, CURSOR);
    const expected = (sb.items(path) as Array<{ id: string }>).map((i) => i.id);
    expect(ids).toEqual(expected);
    expect([...ids].sort().reverse()).toEqual(ids);
    for (const p of pages) expect(p.total).toBeUndefined();
    expect(pages[1]!.view['hydra:next']).toMatch(/[?&]itemsPerPage=6&id%5Blt%5D=[0-9a-f-]{36}$/);
    expect(pages[1]!.view['hydra:previous']).toBe(`${path}?itemsPerPage=6&id%5Bgt%5D=${pages[1]!.members[0]!.id}`);
  });

  it('includes hydra:totalItems with X-Pagination-Enable-Partial: 0', async () => {
    const sb = sandbox();
    const page = parsePage(
      await (
        await get(sb, `/taxpayers/${sb.taxpayers()[0]}/invoices`, headers({ 'X-Pagination-Style': 'cursor', 'X-Pagination-Enable-Partial': '0' }))
      ).json(),
    );
    expect(page.total).toBe(53);
  });

  it('ignores the cursor header on entities and events', async () => {
    const sb = sandbox();
    const page = parsePage(await (await get(sb, '/entities?itemsPerPage=2', CURSOR)).json());
    expect(page.total).toBe(9);
    expect(page.view['hydra:next']).toBe('/entities?itemsPerPage=2&page=2');
  });

  it('walks backwards with the previous links to the same pages', async () => {
    const sb = sandbox();
    const path = `/taxpayers/${sb.taxpayers()[1]}/invoices`;
    const forward = await walk(sb, `${path}?itemsPerPage=10`, CURSOR);
    const last = forward.pages[forward.pages.length - 1]!;
    const back: string[][] = [];
    let prev: string | undefined = last.view['hydra:previous'];
    while (prev !== undefined) {
      const page = parsePage(await (await get(sb, prev, CURSOR)).json());
      back.unshift(page.members.map((m) => m.id));
      prev = page.view['hydra:previous'];
    }
    expect(back).toEqual(forward.pages.slice(0, -1).map((p) => p.members.map((m) => m.id)));
  });

  it('can name the previous link hydra:last (the OpenAPI example)', async () => {
    const sb = createSandbox({ apiKey: KEY, cursorPrevious: 'last', clock: createVirtualClock() });
    const path = `/taxpayers/${sb.taxpayers()[0]}/invoices/payments?itemsPerPage=5`;
    const first = parsePage(await (await get(sb, path, CURSOR)).json());
    const second = parsePage(await (await get(sb, first.view['hydra:next']!, CURSOR)).json());
    expect(second.view['hydra:last']).toMatch(/id%5Bgt%5D=/);
    expect(second.view['hydra:previous']).toBeUndefined();
  });

  it('keeps pages stable while items are inserted and deleted', async () => {
    const sb = sandbox(80);
    const rfc = sb.taxpayers()[0]!;
    const path = `/taxpayers/${rfc}/invoices`;
    const before = sb.invoiceIds(rfc);
    const removed: string[] = [];
    const inserted: string[] = [];
    const { ids } = await walk(sb, `${path}?itemsPerPage=10`, CURSOR, (pageIndex) => {
      inserted.push(...sb.insert(path, 3));
      // Delete one item not yet read (further down) and one already read.
      const current = sb.invoiceIds(rfc);
      const ahead = before[Math.min(before.length - 1, (pageIndex + 2) * 10 + 1)]!;
      if (!removed.includes(ahead) && sb.remove(path, ahead)) removed.push(ahead);
      const behind = before[pageIndex * 10]!;
      if (current.includes(behind) && sb.remove(path, behind)) removed.push(behind);
    });
    expect(new Set(ids).size).toBe(ids.length);
    const expected = before.filter((id) => !removed.includes(id) || ids.indexOf(id) >= 0);
    // Everything that existed at the start and was not deleted ahead of the reader was read once.
    for (const id of before) {
      const deletedAhead = removed.includes(id) && !ids.includes(id);
      expect(ids.includes(id) || deletedAhead).toBe(true);
    }
    expect(ids.filter((id) => inserted.includes(id))).toEqual([]);
    expect(ids.length).toBe(expected.length);
    // Inserted items land at the front.
    expect(sb.invoiceIds(rfc).slice(0, 3)).toEqual(inserted.slice(-3).reverse());
  });

  it('inserts at the front in offset mode too, shifting offset pages (why cursors exist)', async () => {
    const sb = sandbox(30);
    const path = `/taxpayers/${sb.taxpayers()[0]}/invoices`;
    const first = parsePage(await (await get(sb, `${path}?itemsPerPage=10`)).json());
    const [newId] = sb.insert(path);
    const again = parsePage(await (await get(sb, `${path}?itemsPerPage=10`)).json());
    expect(again.members[0]!.id).toBe(newId);
    expect(again.members[1]!.id).toBe(first.members[0]!.id);
    expect(again.total).toBe(31);
  });
});
