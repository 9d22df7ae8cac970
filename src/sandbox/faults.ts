/**
 * Fault injection for the sandbox (reliability.md, "Faults to test"). A fault is a rule: what goes
 * wrong, and when (probability, request numbers, pages, endpoint, a time window, a maximum count).
 * Random draws are a pure function of (seed, rule, request URL, how many times that URL was
 * requested), so a failing run replays from its seed even with concurrent requests.
 *
 * Network-level faults (a reset, a hang, a slow drip) cannot be expressed by a `Response`; the
 * sandbox attaches them to its reply and the transport adapters (fetch.ts, server.ts) act them out.
 */
import { UsageError } from '../errors.js';
import { hash32, hashString } from './random.js';

/** Every kind of fault the sandbox can inject. */
export const FAULT_KINDS = [
  /** A 5xx answer (`status`, default 503), optionally with `retryAfter` (seconds or `'http-date'`). */
  'status',
  /** Connection refused (in-process: ECONNREFUSED; on a socket: destroyed at once). */
  'refuse',
  /** The connection is reset before any header is sent. */
  'reset-before-headers',
  /** The connection is reset after `afterBytes` of the body (default half of it). */
  'reset-mid-body',
  /** A 200 whose body is cut after `afterBytes` (default half), with a matching length: invalid JSON. */
  'truncate',
  /** A 200 with a body that is not JSON. */
  'invalid-json',
  /** A 200 HTML page (a proxy's maintenance page). */
  'html',
  /** Headers never come; the request stays open until the client gives up. */
  'hang',
  /** The body comes `chunkBytes` (default 64) every `intervalMs` (default 200). */
  'drip',
  /** The server's clock is `offsetMs` ahead (negative: behind): `Date` and `X-RateLimit-Reset` shift, the windows do not. */
  'clock-offset',
  /** `X-RateLimit-Reset` as `iso`, `ms` (epoch milliseconds), `zero`, `past`, `garbage` or `far` (2 hours away). */
  'reset-format',
  /** On a 429: `Retry-After` (`format` `seconds` or `http-date`; `seconds` to override) and no `X-RateLimit-Reset`. */
  'retry-after',
  /** `X-RateLimit-Remaining: 0` on a successful answer. */
  'remaining-zero',
  /** A 429 whatever the counters say. */
  'permanent-429',
  /** Unprefixed Hydra terms (`member`, `totalItems`, `view`, `next`…). */
  'unprefixed',
  /** Absolute links (`http://host:port/…` of the request's own origin). */
  'absolute-links',
  /** Path-relative links (`invoices?itemsPerPage=10&page=2`, resolved against the page's own URL). */
  'relative-links',
  /**
   * `hydra:next` on another origin: `url` (an origin alone gets the real next path appended), or
   * `link`, written verbatim (for tricks no absolute URL spells: `//evil/x`, `/\\evil/x`).
   */
  'foreign-next',
  /** A 302 to `url` (an origin alone gets the request's path appended). */
  'redirect',
  /** `hydra:next` pointing to the page itself (`to: 'self'`, default) or to the first page (`to: 'first'`). */
  'loop-next',
] as const;

/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** When a rule fires. Every condition given must hold; none given means every request. */
export interface FaultScope {
  /** Chance of firing on a matching request, 0..1 (default 1). */
  probability?: number;
  /** 1-based request numbers, counted over every request the sandbox receives. */
  requests?: number | number[] | { from?: number; to?: number };
  /** Page numbers (offset `page`; in cursor mode the page the slice falls on). Only collection requests have one. */
  pages?: number | number[];
  /** Endpoint key of src/endpoints.ts (e.g. `invoices`). */
  endpoint?: string;
  /** Fires at most this many times. */
  times?: number;
  /** Active from this many ms after the faults were set (server clock). */
  fromMs?: number;
  /** Active until this many ms after the faults were set (server clock), e.g. "refused for 3 s". */
  untilMs?: number;
}

