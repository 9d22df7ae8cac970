/**
 * The fault table: one small rewrite per fault kind, looked up by kind. A rewrite changes the
 * planned answer ({@link ResponseDraft}), or sets its `network` fault, which the transport acts out.
 *
 * Rewrites run in stages (see {@link FAULT_STAGES} and respond.ts): when several faults fire on
 * one request, a stage marked `firstOnly` applies only the first of its kinds that fired, in the
 * order listed (a `redirect` beats a `permanent-429`, which beats a `status`); the other stages
 * apply every kind that fired, in the order listed. A kind uses the first of its rules that fired,
 * except `clock-offset`, whose offsets add up.
 */
import type { FaultKind, FaultRule } from './faults.js';
import type { PageLinks, PagePlan } from './pages.js';
import { HTML_PAGE, HTML_TYPE, httpDate, INVALID_JSON, PROBLEM_TYPE, setMessage, STATUS_TEXT, type ResponseDraft } from './responses.js';

/** What a rewrite knows of the request. */
export interface RewriteContext {
  /** The request's absolute URL (its origin makes absolute links). */
  url: URL;
  /** Path and query as received. */
  pathAndQuery: string;
  /** Server time without clock-offset faults, epoch ms. */
  nowMs: number;
}

/** One entry of {@link FAULT_REWRITES}. */
export interface FaultRewrite {
  /** Rewrites the draft for one fired rule; a network fault replaces the draft's `network`. */
  apply(draft: ResponseDraft, rule: FaultRule, ctx: RewriteContext): void;
  /** Applied once per fired rule of the kind (default: once, for the first). */
  cumulative?: boolean;
}

/** When in the making of an answer a fault applies; respond.ts runs them in this order. */
export type FaultStage = 'connection' | 'clock' | 'answer' | 'links' | 'envelope' | 'body' | 'headers' | 'transport';

/** The kinds of each stage, in precedence order. Every kind is in exactly one stage. */
export const FAULT_STAGES: Readonly<Record<FaultStage, { kinds: readonly FaultKind[]; firstOnly: boolean }>> = {
  /** Before any header: nothing else is sent. */
  connection: { kinds: ['refuse', 'reset-before-headers', 'hang'], firstOnly: true },
  /** The server clock `Date`, `Retry-After` and `X-RateLimit-Reset` are written from. */
  clock: { kinds: ['clock-offset'], firstOnly: false },
  /** An answer instead of the planned one (the page is not rendered). */
  answer: { kinds: ['redirect', 'permanent-429', 'status'], firstOnly: true },
  /** The links of a page, before it is rendered. */
  links: { kinds: ['loop-next', 'foreign-next', 'relative-links', 'absolute-links'], firstOnly: false },
  /** The spelling of a page's envelope. */
  envelope: { kinds: ['unprefixed'], firstOnly: false },
  /** A rendered page's body. */
  body: { kinds: ['html', 'invalid-json', 'truncate'], firstOnly: true },
  /** The final headers (`X-RateLimit-*`, `Retry-After`). */
  headers: { kinds: ['remaining-zero', 'reset-format', 'retry-after'], firstOnly: false },
  /** How the finished answer travels. */
  transport: { kinds: ['reset-mid-body', 'drip'], firstOnly: true },
};

const LINK_NAMES = ['view', 'first', 'last', 'previous', 'next'] as const;

/** Server time with the draft's clock offset, epoch ms. */
function serverNow(draft: ResponseDraft, ctx: RewriteContext): number {
  return ctx.nowMs + draft.offsetMs;
}

/** `target` when it has a path; else `target`'s origin followed by `pathAndQuery`. */
function foreignTarget(target: string, pathAndQuery: string): string {
  const u = new URL(target);
  return u.pathname === '/' && u.search === '' ? `${u.origin}${pathAndQuery}` : target;
}

/** The first page's link of a plan: `page=1` in offset mode, the cursor-less URL in cursor mode. */
function firstLink(plan: PagePlan, url: URL): string {
  if (plan.links.first !== undefined) return plan.links.first;
  const kept = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (k !== 'page' && k !== 'id[lt]' && k !== 'id[gt]') kept.append(k, v);
  if (plan.mode === 'offset') kept.append('page', '1');
  const q = kept.toString();
  return q === '' ? url.pathname : `${url.pathname}?${q}`;
}

/** A rewrite of the page's links (nothing when the draft has no page). */
function linkRewrite(rewrite: (links: PageLinks, rule: FaultRule, ctx: RewriteContext, plan: PagePlan) => void): FaultRewrite {
  return {
    apply(draft, rule, ctx) {
      if (draft.page) rewrite(draft.page.links, rule, ctx, draft.page.plan);
    },
  };
}

/** A connection fault: the transport refuses, resets or hangs before any header. */
function connectionFault(kind: 'refuse' | 'reset-before-headers' | 'hang'): FaultRewrite {
  return {
    apply(draft) {
      draft.network = { kind };
    },
  };
}

/** `X-RateLimit-Reset` values of the `reset-format` fault, from the reset and the server time (epoch ms). */
const RESET_FORMATS = new Map<unknown, (resetMs: number, nowMs: number) => string>([
  ['iso', (resetMs) => new Date(resetMs).toISOString()],
  ['ms', (resetMs) => String(resetMs)],
  ['zero', () => '0'],
  ['past', (_, nowMs) => String(Math.floor(nowMs / 1000) - 3600)],
  ['garbage', () => 'soon'],
  ['far', (_, nowMs) => String(Math.ceil(nowMs / 1000) + 7200)],
]);

