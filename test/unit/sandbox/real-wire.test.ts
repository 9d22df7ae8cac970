/**
 * The sandbox speaks the real service's wire: API Platform's bytes (`wire`), its cursor end since
 * 4.3.5 (`cursorEnd`), its 422 for invalid filter values, and invoice numbers JS cannot hold.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox, type CursorEnd, type SandboxOptions, type WireEncoding } from '../../../src/sandbox/app.js';
import { cursorMinus } from '../../../src/sandbox/cursor.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, headers, KEY, parsePage } from './helpers.js';

const CURSOR = headers({ 'X-Pagination-Style': 'cursor' });

function sandbox(options: SandboxOptions = {}) {
  return createSandbox({
    apiKey: KEY,
    limit: 0,
    clock: createVirtualClock(),
    sizes: { taxpayers: 1, invoicesPerTaxpayer: 30, events: 5 },
    ...options,
  });
}

const invoicesPath = (sb: ReturnType<typeof sandbox>) => `/taxpayers/${encodeURIComponent(sb.taxpayers()[0]!)}/invoices`;

describe('wire encodings', () => {
  const texts = async (wire?: WireEncoding) => {
    const sb = sandbox(wire ? { wire } : {});
    return (await get(sb, `${invoicesPath(sb)}?itemsPerPage=30`)).text();
  };

  it("writes API Platform's escapes by default and the same values in every encoding", async () => {
    const [byDefault, apiplatform, compact, pretty] = await Promise.all([texts(), texts('apiplatform'), texts('compact'), texts('pretty')]);
    expect(byDefault).toBe(apiplatform);
    expect(apiplatform).toContain('"@id":"\\/invoices\\/');
    expect(apiplatform).toContain('itemsPerPage=30\\u0026page=1');
    expect(apiplatform).not.toMatch(/[^\\]\//);
    expect(compact).toContain('"@id":"/invoices/');
    expect(pretty).toMatch(/^\{\n {4}"@context": "\\\/contexts\\\/Invoice",\n/);
    expect(pretty).toContain('\n    "hydra:member": [\n        {\n            "@id": "\\/invoices\\/');
    expect(JSON.parse(apiplatform)).toEqual(JSON.parse(compact));
    expect(JSON.parse(pretty)).toEqual(JSON.parse(compact));
    // Accents stay raw UTF-8 (JSON_UNESCAPED_UNICODE).
    expect(apiplatform).toMatch(/[ÁÉÍÓÚÑáéíóúñ]/);
  });

  it('writes the empty page of each encoding with an empty member array', async () => {
    for (const wire of ['apiplatform', 'compact', 'pretty'] as const) {
      const sb = sandbox({ wire });
      const text = await (await get(sb, `${invoicesPath(sb)}?page=9`)).text();
      expect(text).toContain(wire === 'pretty' ? '"hydra:member": [],' : '"hydra:member":[],');
      expect(parsePage(JSON.parse(text)).members).toEqual([]);
    }
  });

  it.each(['apiplatform', 'compact', 'pretty'] as const)('writes satFolio past 2^53 and exchangeRate 1.0 exactly (%s)', async (wire) => {
    const sb = sandbox({ wire });
    const text = await (await get(sb, `${invoicesPath(sb)}?itemsPerPage=30`)).text();
    const sep = wire === 'pretty' ? ': ' : ':';
    const folios = [...text.matchAll(new RegExp(`"satFolio"${sep}(\\d+)`, 'g'))].map((m) => BigInt(m[1]!));
    expect(folios).toHaveLength(30);
    for (const f of folios) {
      expect(f > 2n ** 53n && f < 2n ** 63n).toBe(true);
      expect(BigInt(Number(f))).not.toBe(f); // a JS number cannot hold it
    }
    expect(new Set(folios).size).toBe(30);
    const rates = [...text.matchAll(new RegExp(`"exchangeRate"${sep}([^,\\n}]+)`, 'g'))].map((m) => m[1]!);
    expect(rates).toContain('1.0');
    expect(rates.every((r) => r === 'null' || r === '1.0' || /^\d+\.\d{1,4}$/.test(r))).toBe(true);
    // Income invoices in pesos state the rate 1.0; other pesos invoices none.
    const members = parsePage(JSON.parse(text)).members as unknown as Array<{ type: string; currency: string; exchangeRate: number | null }>;
    for (const m of members.filter((x) => x.currency === 'MXN')) expect(m.exchangeRate).toBe(m.type === 'I' ? 1 : null);
  });
});

describe('cursor end', () => {
  /** The first cursor pages of the invoices with 12 a page (30 items: 12, 12, 6, then the end). */
  async function chain(cursorEnd?: CursorEnd, pages = 5) {
    const sb = sandbox(cursorEnd ? { cursorEnd } : {});
    let next: string | undefined = `${invoicesPath(sb)}?itemsPerPage=12`;
    const seen: Array<{ count: number; next: string | undefined; view: string }> = [];
    while (next !== undefined && seen.length < pages) {
      const page = parsePage(await (await get(sb, next, CURSOR)).json());
      seen.push({ count: page.members.length, next: page.view['hydra:next'], view: page.view['@id']! });
      next = page.view['hydra:next'];
    }
    return { seen, ids: sb.invoiceIds(sb.taxpayers()[0]!) };
  }

  it('links next from every non-empty page and on from every empty page by default (API Platform 4.3.5)', async () => {
    const { seen, ids } = await chain();
    expect(seen.map((p) => p.count)).toEqual([12, 12, 6, 0, 0]);
    expect(seen[2]!.next).toMatch(new RegExp(`id%5Blt%5D=${ids[29]}$`));
    // The empty page reached with id[lt]=X links to id[lt]=X−12, the UUID read as a number.
    expect(seen[3]!.next).toMatch(new RegExp(`id%5Blt%5D=${cursorMinus(ids[29]!, 12)}$`));
    expect(seen[4]!.next).toMatch(new RegExp(`id%5Blt%5D=${cursorMinus(cursorMinus(ids[29]!, 12)!, 12)}$`));
    expect(new Set(seen.map((p) => p.view)).size).toBe(5);
  });

  it('ends with an empty page that links nothing with empty-page (API Platform before 4.3.5)', async () => {
    const { seen } = await chain('empty-page');
    expect(seen.map((p) => [p.count, p.next !== undefined])).toEqual([
      [12, true],
      [12, true],
      [6, true],
      [0, false],
    ]);
  });

  it('links no next from the last page with last-page', async () => {
    const { seen } = await chain('last-page');
    expect(seen.map((p) => [p.count, p.next !== undefined])).toEqual([
      [12, true],
      [12, true],
      [6, false],
    ]);
  });

  it("links nothing from an empty collection's first page (no cursor to move on from)", async () => {
    const sb = sandbox({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 0 } });
    const page = parsePage(await (await get(sb, invoicesPath(sb), CURSOR)).json());
    expect(page.members).toEqual([]);
    expect(page.view['hydra:next']).toBeUndefined();
  });

  it.each([
    ['01794be0-94a5-73de-823c-35a1b58c0ec4', 2, '01794be0-94a5-73de-823c-35a1b58c0ec2'],
    ['01794be0-94a5-73de-823c-35a1b58c0100', 1, '01794be0-94a5-73de-823c-35a1b58c00ff'],
    ['00000000-0000-0000-0000-000000000005', 10, '00000000-0000-0000-0000-000000000000'],
    ['00000000-0000-0000-0000-000000000000', 10, undefined],
    ['120', 50, '70'],
    ['not-a-cursor', 5, undefined],
  ])('cursorMinus(%s, %i) = %s', (cursor, n, expected) => {
    expect(cursorMinus(cursor, n)).toBe(expected);
  });
});

