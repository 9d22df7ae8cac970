/**
 * Generated events: `invoice.created`, `invoice.updated` and `credential.updated`, each with the
 * changed resource's current state in `data.object` and the changes in `data.changes`.
 */
import { createRng, hash32, uuidV4, type Rng } from '../random.js';
import { taxpayerRef } from './parties.js';
import type { GeneratedCollection, JsonObject, Party, RecordContext } from './types.js';
import { DAY, isoDate, KIND, newId } from './values.js';

/** The `data` of a `credential.updated` event at `ts` (epoch ms), and the resource it names. */
function credentialChange(party: Party, rng: Rng, ts: number): { resource: string; object: JsonObject; changes: JsonObject } {
  const credentialId = newId(ts - DAY, rng);
  return {
    resource: `/credentials/${credentialId}`,
    object: { id: credentialId, rfc: party.rfc, status: 'valid', updatedAt: isoDate(ts) },
    changes: { status: { old: 'pending', new: 'valid' } },
  };
}

/** The `data` of an invoice event of taxpayer `t` at `ts` (epoch ms), and the resource it names. */
function invoiceChange(
  ctx: RecordContext,
  t: number,
  kind: string,
  rng: Rng,
  ts: number,
): { resource: string; object: JsonObject; changes: JsonObject } {
  const inv = ctx.invoices(t);
  const core = inv.core(rng.int(inv.count));
  const o = core.obj;
  const object: JsonObject = {
    id: core.id,
    uuid: core.uuid,
    status: o.status!,
    paidAmount: o.paidAmount!,
    dueAmount: o.dueAmount!,
    lastPaymentDate: o.lastPaymentDate!,
    updatedAt: isoDate(ts),
  };
  const changes: JsonObject =
    kind === 'invoice.created'
      ? {}
      : {
          paidAmount: { old: 0, new: o.paidAmount! },
          dueAmount: { old: core.total, new: o.dueAmount! },
          lastPaymentDate: { old: null, new: o.lastPaymentDate! },
        };
  return { resource: `/invoices/${core.id}`, object, changes };
}

/** Builds an event of taxpayer `t` with id `id`, created at `ts` (epoch ms). */
function buildEvent(ctx: RecordContext, t: number, rng: Rng, id: string, ts: number): JsonObject {
  const party = ctx.taxpayers[t]!;
  const inv = ctx.invoices(t);
  const kind = inv.count > 0 ? rng.pick(['invoice.created', 'invoice.updated', 'credential.updated']) : 'credential.updated';
  const { resource, object, changes } = kind === 'credential.updated' ? credentialChange(party, rng, ts) : invoiceChange(ctx, t, kind, rng, ts);
  return {
    '@id': `/events/${id}`,
    '@type': 'Event',
    id,
    taxpayer: taxpayerRef(party),
    type: kind,
    source: `/extractions/${uuidV4(rng)}`,
    resource,
    data: { object, changes },
    createdAt: isoDate(ts),
    updatedAt: isoDate(ts),
  };
}

/** The generated events, taxpayers taking turns (uncached: `createDataset` builds them once). */
export function createEventCollection(ctx: RecordContext): GeneratedCollection {
  const { seed, taxpayers } = ctx;
  const ts = (i: number): number => ctx.eventTime(KIND.event, 0, i);
  const id = (i: number): string => newId(ts(i), createRng(hash32(seed, KIND.event, i, 1)));
  return {
    count: Math.max(0, Math.floor(ctx.sizes.events)),
    context: '/contexts/Event',
    id,
    timestamp: ts,
    item: (i) => buildEvent(ctx, i % taxpayers.length, createRng(hash32(seed, KIND.event, i, 2)), id(i), ts(i)),
    make: (newIdValue, tsMs, serial) =>
      buildEvent(ctx, serial % taxpayers.length, createRng(hash32(seed, KIND.inserted, 0, serial, 7)), newIdValue, tsMs),
    // The service's filters of events: `taxpayer.id` by the nested taxpayer, `resource` by the changed resource's IRI.
    filters: ['type', 'taxpayer.id', 'source', 'resource'],
    dateFilters: ['createdAt'],
    orderFields: ['createdAt'],
  };
}

/** The events of taxpayer `t`: every `T`-th of {@link createEventCollection} (taxpayers take turns). */
export function createTaxpayerEventCollection(ctx: RecordContext, t: number): GeneratedCollection {
  const all = createEventCollection(ctx);
  const turns = Math.max(1, ctx.taxpayers.length);
  const at = (j: number): number => t + j * turns;
  return {
    ...all,
    count: all.count > t ? Math.ceil((all.count - t) / turns) : 0,
    id: (j) => all.id(at(j)),
    timestamp: (j) => all.timestamp(at(j)),
    item: (j) => all.item(at(j)),
    make: (newIdValue, tsMs, serial) => buildEvent(ctx, t, createRng(hash32(ctx.seed, KIND.inserted, t + 1, serial, 7)), newIdValue, tsMs),
  };
}