/** A fault and its scope. */
export interface FaultRule extends FaultScope {
  kind: FaultKind;
  /** `status`: the status (500, 502, 503 or 504; default 503). */
  status?: number;
  /** `status`: a `Retry-After` header, seconds or `'http-date'` (1 s from now as an HTTP-date). */
  retryAfter?: number | 'http-date';
  /** `reset-mid-body`, `truncate`: bytes sent before the cut (default half the body). */
  afterBytes?: number;
  /** `drip`: bytes per chunk (default 64). */
  chunkBytes?: number;
  /** `drip`: ms between chunks (default 200). */
  intervalMs?: number;
  /** `clock-offset`: ms the server clock is ahead (default 300 000). */
  offsetMs?: number;
  /** `reset-format`: iso, ms, zero, past, garbage, far. `retry-after`: seconds (default) or http-date. */
  format?: 'iso' | 'ms' | 'zero' | 'past' | 'garbage' | 'far' | 'seconds' | 'http-date';
  /** `retry-after`: the wait in seconds (default: until the window ends, at least 1). */
  seconds?: number;
  /** `foreign-next`, `redirect`: the other origin or URL. */
  url?: string;
  /** `foreign-next`: the `hydra:next` value written as is, not parsed (scheme-relative, userinfo, backslash tricks). */
  link?: string;
  /** `loop-next`: where the looping next points. */
  to?: 'self' | 'first';
}

/** Rules plus the seed of their random draws. */
export interface FaultConfig {
  /** Seed of the draws (default: the sandbox seed). */
  seed?: number;
  rules: FaultRule[];
}

/** What is known about a request when faults are decided. */
export interface FaultContext {
  /** 1-based number of the request. */
  requestNumber: number;
  /** Endpoint key, when the path matched one. */
  endpoint: string | undefined;
  /** Page number, when the request is a collection page. */
  page: number | undefined;
  /** Path and query, which keys the random draws. */
  pathAndQuery: string;
  /** Server time, epoch ms. */
  nowMs: number;
}

/** A fault the transport acts out (attached to a sandbox reply). */
export type NetworkFault =
  | { kind: 'refuse' }
  | { kind: 'reset-before-headers' }
  | { kind: 'hang' }
  | { kind: 'reset-mid-body'; afterBytes: number }
  | { kind: 'drip'; chunkBytes: number; intervalMs: number };

/** Decides which rules fire; see {@link createFaultInjector}. */
export interface FaultInjector {
  /** Replaces the rules (resets their counters and time window origin). */
  set(config: FaultConfig | FaultRule[], nowMs: number): void;
  /** The current rules. */
  rules(): FaultRule[];
  /** The rules that fire for this request, in rule order (each fire is counted). */
  decide(ctx: FaultContext): FaultRule[];
  /** How many times each rule has fired, in rule order. */
  fired(): number[];
}

const NUMBERED = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function inList(value: number, spec: number | number[]): boolean {
  return Array.isArray(spec) ? spec.includes(value) : value === spec;
}

/**
 * Creates a fault injector.
 * @param defaultSeed seed used when the config names none
 */
export function createFaultInjector(defaultSeed: number): FaultInjector {
  let rules: FaultRule[] = [];
  let seed = defaultSeed;
  let counts: number[] = [];
  let origin = 0;
  const attempts = new Map<string, number>();

  return {
    set(config, nowMs) {
      const c = Array.isArray(config) ? { rules: config } : config;
      for (const r of c.rules) validateRule(r);
      rules = c.rules.map((r) => ({ ...r }));
      seed = c.seed ?? defaultSeed;
      counts = rules.map(() => 0);
      origin = nowMs;
      attempts.clear();
    },
    rules: () => rules.map((r) => ({ ...r })),
    fired: () => [...counts],
    decide(ctx) {
      if (rules.length === 0) return [];
      const attempt = (attempts.get(ctx.pathAndQuery) ?? 0) + 1;
      attempts.set(ctx.pathAndQuery, attempt);
      const urlHash = hashString(ctx.pathAndQuery);
      const out: FaultRule[] = [];
      rules.forEach((r, i) => {
        if (r.times !== undefined && counts[i]! >= r.times) return;
        if (r.endpoint !== undefined && r.endpoint !== ctx.endpoint) return;
        const elapsed = ctx.nowMs - origin;
        if (r.fromMs !== undefined && elapsed < r.fromMs) return;
        if (r.untilMs !== undefined && elapsed >= r.untilMs) return;
        if (r.requests !== undefined) {
          const q = r.requests;
          if (typeof q === 'number' || Array.isArray(q)) {
            if (!inList(ctx.requestNumber, q)) return;
          } else if ((q.from !== undefined && ctx.requestNumber < q.from) || (q.to !== undefined && ctx.requestNumber > q.to)) {
            return;
          }
        }
        if (r.pages !== undefined && (ctx.page === undefined || !inList(ctx.page, r.pages))) return;
        const p = r.probability ?? 1;
        if (p < 1 && hash32(seed, i, urlHash, attempt) / 4294967296 >= p) return;
        counts[i]!++;
        out.push(r);
      });
      return out;
    },
  };
}

