import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/app.js';
import { compileFilters, pickFilters } from '../../../src/sandbox/filters.js';
import type { GeneratedCollection } from '../../../src/sandbox/data.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, headers, KEY, parsePage } from './helpers.js';

const START = Date.UTC(2024, 3, 16, 18, 0, 0);
const sandbox = (churn?: number) =>
  createSandbox({
    apiKey: KEY,
    limit: 0,
    clock: createVirtualClock(START),
    sizes: { taxpayers: 1, invoicesPerTaxpayer: 40, events: 30 },
    ...(churn === undefined ? {} : { churn }),
  });

type Dated = { id: string; createdAt: string; updatedAt: string; issuedAt: string };

/** Every item of a collection in one offset page of up to 1000. */
async function all(s: ReturnType<typeof sandbox>, path: string, query = '', hdrs = headers()): Promise<Dated[]> {
  const res = await get(s, `${path}?itemsPerPage=1000${query}`, hdrs);
  expect(res.status).toBe(200);
  return parsePage(await res.json()).members as unknown as Dated[];
}

const base = { filters: ['status'], dateFilters: ['updatedAt', 'issuedAt'], orderFields: ['issuedAt'] } as unknown as GeneratedCollection;

describe('pickFilters', () => {
  it('picks exact, date-range and order filters, and ignores unknown ones, bad dates and bad orders', () => {
    const params = new URLSearchParams(
      'status=paid&updatedAt[after]=2024-01-01T00:00:00+00:00&issuedAt[strictly_before]=nope&createdAt[after]=2024-01-01&order[issuedAt]=DESC&order[id]=asc&foo=bar',
    );
    params.set('updatedAt[after]', '2024-01-01T00:00:00+00:00');
    expect([...pickFilters(base, params)]).toEqual([
      ['status', 'paid'],
      ['updatedAt[after]', '2024-01-01T00:00:00+00:00'],
      ['order[issuedAt]', 'desc'],
    ]);
  });

  it('ignores order[...] in cursor mode (cursor pages follow the ids)', () => {
    expect([...pickFilters(base, new URLSearchParams('order[issuedAt]=asc'), true)]).toEqual([]);
  });
});

describe('compileFilters', () => {
  const at = (iso: string) => ({ updatedAt: iso });
  const bound = '2024-05-01T00:00:00+00:00';
  it.each([
    ['after', [false, true, true]],
    ['strictly_after', [false, false, true]],
    ['before', [true, true, false]],
    ['strictly_before', [true, false, false]],
  ] as const)('%s includes the bound as the API documentation says', (op, expected) => {
    const { matches } = compileFilters(new Map([[`updatedAt[${op}]`, bound]]));
    expect(['2024-04-30T23:59:59.999Z', '2024-05-01T00:00:00.000Z', '2024-05-01T00:00:00.001Z'].map((d) => matches(at(d)))).toEqual(expected);
  });
});

describe('the sandbox filters and orders', () => {
  it('answers updatedAt[after] with exactly the items updated at or after the bound', async () => {
    const s = sandbox();
    const path = `/taxpayers/${s.taxpayers()[0]!}/invoices`;
    const every = await all(s, path);
    const times = every.map((i) => Date.parse(i.updatedAt)).sort((a, b) => a - b);
    const bound = new Date(times[20]!).toISOString();
    const got = await all(s, path, `&updatedAt%5Bafter%5D=${encodeURIComponent(bound)}`);
    expect(got.map((i) => i.id)).toEqual(every.filter((i) => Date.parse(i.updatedAt) >= times[20]!).map((i) => i.id));
    const strictly = await all(s, path, `&updatedAt%5Bstrictly_after%5D=${encodeURIComponent(bound)}`);
    expect(strictly.length).toBe(got.length - 1);
  });

  it('combines a date range with an exact filter, and sees the new updatedAt of items the churn updated', async () => {
    const s = sandbox(30);
    const path = `/taxpayers/${s.taxpayers()[0]!}/invoices`;
    const first = await all(s, path);
    const times = first.map((i) => Date.parse(i.updatedAt)).sort((a, b) => a - b);
    const bound = times[10]!;
    const query = (extra: string) => all(s, path, `&updatedAt%5Bafter%5D=${encodeURIComponent(new Date(bound).toISOString())}${extra}`);
    expect((await query('')).length).toBeGreaterThan(0);
    (s.clock as ReturnType<typeof createVirtualClock>).advance(5 * 60_000);
    // After five minutes of churn, some items have a new updatedAt: the filter reads it, not the generated one.
    const every = (await all(s, path)) as Array<Dated & { status: string }>;
    const status = every[0]!.status;
    const expected = every.filter((i) => Date.parse(i.updatedAt) >= bound && i.status === status).map((i) => i.id);
    const before = new Map(first.map((i) => [i.id, i.updatedAt]));
    expect(every.some((i) => before.has(i.id) && before.get(i.id) !== i.updatedAt)).toBe(true);
    const got = await query(`&status=${status}`);
    expect(got.map((i) => i.id)).toEqual(expected);
  });

  it('orders invoices by issuedAt in offset mode, and keeps the id order in cursor mode', async () => {
    const s = sandbox();
    const path = `/taxpayers/${s.taxpayers()[0]!}/invoices`;
    const asc = await all(s, path, '&order%5BissuedAt%5D=asc');
    const times = asc.map((i) => Date.parse(i.issuedAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const desc = await all(s, path, '&order%5BissuedAt%5D=desc');
    expect(desc.map((i) => Date.parse(i.issuedAt))).toEqual([...times].sort((a, b) => b - a));
    const cursor = await all(s, path, '&order%5BissuedAt%5D=asc', headers({ 'X-Pagination-Style': 'cursor' }));
    expect(cursor.map((i) => i.id)).toEqual((await all(s, path)).map((i) => i.id));
  });

  it('filters events by createdAt, and ignores updatedAt filters there as undocumented', async () => {
    const s = sandbox();
    const every = await all(s, '/events');
    const mid = every[10]!.createdAt;
    expect((await all(s, '/events', `&createdAt%5Bbefore%5D=${encodeURIComponent(mid)}`)).length).toBe(every.length - 10);
    expect((await all(s, '/events', '&updatedAt%5Bafter%5D=2100-01-01')).length).toBe(every.length);
  });
});

describe('churn', () => {
  it('inserts or updates n items a minute of the clock, stamped when they fell due, the same way each time', async () => {
    const run = async () => {
      const s = sandbox(6);
      const path = `/taxpayers/${s.taxpayers()[0]!}/invoices`;
      const before = new Map((await all(s, path)).map((i) => [i.id, i.updatedAt]));
      (s.clock as ReturnType<typeof createVirtualClock>).advance(60_000);
      const after = await all(s, path);
      const changed = after.filter((i) => before.get(i.id) !== i.updatedAt);
      return { before, after, changed };
    };
    const { before, after, changed } = await run();
    const inserted = after.filter((i) => !before.has(i.id));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThanOrEqual(6);
    expect(after.length).toBe(40 + inserted.length);
    for (const item of changed) expect(Date.parse(item.updatedAt)).toBeGreaterThan(START);
    for (const item of inserted) expect(item.createdAt).toBe(item.updatedAt);
    expect((await run()).after).toEqual(after);
  });

  it('changes nothing without the option: the seeded output stays the same', async () => {
    const s = sandbox();
    const path = `/taxpayers/${s.taxpayers()[0]!}/invoices`;
    const first = await all(s, path);
    (s.clock as ReturnType<typeof createVirtualClock>).advance(3_600_000);
    expect(await all(s, path)).toEqual(first);
  });
});
