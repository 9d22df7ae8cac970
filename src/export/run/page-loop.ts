/**
 * The page loop of an export (export/run/run.ts): pages → formatter → destination, with the
 * checkpoints committed per group of pages (export/run/checkpoint-group.ts).
 */
import type { RateLimitSnapshot } from '../../http/client.js';
import type { PageStep } from '../../pagination/paginate.js';
import type { Formatter } from '../../output/formatter.js';
import type { Progress } from '../../io/events.js';
import type { Interrupt } from './interrupt.js';
import type { Destination } from '../files/destination.js';
import type { ManifestRecorder } from '../manifest/manifest.js';
import type { CheckpointGroups } from './checkpoint-group.js';
import type { PagesPlan } from './plan.js';

/** The running totals of one export, including what was written before a resume. */
export interface Tally {
  items: number;
  pages: number;
  totalItems: number | undefined;
  /** Formatter text not written yet (`begin()`'s, written with the first page). */
  pending: string;
  /** Whether this run wrote a page. */
  wrotePage: boolean;
  rateLimit: RateLimitSnapshot | undefined;
}

/** What the page loop works with. */
export interface Loop {
  plan: PagesPlan;
  /** Observer of every page fetched (export/run/plan.ts `ExportHooks`). */
  onPageFetched: ((page: PageStep) => void) | undefined;
  formatter: Formatter;
  out: Destination;
  progress: Progress;
  interrupt: Interrupt;
  tally: Tally;
  manifest: ManifestRecorder | undefined;
  /** The commits of the checkpoints, per group of pages. */
  groups: CheckpointGroups;
}

/** Items still to write under `--max-items` (Infinity without it). */
export function remaining(plan: Pick<PagesPlan, 'maxItems'>, tally: Readonly<Pick<Tally, 'items'>>): number {
  return plan.maxItems === undefined ? Infinity : plan.maxItems - tally.items;
}

/** A page's output (text, or the bytes JSON and NDJSON copy the items' texts into) after the formatter's text not written yet. */
function withPending(pending: string, output: string | Buffer): string | Buffer {
  if (pending === '') return output;
  return typeof output === 'string' ? pending + output : Buffer.concat([Buffer.from(pending, 'utf8'), output]);
}

/**
 * At the natural end of a cursor export, says on stderr when the API had announced more items
 * (`hydra:totalItems`, with `--total`) than came: items deleted while paging, or a collection that
 * ended early. Not an error: the export is what the API served.
 */
function noteShortfall(plan: PagesPlan, items: number, total: number | undefined, progress: Progress): void {
  if (plan.mode !== 'cursor' || total === undefined || items >= total) return;
  progress.note(`collections: the API announced ${total} items (hydra:totalItems) but the collection ended after ${items}`);
}

/** Formats and writes one page; returns whether it is the last one to write. */
async function writePage(step: PageStep, loop: Loop): Promise<boolean> {
  const { plan, formatter, out, progress, tally, groups } = loop;
  loop.onPageFetched?.(step);
  // Only the request id and `Date`: the manifest keeps the first and last page's, never their items.
  loop.manifest?.onPage({
    ...(step.requestId !== undefined ? { requestId: step.requestId } : {}),
    ...(step.date !== undefined ? { date: step.date } : {}),
  });
  if (step.rateLimit) tally.rateLimit = step.rateLimit;
  const left = remaining(plan, tally);
  const last = step.page.members.length >= left || step.next === undefined;
  const members = step.page.members.take(left);
  if (step.page.totalItems !== undefined) tally.totalItems = step.page.totalItems;
  if (step.next === undefined && members.length === step.page.members.length)
    noteShortfall(plan, tally.items + members.length, tally.totalItems, progress);
  await groups.beginPage();
  // The formatter asks the items for what it needs: their texts (JSON, NDJSON) or their values.
  const output = formatter.page(members);
  const text = withPending(tally.pending, output);
  tally.pending = '';
  if (text.length > 0) await out.write(text);
  tally.wrotePage = true;
  tally.items += members.length;
  tally.pages += 1;
  progress.onPage(tally.items, tally.pages, tally.totalItems, step.rateLimit);
  const next = last || step.next === undefined ? null : step.next.href;
  const mode = step.mode ?? plan.mode;
  const mark = {
    next,
    pages: tally.pages,
    items: tally.items,
    totalItems: tally.totalItems,
    mode,
    ...(step.requestId !== undefined ? { requestId: step.requestId } : {}),
    formatterState: () => formatter.state(),
  };
  await groups.pageWritten(mark, text.length);
  return last;
}

/**
 * Writes pages until the last one, `--max-items`, or a signal (checked after each write). Each page
 * is formatted, written and counted; its checkpoint is committed with its group
 * (export/run/checkpoint-group.ts), and the last group is committed when the loop ends, also on a
 * signal or an error (then quietly: the error thrown is the loop's).
 * @throws what the pages, the formatter or the destination throw; an abort after a signal as
 *   `InterruptedError` (see {@link Interrupt.explain}). The destination's durability chain may
 *   still be running: `Destination.abort` waits for it.
 */
export async function writePages(steps: AsyncGenerator<PageStep, void, void>, loop: Loop): Promise<void> {
  try {
    for await (const step of steps) {
      if ((await writePage(step, loop)) || loop.interrupt.stopped !== undefined) break;
    }
  } catch (err) {
    await loop.groups.flush().catch(() => undefined);
    throw loop.interrupt.explain(err);
  }
  await loop.groups.flush();
}
