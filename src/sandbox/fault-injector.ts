/**
 * Deciding which fault rules fire on a request. Random draws are a pure function of (seed, rule,
 * request URL, how many times that URL was requested), so a failing run replays from its seed
 * even with concurrent requests.
 */
import { validateRule } from './fault-spec.js';
import type { FaultConfig, FaultContext, FaultRule } from './fault-types.js';
import { hash32, hashString } from './random.js';

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
