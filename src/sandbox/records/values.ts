/**
 * Small value helpers of the record generators: time constants, the per-kind seeds, dates as the
 * API writes them, money as a JSON float, and UUIDv7 ids.
 */
import { uuidV7, type Rng } from '../random.js';

/** One day, ms. */
export const DAY = 86_400_000;
/** Generated invoices and payments end here (epoch ms); later items are the ones inserted at run time. */
export const SPAN_END = Date.UTC(2024, 3, 1);
/** Time span of generated invoices and payments, ms (three years). */
export const SPAN_MS = 3 * 365 * DAY;
/** Cap of the average line items per invoice. */
export const MAX_LINE_ITEMS_AVG = 200;

/** Seeds of each record kind: the second argument of every `hash32` of the generators. */
export const KIND = {
  party: 1,
  invoice: 2,
  lineItem: 3,
  payment: 4,
  entity: 5,
  event: 6,
  inserted: 7,
  lineCount: 8,
} as const;

/** Two decimal digits, zero-padded. */
export function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));
const dayPrefixes = new Map<number, string>();

/**
 * ISO-8601 with milliseconds and `Z` (`2024-03-28T16:45:09.000Z`), as the API writes dates; the
 * same text as `Date.prototype.toISOString` for years 1970–9999, but the date part is cached per
 * day because formatting dates was a third of the cost of building an invoice.
 * @param ms epoch milliseconds
 */
export function isoDate(ms: number): string {
  const day = Math.floor(ms / DAY);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY).toISOString().slice(0, 11);
    if (dayPrefixes.size > 100_000) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  return `${prefix}${pad2(h)}:${pad2(m)}:${pad2(sec)}.${pad3(rest - sec * 1000)}Z`;
}

/**
 * How dates are written: ISO 8601 in UTC with milliseconds and `Z` (`iso`, as the API documentation
 * shows them), or without a zone (`naive`, `2025-04-29 19:41:06`, as the real service was recorded
 * writing them; the time is UTC all the same).
 */
export type DateStyle = 'iso' | 'naive';

const ISO_UTC = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?Z$/;

/** `value` with every ISO 8601 UTC date string in it written without a zone (see {@link DateStyle}). */
export function withNaiveDates<T>(value: T): T {
  if (typeof value === 'string') {
    const m = ISO_UTC.exec(value);
    return (m ? `${m[1]} ${m[2]}` : value) as T;
  }
  if (Array.isArray(value)) return value.map(withNaiveDates) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNaiveDates(v)])) as T;
}

/** Cents rounded to a float amount in currency units (the API writes money as a JSON float). */
export function money(cents: number): number {
  return Math.round(cents) / 100;
}

/** A UUIDv7 id at `ts` (epoch ms), its random bits drawn from `rng` (three draws). */
export function newId(ts: number, rng: Rng): string {
  return uuidV7(ts, rng.u32(), rng.u32(), rng.u32());
}
