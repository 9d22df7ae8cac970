/**
 * Seeded, stateless randomness for the sandbox. Every generated value is a pure function of
 * (seed, a few integers), so item k of a collection can be built without building items 0..k-1,
 * and a failing fault run replays exactly from its seed.
 */

/**
 * Mixes up to five 32-bit integers into one well-distributed unsigned 32-bit integer
 * (murmur3's finaliser applied to a running combination). Pure and fast (no allocation).
 */
export function hash32(a: number, b = 0, c = 0, d = 0, e = 0): number {
  let h = 0x9e3779b9 ^ a;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ c;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ d;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ e;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a hash of a string, unsigned 32-bit; used to key fault draws by request URL. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A small sequential generator (mulberry32) seeded with a 32-bit integer. */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** Unsigned 32-bit integer. */
  u32(): number;
}

/** Creates a mulberry32 {@link Rng} from a 32-bit seed (e.g. a {@link hash32} of the item's coordinates). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const u32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const next = (): number => u32() / 4294967296;
  return {
    next,
    u32,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 8 lowercase hex digits of an unsigned 32-bit integer. */
export function hex32(n: number): string {
  return HEX[(n >>> 24) & 255]! + HEX[(n >>> 16) & 255]! + HEX[(n >>> 8) & 255]! + HEX[n & 255]!;
}

/**
 * A UUIDv7-shaped id (RFC 9562 §5.7): 48-bit Unix timestamp in ms, version 7, variant 10, then
 * random bits from `r1`..`r3`. Ids of distinct timestamps sort (as strings) in creation order, which
 * is what makes "newest first" the same as "id descending" in cursor mode.
 * @param timestampMs epoch ms, 0 ≤ t < 2^48
 */
export function uuidV7(timestampMs: number, r1: number, r2: number, r3: number): string {
  const hi = Math.floor(timestampMs / 65536);
  const lo = timestampMs % 65536;
  const tsHex = hex32(hi) + hex32(lo).slice(4);
  const a = hex32(r1);
  const b = hex32(r2);
  const c = hex32(r3);
  const variant = HEX[0x80 | (r2 >>> 26)]!.charAt(0);
  return `${tsHex.slice(0, 8)}-${tsHex.slice(8, 12)}-7${a.slice(0, 3)}-${variant}${a.slice(3, 6)}-${b.slice(0, 4)}${c}`;
}

/** A random (version 4) UUID from a generator, as the tax authority's folio (`uuid` field) looks. */
export function uuidV4(rng: Rng): string {
  const a = hex32(rng.u32());
  const b = hex32(rng.u32());
  const c = hex32(rng.u32());
  const d = hex32(rng.u32());
  const variant = '89ab'.charAt(rng.u32() & 3);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
}
