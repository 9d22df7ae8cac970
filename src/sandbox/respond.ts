/**
 * Finishing an answer: the planned draft goes through the fault stages of fault-table.ts in order
 * (connection, clock, answer, then the page's links, envelope, rendering and body, then the
 * headers and the transport) and comes out as a {@link SandboxReply}.
 */
import { runStage, type RewriteContext } from './fault-table.js';
import type { FaultRule, NetworkFault } from './faults.js';
import { renderPage, type SinglePage } from './pages.js';
import { httpDate, type PageDraft, type ResponseDraft } from './responses.js';
import type { SandboxReply } from './types.js';
import type { WireEncoding } from './wire.js';

/** What finishing needs beyond the draft and the faults that fired. */
export interface FinishContext extends RewriteContext {
  /** The `X-Request-ID` value. */
  requestId: string;
  /** Name of the previous link in cursor mode. */
  cursorPrevious: 'previous' | 'last';
  /** How the page is written (sandbox/wire.ts). */
  wire: WireEncoding;
  /** A page that links nowhere: with its `view` or without (sandbox/pages.ts). */
  singlePage: SinglePage;
  /** Called once a page is rendered (to warm the next one). */
  afterRender(page: PageDraft): void;
}

/** Rewrites the page's links and envelope, renders it, then rewrites the body. */
function renderDraftPage(draft: ResponseDraft, page: PageDraft, fired: readonly FaultRule[], ctx: FinishContext): void {
  runStage('links', draft, fired, ctx);
  runStage('envelope', draft, fired, ctx);
  const style = { prefixed: page.prefixed, cursorPrevious: ctx.cursorPrevious, wire: ctx.wire, singlePage: ctx.singlePage };
  draft.body = renderPage(page.view, page.plan, page.links, ctx.url.pathname, page.state.context, style, page.state.search);
  ctx.afterRender(page);
  runStage('body', draft, fired, ctx);
}

/**
 * The standard headers of an authenticated answer: `Content-Type`, `Date` and `X-RateLimit-Reset`
 * on the (possibly offset) server clock, `X-Request-ID`, `X-RateLimit-Limit` and `-Remaining`.
 * The reset is in epoch seconds, rounded up.
 */
function writeHeaders(draft: ResponseDraft, ctx: FinishContext): void {
  const { decision, offsetMs } = draft;
  draft.headers = {
    'Content-Type': draft.contentType,
    Date: httpDate(ctx.nowMs + offsetMs),
    'X-Request-ID': ctx.requestId,
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil((decision.resetMs + offsetMs) / 1000)),
  };
}

/** Runs the connection stage: the network fault that replaces the whole answer, if one fired. */
function connectionFault(draft: ResponseDraft, fired: readonly FaultRule[], ctx: FinishContext): NetworkFault | undefined {
  runStage('connection', draft, fired, ctx);
  return draft.network;
}

/**
 * Applies the faults that fired to a planned draft and makes the reply.
 * @param fired the rules that fired for this request, in rule order
 * @returns the reply; status 0, no headers and an empty body when a connection fault replaced it
 */
export function finishDraft(draft: ResponseDraft, fired: readonly FaultRule[], ctx: FinishContext): SandboxReply {
  const cut = connectionFault(draft, fired, ctx);
  if (cut) return { status: 0, headers: {}, body: Buffer.alloc(0), network: cut };
  runStage('clock', draft, fired, ctx);
  runStage('answer', draft, fired, ctx);
  if (draft.page) renderDraftPage(draft, draft.page, fired, ctx);
  writeHeaders(draft, ctx);
  runStage('headers', draft, fired, ctx);
  Object.assign(draft.headers, draft.extra);
  runStage('transport', draft, fired, ctx);
  const { status, headers, body, network } = draft;
  return network ? { status, headers, body, network } : { status, headers, body };
}
