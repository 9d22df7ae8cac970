/** The pages of an export: where they come from, how they are written, when their checkpoints are committed. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CollectionsError, HttpError, UsageError, hint, option } from '../../errors.js';
import { defined } from '../../json/object.js';
import type { Client, RateLimitSnapshot } from '../../http/client.js';
import { serverModePages, type ModeChange } from '../../pagination/modes.js';
import type { PageStep } from '../../pagination/paginate.js';
import type { Formatter } from '../../output/formatter.js';
import type { Progress } from '../../io/events.js';
import type { Clock } from '../../time/clock.js';
import type { Interrupt } from './interrupt.js';
import type { Destination, PageMark } from '../files/destination.js';
import type { ManifestRecorder } from '../manifest/manifest.js';
import type { PageSourceHooks, PagesPlan } from './plan.js';

/** The running totals of one export, including what was written before a resume. */
export interface Tally {
  items: number;
  pages: number;
  totalItems: number | undefined;
  /** Formatter text not written yet (`begin()`'s, written with the first page). */
  pending: string;
  wrotePage: boolean;
  rateLimit: RateLimitSnapshot | undefined;
}

/** Items still to write under `--max-items` (Infinity without it). */
export function remaining(plan: Pick<PagesPlan, 'maxItems'>, tally: Readonly<Pick<Tally, 'items'>>): number {
  return plan.maxItems === undefined ? Infinity : plan.maxItems - tally.items;
}

const DROP_PAGE = hint`drop ${option('page')}: without it the export starts at the API's first page and follows its cursor links, as ${option('cursor', true)} does`;

function noteOf(change: ModeChange): string {
  if (change.refusal) {
    const said = change.refusal.details.serverMessage;
    return `the API pages this endpoint by cursor only (HTTP 400${said ? `: ${said}` : ''}); continuing in cursor mode`;
  }
  return change.used === 'cursor'
    ? 'the API answered with cursor pages (links with a cursor, no page numbers); continuing in cursor mode'
    : 'the API answered --cursor with offset pages (it ignores X-Pagination-Style); continuing in offset mode';
}

/** The error that stops an export pinned to one mode (by `--page`, or by a checkpoint when `resumed`) before anything is written. */
function pinnedError(plan: PagesPlan, change: ModeChange, resumed: boolean): CollectionsError {
  if (resumed) {
    return new UsageError(`the API now pages this endpoint by ${change.used}, but the checkpoint continues an export paged by ${change.asked}`, {
      code: 'E_CHECKPOINT',
      hint: hint`run with ${option('restart', true)} instead of ${option('resume', true)} to start afresh`,
    });
  }
  if (change.refusal) return new HttpError(change.refusal.details, { hint: DROP_PAGE, cause: change.refusal });
  return new CollectionsError(
    `the API answered --page ${plan.firstPage} with cursor pages: it pages this endpoint by cursor only`,
    'E_API_REJECTED',
    { hint: DROP_PAGE },
  );
}

/**
 * Pages from `start` in the API's mode (docs/choices.md, "Cursor-only endpoints and honest mode"), noted once;
 * pinned ones (`--page`, a checkpoint's) stop: exit 2. Offset pages go in parallel, none past `--max-items`.
 */
export function pageSteps(plan: PagesPlan, client: Client, start: URL, hooks: PageSourceHooks): AsyncGenerator<PageStep, void, void> {
  const { resumedMode } = hooks;
  const mode = resumedMode ?? plan.mode;
  return serverModePages({
    client,
    baseUrl: plan.baseUrl,
    start,
    mode,
    headers: { offset: plan.headers, cursor: plan.cursorHeaders },
    concurrency: mode === 'offset' ? plan.concurrency : 1,
    wanted: () => remaining(plan, hooks.tally),
    onChange: (change) => {
      if (resumedMode !== undefined || plan.firstPage !== undefined) throw pinnedError(plan, change, resumedMode !== undefined);
      hooks.onMode({ mode: change.used, asked: change.asked, message: noteOf(change) });
    },
  });
}

/** Bytes written (before compression) after which a group is committed: 8 MiB. */
export const GROUP_BYTES = 8 * 1024 * 1024;

/** ms, by the context's monotonic clock. */
export const GROUP_MS = 1000;

const GROUP_MS_VARIABLE = 'COLLECTIONS_CHECKPOINT_MS';

/** `COLLECTIONS_CHECKPOINT_MS`: whole ms from 0 (every page) to 3,600,000. @throws {UsageError} (exit 2) for any other value */
export function parseGroupMs(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[GROUP_MS_VARIABLE];
  if (text === undefined || text === '') return GROUP_MS;
  const ms = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(ms <= 3_600_000)) throw new UsageError(`${GROUP_MS_VARIABLE} must be a whole number of milliseconds from 0 to 3600000`);
  return ms;
}

export interface CheckpointGroupOptions {
  out: Pick<Destination, 'pageWritten'>;
  clock: Pick<Clock, 'monotonic'>;
  /** ms */
  groupMs: number;
}

