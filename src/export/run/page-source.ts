/**
 * The page source of an export, a service handed to the run beside its plan
 * (export/run/plan.ts `ExportServices.openPages`): the pagination of pagination/ chosen and
 * set up from `plan.pages`, so the run only pulls pages and never hands its plan to pagination/.
 */
import type { Client } from '../../http/client.js';
import { paginate, type PageStep } from '../../pagination/paginate.js';
import { fetchOffsetPages } from '../../pagination/offset.js';
import { prefetch } from '../../pagination/prefetch.js';
import { remaining, type Tally } from './page-loop.js';
import type { PagesPlan } from './plan.js';

/**
 * The pages from `start`: numbered pages in parallel in offset mode with concurrency, none
 * requested past the page that completes `--max-items`; else the
 * `next` links, in cursor mode with the next page fetched while this one is written
 * (pagination/prefetch.ts), unless `--max-items` is reached with this page.
 * @param tally the loop's totals, read when a page arrives to decide on the prefetch
 */
export function pageSteps(plan: PagesPlan, client: Client, start: URL, tally: Readonly<Pick<Tally, 'items'>>): AsyncGenerator<PageStep, void, void> {
  const { baseUrl, headers } = plan;
  if (plan.mode === 'offset' && plan.concurrency > 1) {
    // `--max-items`: no page past the one that completes it is requested ahead.
    const left = remaining(plan, tally);
    const maxItems = left === Infinity ? {} : { maxItems: left };
    return fetchOffsetPages({ client, baseUrl, start, concurrency: plan.concurrency, headers, ...maxItems });
  }
  if (plan.mode === 'offset') return paginate({ client, baseUrl, start, headers });
  // Cursor mode: the first empty page is the end (API Platform 4.3.5+ links every cursor page on).
  return prefetch(
    (signal) => paginate({ client, baseUrl, start, headers, signal, emptyPageEnds: true }),
    (step) => step.next !== undefined && remaining(plan, tally) > step.page.members.length,
  );
}
