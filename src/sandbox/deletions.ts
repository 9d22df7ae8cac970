/**
 * Deletions of the sandbox's churn (`SandboxOptions.deletions`, `collections sandbox --deletions`):
 * a record the churn deletes leaves a `*.deleted` event, as the service records one when a
 * resource is deleted or no longer available (`invoice.deleted` for an invoice, `link.deleted` for
 * an entity), with `resource` (the deleted resource's IRI) and `data.object` (its last state); and
 * events older than the retention disappear, as the service guarantees them for 7 days only.
 */
import type { Clock } from '../time/clock.js';
import type { CollectionState } from './collection.js';
import type { Dataset, JsonObject } from './data.js';
import { createRng, hash32, uuidV4, uuidV7 } from './random.js';
import { taxpayerRef } from './records/parties.js';
import { isoDate } from './records/values.js';

/** The retention of events by default, days: the service's guarantee. */
const DEFAULT_EVENT_RETENTION_DAYS = 7;

const DAY_MS = 86_400_000;

/** What the churn asks of the deletions (sandbox/churn.ts). */
export interface DeletionRecorder {
  /** Whether the churn may delete item `id` of `state` (a taxpayer's own entity stays: its `/entities/{id}/…` paths name it). */
  canDelete(state: CollectionState, id: string): boolean;
  /** Records the `*.deleted` event of `obj`, deleted from `state` at `at` (epoch ms). */
  deleted(state: CollectionState, obj: JsonObject, at: number): void;
  /**
   * Before an event collection is read: the other collections' deletions due by now are made (so
   * their events are there), and the events older than the retention go.
   */
  beforeRead(state: CollectionState): void;
}

/** How the recorder reaches the collections (the registry, made after it). */
export interface DeletionWiring {
  /** The state of a collection path, its churn brought up to date. */
  resolvePath(path: string): CollectionState;
  /** The invoices of taxpayer `t`, their churn brought up to date. */
  invoicesOf(t: number): CollectionState;
}

/** Whether a collection key is an event collection (`events`, `entity-events:<t>`). */
function isEventLog(key: string): boolean {
  return key === 'events' || key.startsWith('entity-events:');
}

/**
 * Creates the recorder. `wire` is called once the registry exists.
 * @param retentionDays events older than this many days of `clock` disappear
 */
export function createDeletionRecorder(
  dataset: Dataset,
  clock: Clock,
  seed: number,
  retentionDays = DEFAULT_EVENT_RETENTION_DAYS,
): DeletionRecorder & { wire(wiring: DeletionWiring): void } {
  let wiring: DeletionWiring | undefined;
  let serial = 0;
  let syncing = false;
  const entities = (): readonly string[] => {
    const all = dataset.entities();
    return Array.from({ length: Math.min(all.count, dataset.taxpayers.length) }, (_, i) => all.id(i));
  };
  /** The taxpayer index of a deleted item: from its invoice collection's key, else its own `taxpayer.id`. */
  const taxpayerOf = (state: CollectionState, obj: JsonObject): number => {
    const m = /^invoices:(\d+)$/.exec(state.key);
    if (m) return Number(m[1]);
    const ref = obj.taxpayer as { id?: unknown } | undefined;
    return typeof ref?.id === 'string' ? dataset.taxpayerIndex(ref.id) : -1;
  };
  return {
    wire(w) {
      wiring = w;
    },
    canDelete: (state, id) => !(state.key === 'entities' && entities().includes(id)),
    deleted(state, obj, at) {
      if (wiring === undefined) return;
      const t = taxpayerOf(state, obj);
      const rng = createRng(hash32(seed, serial++, 0, 0, 8181));
      const id = uuidV7(at, rng.u32(), rng.u32(), rng.u32());
      const invoice = state.key.startsWith('invoices:');
      const objectId = typeof obj.id === 'string' ? obj.id : '';
      const event: JsonObject = {
        '@id': `/events/${id}`,
        '@type': 'Event',
        id,
        taxpayer: t >= 0 ? taxpayerRef(dataset.taxpayers[t]!) : ((obj.taxpayer as JsonObject | undefined) ?? null),
        type: invoice ? 'invoice.deleted' : 'link.deleted',
        source: `/extractions/${uuidV4(rng)}`,
        resource: typeof obj['@id'] === 'string' ? obj['@id'] : `/${invoice ? 'invoices' : 'entities'}/${objectId}`,
        data: { object: obj },
        createdAt: isoDate(at),
        updatedAt: isoDate(at),
      };
      wiring.resolvePath('/events').insertObject(id, at, event);
      const entity = t >= 0 ? entities()[t] : undefined;
      if (entity !== undefined) wiring.resolvePath(`/entities/${entity}/events`).insertObject(id, at, event);
    },
    beforeRead(state) {
      if (!isEventLog(state.key)) return;
      state.expire(clock.now() - retentionDays * DAY_MS);
      if (syncing || wiring === undefined) return;
      syncing = true;
      try {
        for (let t = 0; t < dataset.taxpayers.length; t++) wiring.invoicesOf(t);
        wiring.resolvePath('/entities');
      } finally {
        syncing = false;
      }
    },
  };
}
