/**
 * The page source of an export, a service handed to the run beside its plan
 * (export/run/plan.ts `ExportServices.openPages`): the pagination of pagination/ chosen and
 * set up from `plan.pages`, so the run only pulls pages and never hands its plan to pagination/.
 * It decides what happens when the API pages in another mode than the one asked for (docs/choices.md,
 * "Cursor-only endpoints and honest mode"): a fresh export goes on in the API's mode with one note;
 * one pinned to offset pages (`--page`, or a checkpoint's recorded mode) stops with exit 2.
 */
import { CollectionsError, HttpError, UsageError } from '../../errors.js';
import type { Client } from '../../http/client.js';
import { serverModePages, type ModeChange } from '../../pagination/modes.js';
import type { PageStep } from '../../pagination/paginate.js';
import { remaining } from './page-loop.js';
import type { PageSourceHooks, PagesPlan } from './plan.js';

/** The hint of an export whose `--page` the API cannot honour. */
const DROP_PAGE = "drop --page: without it the export starts at the API's first page and follows its cursor links, as --cursor does";

/** The note of a change the export goes on with, without the `collections: ` prefix. */
function noteOf(change: ModeChange): string {
  if (change.refusal) {
    const said = change.refusal.details.serverMessage;
    return `the API pages this endpoint by cursor only (HTTP 400${said ? `: ${said}` : ''}); continuing in cursor mode`;
  }
  return change.used === 'cursor'
    ? 'the API answered with cursor pages (links with a cursor, no page numbers); continuing in cursor mode'
    : 'the API answered --cursor with offset pages (it ignores X-Pagination-Style); continuing in offset mode';
}

/**
 * The error that stops an export pinned to one mode when the API pages in the other, before
 * anything is written: the 400 with a hint to drop `--page`, or what the first page showed.
 * @param resumed whether a checkpoint pinned the mode (else `--page` did)
 */
function pinnedError(plan: PagesPlan, change: ModeChange, resumed: boolean): CollectionsError {
  if (resumed) {
    return new UsageError(`the API now pages this endpoint by ${change.used}, but the checkpoint continues an export paged by ${change.asked}`, {
      code: 'E_CHECKPOINT',
      hint: 'run with --restart instead of --resume to start afresh',
    });
  }
  if (change.refusal) return new HttpError(change.refusal.details, { hint: DROP_PAGE, cause: change.refusal });
  return new CollectionsError(
    `the API answered --page ${plan.firstPage} with cursor pages: it pages this endpoint by cursor only`,
    'E_API_REJECTED',
    {
      hint: DROP_PAGE,
    },
  );
}

/**
 * The pages from `start` in the mode the API pages in (pagination/modes.ts): numbered offset pages
 * in parallel with `--concurrency`, none requested past the page that completes `--max-items`;
 * else the `next` links, in cursor mode with the next page fetched while this one is written.
 * @param hooks the run's totals (read as pages arrive), the mode a resumed checkpoint recorded, and
 *   where a change of mode is noted
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