/**
 * Checks a rule's kind and parameters.
 * @throws {UsageError} for an unknown kind or an out-of-range parameter
 */
export function validateRule(rule: FaultRule): void {
  if (!(FAULT_KINDS as readonly string[]).includes(rule.kind)) {
    throw new UsageError(`unknown fault '${String(rule.kind)}' (known: ${FAULT_KINDS.join(', ')})`);
  }
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    throw new UsageError(`fault ${rule.kind}: probability must be between 0 and 1`);
  }
  if (rule.kind === 'status' && rule.status !== undefined && !(rule.status >= 500 && rule.status <= 599)) {
    throw new UsageError(`fault status: status must be a 5xx code`);
  }
  if ((rule.kind === 'foreign-next' || rule.kind === 'redirect') && rule.url !== undefined) {
    try {
      new URL(rule.url);
    } catch {
      throw new UsageError(`fault ${rule.kind}: url must be an absolute URL`);
    }
  }
  if (rule.kind === 'foreign-next' && rule.link !== undefined && typeof rule.link !== 'string') {
    throw new UsageError('fault foreign-next: link must be a string');
  }
  if ((rule.kind === 'foreign-next' || rule.kind === 'redirect') && rule.url === undefined && !(rule.kind === 'foreign-next' && rule.link !== undefined)) {
    throw new UsageError(`fault ${rule.kind} needs url=<absolute URL>${rule.kind === 'foreign-next' ? ' or link=<raw link>' : ''}`);
  }
}

const ALIASES: Record<string, keyof FaultRule> = { p: 'probability', request: 'requests', page: 'pages' };

function parseValue(key: string, text: string): unknown {
  if (key === 'requests' || key === 'pages') {
    const range = /^(\d*)-(\d*)$/.exec(text);
    if (range && key === 'requests') {
      return { ...(range[1] ? { from: Number(range[1]) } : {}), ...(range[2] ? { to: Number(range[2]) } : {}) };
    }
    const list = text.split(',').map(Number);
    if (list.some((n) => !Number.isInteger(n))) throw new UsageError(`fault spec: bad ${key} '${text}'`);
    return list.length === 1 ? list[0] : list;
  }
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/**
 * Parses a fault spec: JSON (a {@link FaultConfig} or an array of rules), or the compact form
 * `kind key=value …; kind …` where `p` is short for `probability`, `requests=3-5` is a range,
 * `pages=2,4` a list, and a lone `seed=N` sets the seed. Example:
 * `status status=503 p=0.2; reset-mid-body requests=5; clock-offset offsetMs=-600000`.
 * @throws {UsageError} for bad JSON, an unknown kind or a malformed pair
 */
export function parseFaultSpec(text: string): FaultConfig {
  const trimmed = text.trim();
  if (trimmed === '') return { rules: [] };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (err) {
      throw new UsageError(`fault spec is not valid JSON: ${(err as Error).message}`);
    }
    const config: FaultConfig = Array.isArray(parsed) ? { rules: parsed as FaultRule[] } : (parsed as FaultConfig);
    if (!Array.isArray(config.rules)) throw new UsageError('fault spec JSON needs a "rules" array');
    if (config.seed !== undefined && !NUMBERED(config.seed)) throw new UsageError('fault spec: seed must be a number');
    for (const r of config.rules) validateRule(r);
    return config;
  }
  const config: FaultConfig = { rules: [] };
  for (const part of trimmed.split(';')) {
    const tokens = part.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0) continue;
    if (tokens.length === 1 && tokens[0]!.startsWith('seed=')) {
      const seed = Number(tokens[0]!.slice(5));
      if (!Number.isInteger(seed)) throw new UsageError(`fault spec: bad seed '${tokens[0]}'`);
      config.seed = seed;
      continue;
    }
    const rule: Record<string, unknown> = { kind: tokens[0] };
    for (const token of tokens.slice(1)) {
      const eq = token.indexOf('=');
      if (eq <= 0) throw new UsageError(`fault spec: expected key=value, got '${token}'`);
      const rawKey = token.slice(0, eq);
      const key = ALIASES[rawKey] ?? rawKey;
      rule[key] = parseValue(key, token.slice(eq + 1));
    }
    validateRule(rule as unknown as FaultRule);
    config.rules.push(rule as unknown as FaultRule);
  }
  return config;
}
