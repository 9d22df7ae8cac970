/**
 * Deletions an incremental export follows (docs/databases.md, "Deletions"): the service records a
 * `*.deleted` event when a resource is deleted or no longer available, with `resource` (its IRI)
 * and `data.object` (its last state); `/events` filters on `type`, `taxpayer.id`, `createdAt[after]`
 * and `order[createdAt]`, and keeps events for 7 days only. So the deletions since a watermark are
 * one filtered request on a quiet night, never the whole events collection, read after the changed
 * items with the export's own client (its rate budget, retries and request log) and pagination.
 */
import { createHash } from 'node:crypto';
import { endpointUrl, type Endpoint, type Ids } from '../../endpoints.js';
import { HttpError } from '../../errors.js';
import type { Client } from '../../http/client.js';
import { isObject } from '../../json/object.js';
import { nodeFileSystem, replaceFile } from '../../io/files.js';
import type { DeletedRecord, Destination } from '../files/destination.js';
import type { ManifestRecorder } from '../manifest/manifest.js';
import type { Interrupt } from './interrupt.js';
import { pageSteps } from './page-loop.js';
import type { ExportPlan, PagesPlan } from './plan.js';

/** The delete events of a collection: where they are read and which type they have. */
interface DeleteEvents {
  /** The events path, relative to the base URL. */
  readonly path: string;
  readonly type: string;
  /** `taxpayer.id`, where the source has a taxpayer. */
  readonly taxpayer: string | undefined;
}

const DELETE_EVENTS = new Map<string, (path: string, ids: Ids) => DeleteEvents>([
  ['invoices', (_path, ids) => ({ path: '/events', type: 'invoice.deleted', taxpayer: ids.taxpayerId })],
  ['entities', () => ({ path: '/events', type: 'link.deleted', taxpayer: undefined })],
  ['entity-invoices', (path) => ({ path: path.replace(/\/invoices$/, '/events'), type: 'invoice.deleted', taxpayer: undefined })],
]);

/**
 * The delete events of a collection whose records have them (invoices: `invoice.deleted`; entities:
 * `link.deleted`; an entity's invoices in that entity's events); undefined for the others (line
 * items and payments have only `.created` and `.updated`; events are never deleted).
 * @param path the export's path, ids filled in
 */
export function deleteEventsOf(endpoint: Endpoint, path: string, ids: Ids): DeleteEvents | undefined {
  return DELETE_EVENTS.get(endpoint.key)?.(path, ids);
}

/**
 * The first request for the delete events since `since` (the filter value the export sends, e.g.
 * `2024-05-01T05:59:59+00:00`), oldest first so that events created while it pages only add pages at
 * the end. `type`, `taxpayer.id` and `createdAt[after]` are the service's filters.
 */
export function deleteEventsUrl(baseUrl: URL, events: DeleteEvents, since: string, itemsPerPage: number): URL {
  const url = endpointUrl(baseUrl, events.path);
  const query = new URLSearchParams();
  query.set('type', events.type);
  if (events.taxpayer !== undefined) query.set('taxpayer.id', events.taxpayer);
  query.set('createdAt[after]', since);
  query.set('order[createdAt]', 'asc');
  query.set('itemsPerPage', String(itemsPerPage));
  url.search = query.toString();
  return url;
}

