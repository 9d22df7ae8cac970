/**
 * The sandbox's deletions (`deletions: true`): the churn deletes invoices and entities and records
 * their `*.deleted` events; events older than the retention disappear; `/events` filters as the
 * service's (`type`, `type[]`, `taxpayer.id`, `resource`, `createdAt[…]`, `order[createdAt]`).
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/app.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, KEY, parsePage } from './helpers.js';

const START = Date.UTC(2024, 3, 16, 18, 0, 0);
const DAY = 86_400_000;

function world(options: { deletions?: boolean; retention?: number } = {}) {
  const clock = createVirtualClock(START);
  const sandbox = createSandbox({
    apiKey: KEY,
    limit: 0,
    clock,
    churn: 6,
    sizes: { taxpayers: 2, invoicesPerTaxpayer: 40, events: 30, entities: 10 },
    deletions: options.deletions ?? true,
    ...(options.retention === undefined ? {} : { eventRetentionDays: options.retention }),
  });
  return { clock, sandbox, taxpayers: sandbox.taxpayers() };
}

type Event = { id: string; type: string; resource: string; taxpayer: { id: string } | null; createdAt: string; data: { object: { id: string } } };

async function events(s: ReturnType<typeof world>['sandbox'], query = ''): Promise<Event[]> {
  const res = await get(s, `/events?itemsPerPage=1000${query}`);
  expect(res.status).toBe(200);
  return parsePage(await res.json()).members as unknown as Event[];
}

const ids = (items: unknown[]): string[] => (items as Array<{ id: string }>).map((i) => i.id);

describe('the churn with deletions', () => {
  it('deletes invoices and records one invoice.deleted event each, with resource and data.object (the last state)', async () => {
    const w = world();
    const path = `/taxpayers/${w.taxpayers[0]}/invoices`;
    const before = new Map((w.sandbox.items(path) as Array<{ id: string }>).map((i) => [i.id, i]));
    w.clock.advance(10 * 60_000);
    const after = new Set(ids(w.sandbox.items(path)));
    const gone = [...before.keys()].filter((id) => !after.has(id));
    expect(gone.length).toBeGreaterThan(0);
    const deleted = await events(w.sandbox, `&type=invoice.deleted&taxpayer.id=${w.taxpayers[0]}`);
    // Every invoice gone has its event; the other events are of invoices the churn inserted, then deleted.
    const objects = deleted.map((e) => e.data.object.id);
    expect(gone.filter((id) => !objects.includes(id))).toEqual([]);
    expect(objects.filter((id) => after.has(id))).toEqual([]);
    expect(new Set(objects).size).toBe(objects.length);
    // The last state: an invoice updated before it was deleted has its new updatedAt there.
    for (const e of deleted.filter((d) => before.has(d.data.object.id)))
      expect({ ...e.data.object, updatedAt: null }).toEqual({ ...before.get(e.data.object.id), updatedAt: null });
    for (const e of deleted) {
      expect(e.resource).toBe(`/invoices/${e.data.object.id}`);
      expect(e.taxpayer?.id).toBe(w.taxpayers[0]);
      expect(Date.parse(e.createdAt)).toBeGreaterThan(START);
      expect(Date.parse(e.createdAt)).toBeLessThanOrEqual(w.clock.now());
    }
    // Every deletion is in the taxpayer's entity events too.
    const entity = (w.sandbox.items('/entities') as Array<{ id: string; taxpayer: { id: string } }>).find((e) => e.taxpayer.id === w.taxpayers[0])!;
    const res = await get(w.sandbox, `/entities/${entity.id}/events?itemsPerPage=1000&type=invoice.deleted`);
    expect(ids(parsePage(await res.json()).members).sort()).toEqual(ids(deleted).sort());
  });

  it('reading /events first still finds the deletions due by then (the other collections are brought up to date)', async () => {
    const w = world();
    w.clock.advance(10 * 60_000);
    const deleted = await events(w.sandbox, '&type[]=invoice.deleted&type[]=link.deleted');
    const path = `/taxpayers/${w.taxpayers[1]}/invoices`;
    const objects = deleted.filter((e) => e.taxpayer?.id === w.taxpayers[1]).map((e) => e.data.object.id);
    expect(objects.length).toBeGreaterThan(0);
    const current = new Set(ids(w.sandbox.items(path)));
    expect(objects.filter((id) => current.has(id))).toEqual([]);
    expect(deleted.some((e) => e.type === 'link.deleted')).toBe(true);
    // A taxpayer's own entity is never deleted: its /entities/{id}/… paths name it.
    const entities = w.sandbox.items('/entities') as Array<{ taxpayer: { id: string } }>;
    for (const rfc of w.taxpayers) expect(entities.some((e) => e.taxpayer.id === rfc)).toBe(true);
  });

  it('without the switch the churn never deletes and records no deletion', async () => {
    const w = world({ deletions: false });
    const path = `/taxpayers/${w.taxpayers[0]}/invoices`;
    const before = ids(w.sandbox.items(path));
    w.clock.advance(10 * 60_000);
    const after = new Set(ids(w.sandbox.items(path)));
    expect(before.filter((id) => !after.has(id))).toEqual([]);
    expect(await events(w.sandbox, '&type=invoice.deleted')).toEqual([]);
  });

  it('drops the events older than the retention, on the sandbox clock', async () => {
    // A retention of 0.01 day (864 s) keeps the churn of the test small.
    const retention = 0.01 * DAY;
    const w = world({ retention: 0.01 });
    w.clock.advance(2 * 60_000);
    const deletion = (await events(w.sandbox, '&type=invoice.deleted&order[createdAt]=asc'))[0]!;
    expect(deletion).toBeDefined();
    const end = Date.parse(deletion.createdAt) + retention;
    w.clock.setNow(end);
    expect(ids(await events(w.sandbox, '&type=invoice.deleted'))).toContain(deletion.id);
    w.clock.setNow(end + 1000);
    expect(ids(await events(w.sandbox, '&type=invoice.deleted'))).not.toContain(deletion.id);
    const left = await events(w.sandbox);
    expect(left.length).toBeGreaterThan(0);
    // The generated events (of the 7 days before START) are gone too.
    expect(left.every((e) => Date.parse(e.createdAt) >= w.clock.now() - retention)).toBe(true);
  });
});

describe('/events filters', () => {
  it('type, taxpayer.id, resource, createdAt[after|strictly_after|before|strictly_before] and order[createdAt]', async () => {
    const w = world();
    w.clock.advance(20 * 60_000);
    const all = await events(w.sandbox);
    const deleted = all.filter((e) => e.type === 'invoice.deleted');
    expect(deleted.length).toBeGreaterThan(2);
    expect(ids(await events(w.sandbox, '&type=invoice.deleted'))).toEqual(ids(deleted));
    const mine = all.filter((e) => e.taxpayer?.id === w.taxpayers[1]);
    expect(ids(await events(w.sandbox, `&taxpayer.id=${w.taxpayers[1]}`))).toEqual(ids(mine));
    const one = deleted[1]!;
    expect(ids(await events(w.sandbox, `&resource=${encodeURIComponent(one.resource)}`))).toEqual([one.id]);
    const at = encodeURIComponent(one.createdAt);
    const times = (list: Event[]) => list.map((e) => Date.parse(e.createdAt));
    const t = Date.parse(one.createdAt);
    expect(times(await events(w.sandbox, `&createdAt[after]=${at}`)).every((x) => x >= t)).toBe(true);
    expect(ids(await events(w.sandbox, `&createdAt[after]=${at}`))).toContain(one.id);
    expect(ids(await events(w.sandbox, `&createdAt[strictly_after]=${at}`))).not.toContain(one.id);
    expect(ids(await events(w.sandbox, `&createdAt[before]=${at}`))).toContain(one.id);
    expect(ids(await events(w.sandbox, `&createdAt[strictly_before]=${at}`))).not.toContain(one.id);
    const asc = times(await events(w.sandbox, '&order[createdAt]=asc'));
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    const desc = times(await events(w.sandbox, '&order[createdAt]=desc'));
    expect(desc).toEqual([...asc].reverse());
    const both = await events(w.sandbox, `&type=invoice.deleted&taxpayer.id=${w.taxpayers[0]}&createdAt[after]=${at}&order[createdAt]=asc`);
    expect(both.every((e) => e.type === 'invoice.deleted' && e.taxpayer?.id === w.taxpayers[0] && Date.parse(e.createdAt) >= t)).toBe(true);
    expect(times(both)).toEqual([...times(both)].sort((a, b) => a - b));
  });
});
