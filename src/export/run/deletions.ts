/**
 * Reads the records deleted at the service since an incremental export's watermark: the delete
 * events of its collection, by the API's filters (export/state/deletions.ts), with the export's own
 * client (its rate budget, retries and request log) and pagination, after the changed items.
 */
import { HttpError } from '../../errors.js';
import type { Client } from '../../http/client.js';
import type { DeletedRecord, Destination } from '../files/destination.js';
import { deletionOf } from '../state/deletions.js';
import type { Interrupt } from './interrupt.js';
import { pageSteps } from './page-loop.js';
import type { DeletionsPlan, PagesPlan } from './plan.js';

/** Statuses of a key without access to the events: the run goes on without following deletions. */
const NO_ACCESS = [403, 404];

/** What {@link followDeletions} reads with and tells. */
export interface DeletionsWiring {
  readonly pages: Pick<PagesPlan, 'baseUrl' | 'cursorHeaders'>;
  readonly client: Client;
  readonly interrupt: Interrupt;
  readonly out: Pick<Destination, 'keepDeletions'>;
  readonly note: (line: string) => void;
}

/**
 * After the changed items (so a record deleted, then re-created and re-extracted, is among them) and
 * before the output is finished: tells the destination the deletions since the watermark, the
 * latest event of each key; nothing when the API refuses the events (403, 404), after a note.
 * @throws what the pages throw otherwise (exit 6 after retries, 3, 5…); after a signal an `InterruptedError`
 */
export async function followDeletions(plan: DeletionsPlan, { pages, client, interrupt, out, note }: DeletionsWiring): Promise<void> {
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
  out.keepDeletions?.([...byKey.values()]);
}