/** The last path segment of an IRI, percent-decoded (as typed when it does not decode). */
function lastSegment(iri: string): string {
  const segment = iri.split(/[?#]/)[0]!.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The value at a dot path of an object, as text when it is a string or a number. */
function textAt(value: unknown, path: readonly string[]): string | undefined {
  let v = value;
  for (const step of path) v = isObject(v) ? v[step] : undefined;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined;
}

/**
 * The deletion an event records: the key of `data.object` (`key`'s path, else its `id`, else its
 * `@id`), else, without `--key`, the last segment of `resource`; undefined for another type or an
 * event without a key (nothing can be deleted by it).
 */
function deletionOf(event: unknown, type: string, key: readonly string[] | undefined): DeletedRecord | undefined {
  if (!isObject(event) || event.type !== type) return undefined;
  const object = isObject(event.data) ? event.data.object : undefined;
  const resource = typeof event.resource === 'string' ? event.resource : undefined;
  const fromObject = key === undefined ? (textAt(object, ['id']) ?? textAt(object, ['@id'])) : textAt(object, key);
  const fromIri = key === undefined && resource !== undefined ? lastSegment(resource) : undefined;
  const id = fromObject ?? (fromIri === '' ? undefined : fromIri);
  const deletedAt = typeof event.createdAt === 'string' ? event.createdAt : undefined;
  if (id === undefined || deletedAt === undefined) return undefined;
  const iri = typeof event['@id'] === 'string' ? event['@id'] : typeof event.id === 'string' ? `/events/${event.id}` : '';
  return { id, deletedAt, event: iri };
}

export function daysMs(days: number): number {
  return days * 86_400_000;
}

/**
 * A file export that follows deletions writes the records deleted since the watermark to `F.deleted.ndjson`
 * (the manifest's `deleted`), replaced atomically before `F` is published, so a file-based pipeline
 * applies them with the items.
 */
async function writeDeletedFile(
  target: string,
  deleted: readonly DeletedRecord[],
  manifest: Pick<ManifestRecorder, 'setDeleted'> | undefined,
): Promise<void> {
  const path = `${target}.deleted.ndjson`;
  const body = deleted.map((d) => `${JSON.stringify({ id: d.id, deletedAt: d.deletedAt, event: d.event })}\n`).join('');
  await replaceFile(nodeFileSystem, path, body, { mode: 0o644, action: 'write the deleted records', syncFolder: true });
  const bytes = Buffer.byteLength(body);
  manifest?.setDeleted({ file: path, bytes, sha256: createHash('sha256').update(body).digest('hex'), records: deleted.length });
}

/** Statuses of a key without access to the events: the run goes on without following deletions. */
const NO_ACCESS = [403, 404];

/** What {@link followDeletions} reads with and tells. */
export interface DeletionsWiring {
  readonly client: Client;
  readonly interrupt: Interrupt;
  readonly out: Pick<Destination, 'keepDeletions'>;
  readonly manifest: Pick<ManifestRecorder, 'setDeleted'> | undefined;
  readonly note: (line: string) => void;
}

/**
 * After the changed items (so a record deleted, then re-created and re-extracted, is among them) and
 * before the output is finished: tells the destination the deletions since the watermark (a file
 * export writes them beside it), the latest event of each key; nothing when the plan follows none,
 * or when the API refuses the events (403, 404), after a note.
 * @throws what the pages throw otherwise (exit 6 after retries, 3, 5…); after a signal an `InterruptedError`;
 *   `OutputError` (exit 7) when the file of deleted records cannot be written
 */
export async function followDeletions(exportPlan: Pick<ExportPlan, 'deletions' | 'pages' | 'output'>, wiring: DeletionsWiring): Promise<void> {
  const { deletions: plan, pages, output } = exportPlan;
  if (plan === undefined) return;
  const { client, interrupt, note } = wiring;
  const offset: PagesPlan = {
    baseUrl: pages.baseUrl,
    start: plan.start,
    headers: {},
    cursorHeaders: pages.cursorHeaders,
    mode: 'offset',
    firstPage: undefined,
    concurrency: 1,
    maxItems: undefined,
  };
  const steps = pageSteps(offset, client, plan.start, { tally: { items: 0 }, resumedMode: undefined, onMode: () => undefined });
  const byKey = new Map<string, DeletedRecord>();
  try {
    for await (const step of steps) {
      const { members } = step.page;
      for (let i = 0; i < members.length; i++) {
        const found = deletionOf(members.value(i), plan.type, plan.key);
        // Oldest first: a later event of the same key replaces an earlier one.
        if (found !== undefined) byKey.set(found.id, found);
      }
      interrupt.throwIfStopped();
    }
  } catch (err) {
    if (err instanceof HttpError && NO_ACCESS.includes(err.details.status)) {
      note(
        `collections: the API refused the events (${plan.start.pathname}: HTTP ${err.details.status}); this run does not follow deletions (a full run with --prune does)`,
      );
      return;
    }
    throw interrupt.explain(err);
  }
  const deleted = [...byKey.values()];
  if (output.files === undefined || output.parquet) wiring.out.keepDeletions?.(deleted);
  else await writeDeletedFile(output.files.target, deleted, wiring.manifest);
}
