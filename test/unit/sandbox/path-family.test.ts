/**
 * The sandbox serves the current path family (`/entities/{entityId}/invoices`, `/line-items`,
 * `/payments`, `/events`, and `/invoices/payments`): the first taxpayers' entities have fixed ids
 * whatever the seed and sizes (the docs and `get --help` name them), each entity's collections are
 * its taxpayer's, and every route of the family pages by cursor.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/app.js';
import { SAMPLE_ENTITY_IDS } from '../../../src/sandbox/records/entities.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, headers, KEY, parsePage } from './helpers.js';

const [E0, E1] = SAMPLE_ENTITY_IDS;
const ids = (items: unknown[]): string[] => (items as Array<{ id: string }>).map((i) => i.id);

function sandbox(seed: number, sizes: { entities: number; taxpayers: number }) {
  return createSandbox({
    apiKey: KEY,
    limit: 0,
    seed,
    clock: createVirtualClock(Date.UTC(2024, 3, 16)),
    sizes: { ...sizes, invoicesPerTaxpayer: 12, paymentsPerTaxpayer: 7, events: 9 },
  });
}

describe('the entities of the first taxpayers', () => {
  it.each([
    [1, { entities: 3, taxpayers: 2 }],
    [7, { entities: 25, taxpayers: 4 }],
    [99, { entities: 2, taxpayers: 3 }],
  ])("seed %i, %j: the oldest entities have the fixed ids, and serve their taxpayer's collections", (seed, sizes) => {
    const s = sandbox(seed, sizes);
    const entities = s.items('/entities') as Array<{ id: string; taxpayer: { id: string } }>;
    expect(ids(entities.slice(-2))).toEqual([E1, E0]);
    expect(ids(entities)).toEqual([...ids(entities)].sort().reverse());
    const [tp0, tp1] = s.taxpayers() as [string, string];
    expect(entities.at(-1)!.taxpayer.id).toBe(tp0);
    expect(entities.at(-2)!.taxpayer.id).toBe(tp1);
    expect(ids(s.items(`/entities/${E0}/invoices`))).toEqual(ids(s.items(`/taxpayers/${encodeURIComponent(tp0)}/invoices`)));
    expect(ids(s.items(`/entities/${E1}/invoices/payments`))).toEqual(ids(s.items(`/taxpayers/${encodeURIComponent(tp1)}/invoices/payments`)));
  });

  it("an entity id that is no taxpayer's entity is a 404", async () => {
    const s = sandbox(1, { entities: 5, taxpayers: 1 });
    expect((await get(s, `/entities/${E0}/invoices`)).status).toBe(200);
    expect((await get(s, `/entities/${E1}/invoices`)).status).toBe(404);
    const synthetic = ids(s.items('/entities'))[0]!;
    expect((await get(s, `/entities/${synthetic}/events`)).status).toBe(404);
  });
});

describe('the routes of the family page by cursor', () => {
  it.each([
    `/entities/${E0}/invoices`,
    `/entities/${E0}/invoices/line-items`,
    `/entities/${E0}/invoices/payments`,
    `/entities/${E0}/events`,
    '/invoices/payments',
  ])('%s', async (path) => {
    const s = sandbox(3, { entities: 4, taxpayers: 2 });
    const res = await get(s, `${path}?itemsPerPage=2`, headers({ 'X-Pagination-Style': 'cursor' }));
    expect(res.status).toBe(200);
    const page = parsePage(await res.json());
    expect(ids(page.members)).toEqual(ids(s.items(path)).slice(0, 2));
    expect(page.view['hydra:next'] ?? page.view.next).toMatch(/id%5Blt%5D=/);
  });
});
