/**
 * The sandbox's rate limiter: fixed windows per API key and per endpoint (the API documentation,
 * rate limiting; docs/sandbox.md, "The sandbox"). Windows are aligned on epoch multiples of their length, so
 * with a whole number of seconds they end on whole seconds and `X-RateLimit-Reset` (epoch seconds)
 * is exact.
 */

/** What the limiter says about one request. */
export interface RateLimitDecision {
  /** `X-RateLimit-Limit`. */
  limit: number;
  /** `X-RateLimit-Remaining` after this request (0 when limited). */
  remaining: number;
  /** End of the current window, epoch ms. */
  resetMs: number;
  /** Start of the current window, epoch ms. */
  windowStartMs: number;
  /** True when this request is over the limit (answer 429). */
  limited: boolean;
}

/** 429s answered in one window of one endpoint. */
export interface LimitedWindow {
  /** What the window counted: an endpoint key (route scope) or a concrete path (path scope). */
  endpoint: string;
  /** Window start, epoch ms. */
  windowStartMs: number;
  count: number;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Requests per window; 0, negative, NaN or Infinity mean no limit. */
  limit: number;
  /** Window length, seconds (> 0). */
  windowSeconds: number;
}

/** A fixed-window limiter; see {@link createRateLimiter}. */
export interface RateLimiter {
  /** Counts one request of `apiKey` on `endpoint` at `nowMs` (epoch ms) and decides. */
  hit(apiKey: string, endpoint: string, nowMs: number): RateLimitDecision;
  /** The state of a key and endpoint at `nowMs` without counting a request. */
  peek(apiKey: string, endpoint: string, nowMs: number): RateLimitDecision;
  /** 429s per endpoint and window, in the order the windows were first limited. */
  limitedWindows(): LimitedWindow[];
}

/** The `X-RateLimit-Limit` sent when there is no limit: large, but a plain integer every client parses. */
export const UNLIMITED = 1_000_000_000;

/**
 * Creates a fixed-window limiter. A window of `w` seconds containing `nowMs` is
 * `[floor(nowMs / w) * w, … + w)`; its counter starts at 0. Requests past `limit` in a window are
 * limited (and still counted, like most gateways).
 * @throws {RangeError} when `windowSeconds` is not a positive finite number
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { windowSeconds } = options;
  if (!(windowSeconds > 0) || !Number.isFinite(windowSeconds)) throw new RangeError('windowSeconds must be > 0');
  const windowMs = windowSeconds * 1000;
  const unlimited = !(options.limit > 0) || !Number.isFinite(options.limit);
  const limit = unlimited ? UNLIMITED : Math.floor(options.limit);
  const counters = new Map<string, { start: number; count: number }>();
  const limited = new Map<string, LimitedWindow>();

  const decide = (apiKey: string, endpoint: string, nowMs: number, count: boolean): RateLimitDecision => {
    const start = Math.floor(nowMs / windowMs) * windowMs;
    const key = `${apiKey}\u0000${endpoint}`;
    let c = counters.get(key);
    if (!c || c.start !== start) {
      c = { start, count: 0 };
      if (count) counters.set(key, c);
    }
    if (count) c.count++;
    const over = !unlimited && c.count > limit;
    if (over && count) {
      const lk = `${endpoint}\u0000${start}`;
      const entry = limited.get(lk) ?? { endpoint, windowStartMs: start, count: 0 };
      entry.count++;
      limited.set(lk, entry);
    }
    return {
      limit,
      remaining: unlimited ? UNLIMITED : Math.max(0, limit - c.count),
      resetMs: start + windowMs,
      windowStartMs: start,
      limited: over,
    };
  };

  return {
    hit: (apiKey, endpoint, nowMs) => decide(apiKey, endpoint, nowMs, true),
    peek: (apiKey, endpoint, nowMs) => decide(apiKey, endpoint, nowMs, false),
    limitedWindows: () => [...limited.values()].map((w) => ({ ...w })),
  };
}
