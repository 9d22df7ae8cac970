/** The rate-limit headers of an export's last page, kept for `ratelimit --cached`. */
import type { Context } from '../../context.js';
import { openLastSeenCache } from '../../config/settings.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import type { ExportPlan } from '../../export/run/plan.js';
import type { PageStep } from '../../pagination/paginate.js';

export interface LastSeen {
  readonly onPageFetched: (page: PageStep) => void;
  /** Never rejects. */
  save(): Promise<void>;
}

export function lastSeenOf(plan: ExportPlan, ctx: Context): LastSeen {
  // Only the headers: holding the page would keep its items alive.
  let last: RateLimitSnapshot | undefined;
  return {
    onPageFetched: (page) => {
      if (page.rateLimit) last = page.rateLimit;
    },
    save: async () => {
      if (last) (await openLastSeenCache(ctx)).record(plan.http.baseUrl.origin, plan.endpoint.key, last);
    },
  };
}