/** The loop calls `beginPage()` and `pageWritten()` around each page: a commit requested in between waits for the page's end. */
export interface CheckpointGroups {
  /** Waits for a commit started while the loop waited for the page. @throws {OutputError} (exit 7) that commit's failure */
  beginPage(): Promise<void>;
  /** Commits when the group is full (`bytes` before compression), its time is up, or a commit was requested. @throws {OutputError} (exit 7) */
  pageWritten(mark: PageMark, bytes: number): Promise<void>;
  /** Before a rate-limit wait: a commit now, or at the page's end. Never throws; a failure surfaces on the next call. */
  request(): void;
  /** Not while a page is half written (after a failed write): what reached the destination goes beyond it. @throws {OutputError} (exit 7) */
  flush(): Promise<void>;
  readonly commits: number;
}

/**
 * Checkpoint groups (docs/files.md, "Files, checkpoints and `--resume`") end at {@link GROUP_BYTES}, {@link GROUP_MS},
 * a rate-limit wait, signal, failure or the end; a kill loses one at most.
 */
export function createCheckpointGroups(options: CheckpointGroupOptions): CheckpointGroups {
  const { out, clock, groupMs } = options;
  let pending: PageMark | undefined;
  let bytes = 0;
  let since = clock.monotonic();
  let writing = false;
  let requested = false;
  let commits = 0;
  let running: Promise<void> = Promise.resolve();
  const commit = (): Promise<void> => {
    const mark = pending;
    requested = false;
    if (mark === undefined) return running;
    pending = undefined;
    bytes = 0;
    since = clock.monotonic();
    commits += 1;
    running = running.then(() => out.pageWritten(mark));
    return running;
  };
  return {
    get commits() {
      return commits;
    },
    async beginPage() {
      writing = true;
      await running;
    },
    async pageWritten(mark, written) {
      writing = false;
      pending = mark;
      bytes += written;
      if (requested || bytes >= GROUP_BYTES || clock.monotonic() - since >= groupMs) await commit();
    },
    request() {
      if (!writing) {
        // Marked as handled here; the loop awaits `running` again before its next page.
        commit().catch(() => undefined);
      }
      // The page being written (or a prefetched one written during the wait) commits too.
      requested = true;
    },
    flush: () => (writing ? running : commit()),
  };
}

export interface Loop {
  plan: PagesPlan;
  onPageFetched: ((page: PageStep) => void) | undefined;
  formatter: Formatter;
  out: Destination;
  progress: Progress;
  interrupt: Interrupt;
  tally: Tally;
  manifest: ManifestRecorder | undefined;
  groups: CheckpointGroups;
}

function withPending(pending: string, output: string | Buffer): string | Buffer {
  if (pending === '') return output;
  return typeof output === 'string' ? pending + output : Buffer.concat([Buffer.from(pending, 'utf8'), output]);
}

/** Items deleted while paging: the API announced more (`hydra:totalItems`) than came. Not an error. */
function noteShortfall(plan: PagesPlan, items: number, total: number | undefined, progress: Progress): void {
  if (plan.mode !== 'cursor' || total === undefined || items >= total) return;
  progress.note(`collections: the API announced ${total} items (hydra:totalItems) but the collection ended after ${items}`);
}

/** Formats and writes one page; returns whether it is the last one to write. */
async function writePage(step: PageStep, loop: Loop): Promise<boolean> {
  const { plan, formatter, out, progress, tally, groups } = loop;
  loop.onPageFetched?.(step);
  if (step.rateLimit) tally.rateLimit = step.rateLimit;
  const left = remaining(plan, tally);
  const last = step.page.members.length >= left || step.next === undefined;
  const members = step.page.members.take(left);
  if (step.page.totalItems !== undefined) tally.totalItems = step.page.totalItems;
  if (step.next === undefined && members.length === step.page.members.length)
    noteShortfall(plan, tally.items + members.length, tally.totalItems, progress);
  await groups.beginPage();
  const text = withPending(tally.pending, formatter.page(members));
  tally.pending = '';
  if (text.length > 0) await out.write(text);
  tally.wrotePage = true;
  tally.items += members.length;
  tally.pages += 1;
  progress.onPage(tally.items, tally.pages, tally.totalItems, step.rateLimit);
  const next = last || step.next === undefined ? null : step.next.href;
  const { pages, items, totalItems } = tally;
  const mode = step.mode ?? plan.mode;
  const mark = { next, pages, items, totalItems, mode, ...defined({ requestId: step.requestId }), formatterState: () => formatter.state() };
  loop.manifest?.onPage({ ...mark, date: step.date });
  await groups.pageWritten(mark, text.length);
  return last;
}

/**
 * Writes pages until the last, `--max-items` or a signal; commits the last group, quietly on an error.
 * @throws what pages, formatter or destination throw; a signal's abort as `InterruptedError`
 */
export async function writePages(steps: AsyncGenerator<PageStep, void, void>, loop: Loop): Promise<void> {
  try {
    for await (const step of steps) {
      // One turn first: undici sends on a reused connection a turn after the request is made, so the pages ahead leave before this one is written.
      await nextTurn();
      if ((await writePage(step, loop)) || loop.interrupt.stopped !== undefined) break;
    }
  } catch (err) {
    await loop.groups.flush().catch(() => undefined);
    throw loop.interrupt.explain(err);
  }
  await loop.groups.flush();
}
