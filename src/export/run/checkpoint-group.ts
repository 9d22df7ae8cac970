/**
 * Durability in groups (docs/files.md, "Files, checkpoints and `--resume`"): a file export flushes its
 * sidecar and saves its checkpoint once per group of pages, not per page. A group ends when
 * {@link GROUP_BYTES} were written or {@link GROUP_MS} passed since the last commit, and always
 * before a rate-limit wait, on SIGINT / SIGTERM, on a failure and at the end. A commit hands the
 * mark of the last page written to the destination (`Destination.pageWritten`), which flushes what
 * was written before it saves the checkpoint, so a checkpoint never counts a byte that is not on
 * disk; a kill loses at most the pages of one group, which `--resume` fetches again.
 */
import { UsageError } from '../../errors.js';
import type { Clock } from '../../time/clock.js';
import type { Destination, PageMark } from '../files/destination.js';

/** Bytes written (before compression) after which a group is committed: 8 MiB. */
export const GROUP_BYTES = 8 * 1024 * 1024;

/** Time after the last commit (by the context's monotonic clock) after which a group is committed, ms. */
export const GROUP_MS = 1000;

/** The environment variable that sets the time of a group, ms (docs/files.md, "Files, checkpoints and `--resume`"). */
const GROUP_MS_VARIABLE = 'COLLECTIONS_CHECKPOINT_MS';

/**
 * The time of a group from the environment: `COLLECTIONS_CHECKPOINT_MS`, whole ms from 0 (a
 * checkpoint after every page) to 3,600,000; unset or empty: {@link GROUP_MS}.
 * @throws {UsageError} (exit 2) for any other value, naming the variable
 */
export function parseGroupMs(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[GROUP_MS_VARIABLE];
  if (text === undefined || text === '') return GROUP_MS;
  const ms = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(ms <= 3_600_000)) throw new UsageError(`${GROUP_MS_VARIABLE} must be a whole number of milliseconds from 0 to 3600000`);
  return ms;
}

/** Options of {@link createCheckpointGroups}. */
export interface CheckpointGroupOptions {
  /** Where commits go (`pageWritten`). */
  out: Pick<Destination, 'pageWritten'>;
  /** The context's clock; its `monotonic()` times the groups. */
  clock: Pick<Clock, 'monotonic'>;
  /** Bytes per group (default {@link GROUP_BYTES}). */
  groupBytes?: number;
  /** Ms per group (default {@link GROUP_MS}). */
  groupMs?: number;
}

/**
 * The commits of one export's page loop, from {@link createCheckpointGroups}. The loop calls
 * `beginPage()` before it writes a page and `pageWritten()` after; between them (while a page is
 * being written) a requested commit is deferred to the end of the page, so a commit never falls in
 * the middle of a page's bytes.
 */
export interface CheckpointGroups {
  /**
   * A page is about to be written: waits for a commit started while the loop waited for the page.
   * @throws {OutputError} (exit 7) that commit's failure
   */
  beginPage(): Promise<void>;
  /**
   * A page was written (`bytes` of text, before compression): remembers its mark, and commits when
   * the group is full, its time is up, or a commit was requested meanwhile.
   * @throws {OutputError} (exit 7) a failed commit
   */
  pageWritten(mark: PageMark, bytes: number): Promise<void>;
  /**
   * Asks for a commit (a rate-limit wait is about to be slept): at once when the loop is between
   * pages, and at the end of the next page written (the one being written, or one written during
   * the wait), so the checkpoint stays current while the client sleeps. Never throws; a failure surfaces on the next
   * `beginPage()`, `pageWritten()` or `flush()`.
   */
  request(): void;
  /**
   * Commits the last page written, if not yet committed (a signal, a failure, the end); not while a
   * page is half written (after a failed write), since what reached the destination then goes
   * beyond that page. @throws {OutputError} (exit 7) a failed commit
   */
  flush(): Promise<void>;
  /** Commits made so far (tests and the bench). */
  readonly commits: number;
}

/**
 * Creates the commit grouping of one export. A commit passes the pending mark to `out.pageWritten`
 * and clears it; commits run one at a time, in order.
 */
export function createCheckpointGroups(options: CheckpointGroupOptions): CheckpointGroups {
  const { out, clock } = options;
  const groupBytes = options.groupBytes ?? GROUP_BYTES;
  const groupMs = options.groupMs ?? GROUP_MS;
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
      if (requested || bytes >= groupBytes || clock.monotonic() - since >= groupMs) await commit();
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