describe('422 for invalid filter values', () => {
  it.each([
    ['updatedAt[after]=yesterday-ish', 'updatedAt[after]', 'This value is not a valid datetime.'],
    ['total[gt]=lots', 'total[gt]', 'This value should be of type number.'],
    ['total[between]=5', 'total[between]', 'This value should be of type number.'],
    ['type=X', 'type', 'The value you selected is not a valid choice.'],
    ['status=paid', 'status', 'The value you selected is not a valid choice.'],
  ])('answers %s with a ConstraintViolationList problem', async (query, propertyPath, message) => {
    const sb = sandbox();
    const res = await get(sb, `${invoicesPath(sb)}?${query}`);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 422,
      title: 'An error occurred',
      detail: `${propertyPath}: ${message}`,
      description: `${propertyPath}: ${message}`,
      violations: [{ propertyPath, message }],
    });
    expect(body.type).toMatch(/^\/validation_errors\/[0-9a-f-]{36}$/);
  });

  it('lists every violation, and writes the body in the wire encoding', async () => {
    const sb = sandbox();
    const res = await get(sb, `${invoicesPath(sb)}?type=Z&createdAt[before]=soon&foo[gt]=x`);
    const text = await res.text();
    expect(text).toContain('"type":"\\/validation_errors\\/');
    const body = JSON.parse(text) as { violations: Array<{ propertyPath: string }> };
    expect(body.violations.map((v) => v.propertyPath)).toEqual(['type', 'createdAt[before]']);
  });

  it('keeps ignoring unknown filters, and takes valid values', async () => {
    const sb = sandbox();
    for (const query of [
      'foo=bar',
      'order[issuedAt]=sideways',
      'type=I',
      'total[gte]=1000.5',
      'total[between]=100..5000',
      'updatedAt[after]=2023-01-01',
    ]) {
      expect((await get(sb, `${invoicesPath(sb)}?${query}`)).status, query).toBe(200);
    }
    // events filter on type too, but not on an enumeration of invoice types.
    expect((await get(sb, '/events?type=invoice.created')).status).toBe(200);
  });

  it("filters numeric ranges as API Platform's RangeFilter: gt/lt strict, gte/lte/between inclusive", async () => {
    const sb = sandbox();
    const all = sb.items(invoicesPath(sb)) as Array<{ id: string; total: number }>;
    const totals = all.map((i) => i.total).sort((a, b) => a - b);
    const mid = totals[15]!;
    const ids = async (query: string) =>
      parsePage(await (await get(sb, `${invoicesPath(sb)}?itemsPerPage=100&${query}`)).json()).members.map((m) => m.id);
    const expectIds = (pred: (t: number) => boolean) => all.filter((i) => pred(i.total)).map((i) => i.id);
    expect(await ids(`total[gt]=${mid}`)).toEqual(expectIds((t) => t > mid));
    expect(await ids(`total[gte]=${mid}`)).toEqual(expectIds((t) => t >= mid));
    expect(await ids(`total[lt]=${mid}`)).toEqual(expectIds((t) => t < mid));
    expect(await ids(`total[lte]=${mid}`)).toEqual(expectIds((t) => t <= mid));
    expect(await ids(`total[between]=${totals[5]}..${mid}`)).toEqual(expectIds((t) => t >= totals[5]! && t <= mid));
  });
});