/** The rewrite of every fault kind; see the module comment for how they combine. */
export const FAULT_REWRITES: Readonly<Record<FaultKind, FaultRewrite>> = {
  refuse: connectionFault('refuse'),
  'reset-before-headers': connectionFault('reset-before-headers'),
  hang: connectionFault('hang'),
  'clock-offset': {
    cumulative: true,
    apply(draft, rule) {
      draft.offsetMs += rule.offsetMs ?? 300_000;
    },
  },
  redirect: {
    apply(draft, rule, ctx) {
      setMessage(draft, 302, 'Found');
      draft.extra.Location = foreignTarget(rule.url!, ctx.pathAndQuery);
    },
  },
  'permanent-429': {
    apply(draft) {
      setMessage(draft, 429, 'Too Many Requests');
      draft.decision = { ...draft.decision, remaining: 0 };
    },
  },
  status: {
    apply(draft, rule, ctx) {
      const status = rule.status ?? 503;
      const problem = { type: 'about:blank', title: STATUS_TEXT[status] ?? 'Server Error', status, detail: 'Injected fault' };
      draft.status = status;
      draft.contentType = PROBLEM_TYPE;
      draft.body = Buffer.from(JSON.stringify(problem));
      draft.page = undefined;
      // RFC 9110 §10.2.3: Retry-After is a delay in seconds or an HTTP-date.
      if (rule.retryAfter === 'http-date') draft.extra['Retry-After'] = httpDate(Math.ceil(serverNow(draft, ctx) / 1000 + 1) * 1000);
      else if (rule.retryAfter !== undefined) draft.extra['Retry-After'] = String(rule.retryAfter);
    },
  },
  'loop-next': linkRewrite((links, rule, ctx, plan) => {
    links.next = rule.to === 'first' ? firstLink(plan, ctx.url) : links.view;
  }),
  'foreign-next': linkRewrite((links, rule) => {
    links.next = rule.link ?? foreignTarget(rule.url!, links.next ?? links.view);
  }),
  'relative-links': linkRewrite((links, _rule, ctx) => {
    // RFC 3986 §5.2: a reference without a leading slash replaces the last path segment.
    const folder = ctx.url.pathname.slice(0, ctx.url.pathname.lastIndexOf('/') + 1);
    for (const k of LINK_NAMES) {
      const v = links[k];
      if (v !== undefined && v.startsWith(folder) && v.length > folder.length) links[k] = v.slice(folder.length);
    }
  }),
  'absolute-links': linkRewrite((links, _rule, ctx) => {
    for (const k of LINK_NAMES) {
      const v = links[k];
      if (v !== undefined && v.startsWith('/')) links[k] = ctx.url.origin + v;
    }
  }),
  unprefixed: {
    apply(draft) {
      if (draft.page) draft.page.prefixed = false;
    },
  },
  html: {
    apply(draft) {
      draft.contentType = HTML_TYPE;
      draft.body = HTML_PAGE;
    },
  },
  'invalid-json': {
    apply(draft) {
      draft.body = INVALID_JSON;
    },
  },
  truncate: {
    apply(draft, rule) {
      const { body } = draft;
      draft.body = body.subarray(0, Math.min(body.length - 1, rule.afterBytes ?? Math.floor(body.length / 2)));
    },
  },
  'remaining-zero': {
    apply(draft) {
      if (draft.status < 300) draft.headers['X-RateLimit-Remaining'] = '0';
    },
  },
  'reset-format': {
    apply(draft, rule, ctx) {
      const format = RESET_FORMATS.get(rule.format);
      if (format) draft.headers['X-RateLimit-Reset'] = format(draft.decision.resetMs + draft.offsetMs, serverNow(draft, ctx));
    },
  },
  'retry-after': {
    apply(draft, rule, ctx) {
      if (draft.status !== 429) return;
      delete draft.headers['X-RateLimit-Reset'];
      const seconds = rule.seconds ?? Math.max(1, Math.ceil((draft.decision.resetMs - ctx.nowMs) / 1000));
      draft.headers['Retry-After'] =
        rule.format === 'http-date' ? httpDate(Math.ceil(serverNow(draft, ctx) / 1000 + seconds) * 1000) : String(seconds);
    },
  },
  'reset-mid-body': {
    apply(draft, rule) {
      draft.network = {
        kind: 'reset-mid-body',
        afterBytes: Math.min(draft.body.length - 1, rule.afterBytes ?? Math.floor(draft.body.length / 2)),
      };
    },
  },
  drip: {
    apply(draft, rule) {
      draft.network = {
        kind: 'drip',
        chunkBytes: Math.max(1, rule.chunkBytes ?? 64),
        intervalMs: Math.max(0, rule.intervalMs ?? 200),
      };
    },
  },
};

/**
 * Applies the faults of one stage that fired (`fired`, in rule order) to a draft; see the module
 * comment for precedence. A network fault a rewrite sets replaces `draft.network`.
 */
export function runStage(stage: FaultStage, draft: ResponseDraft, fired: readonly FaultRule[], ctx: RewriteContext): void {
  const { kinds, firstOnly } = FAULT_STAGES[stage];
  for (const kind of kinds) {
    const rules = fired.filter((r) => r.kind === kind);
    if (rules.length === 0) continue;
    const rewrite = FAULT_REWRITES[kind];
    for (const rule of rewrite.cumulative ? rules : rules.slice(0, 1)) rewrite.apply(draft, rule, ctx);
    if (firstOnly) return;
  }
}
