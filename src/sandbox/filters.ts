/**
 * The sandbox's collection filters, as the API documents them (the API documentation, filters):
 * exact matches (`status=paid`), date ranges (`updatedAt[after]=2024-05-01T00:00:00+00:00`;
 * `after` and `before` include the bound, `strictly_after` and `strictly_before` do not), numeric
 * ranges (`total[gt]=100`, `total[between]=10..20`) and `order[issuedAt]=asc|desc`. Unknown
 * parameters and order values other than `asc`/`desc` are ignored, as the real service drops
 * unknown filters; invalid values of known filters are answered 422 before (sandbox/validation.ts).
 */
import type { GeneratedCollection, JsonObject } from './data.js';

/** The date range operators, as the query names them. */
export const RANGE_OPERATORS = ['after', 'strictly_after', 'before', 'strictly_before'] as const;

/** The numeric range operators (API Platform's RangeFilter): `total[gt]=100`, `total[between]=10..20`. */
export const NUMERIC_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'between'] as const;

/** A date range operator. */
type RangeOperator = (typeof RANGE_OPERATORS)[number];

/** Separates the values of a `name[]` filter in its one entry: no query value holds it. */
const ANY_SEPARATOR = '\u0000';

const RANGE_KEY = /^(\w+)\[(after|strictly_after|before|strictly_before)\]$/;
const ORDER_KEY = /^order\[(\w+)\]$/;
const NUMERIC_KEY = /^(\w+)\[(gt|gte|lt|lte|between)\]$/;

/**
 * The filter variables of a collection as its `hydra:search` IRI template lists them: exact names,
 * `field[operator]` ranges and `order[field]`.
 */
export function searchVariables(base: GeneratedCollection): string[] {
  return [
    ...base.filters,
    ...(base.dateFilters ?? []).flatMap((f) => RANGE_OPERATORS.map((op) => `${f}[${op}]`)),
    ...(base.numericFilters ?? []).flatMap((f) => NUMERIC_OPERATORS.map((op) => `${f}[${op}]`)),
    ...(base.orderFields ?? []).map((f) => `order[${f}]`),
  ];
}

/**
 * The filters a request asks of a collection: its filterable names present in the query, with
 * their values (exact names, `field[operator]` date ranges, `order[field]`).
 * @param cursor whether the request pages by cursor: cursor pages follow the id order, so
 *   `order[...]` is ignored there
 */
export function pickFilters(base: GeneratedCollection, params: URLSearchParams, cursor = false): Map<string, string> {
  const filters = new Map<string, string>();
  for (const name of base.filters) {
    const value = params.get(name);
    if (value !== null) filters.set(name, value);
    // `type[]=a&type[]=b`: any of the values (API Platform's SearchFilter), kept as one entry.
    const any = params.getAll(`${name}[]`);
    if (any.length > 0) filters.set(`${name}[]`, any.join(ANY_SEPARATOR));
  }
  for (const field of base.dateFilters ?? []) {
    for (const op of RANGE_OPERATORS) {
      const value = params.get(`${field}[${op}]`);
      if (value !== null && !Number.isNaN(Date.parse(value))) filters.set(`${field}[${op}]`, value);
    }
  }
  for (const field of base.numericFilters ?? []) {
    for (const op of NUMERIC_OPERATORS) {
      const value = params.get(`${field}[${op}]`);
      if (value !== null && numericBounds(op, value) !== undefined) filters.set(`${field}[${op}]`, value);
    }
  }
  if (cursor) return filters;
  for (const field of base.orderFields ?? []) {
    const value = params.get(`order[${field}]`)?.toLowerCase();
    if (value === 'asc' || value === 'desc') filters.set(`order[${field}]`, value);
  }
  return filters;
}

/**
 * The bounds `[low, high]` of a numeric range filter's value, inclusive or not by operator
 * (API Platform's RangeFilter: `between` is inclusive, `a..b`); undefined when it is no number.
 */
function numericBounds(op: string, value: string): [number, number] | undefined {
  const parts = op === 'between' ? value.split('..') : [value];
  if (parts.length !== (op === 'between' ? 2 : 1) || parts.some((p) => p.trim() === '' || !Number.isFinite(Number(p)))) return undefined;
  const [a, b] = parts.map(Number) as [number, number];
  return op === 'between' ? [a, b] : op.startsWith('g') ? [a, Infinity] : [-Infinity, a];
}

/** Whether `value` passes a numeric range filter `op` with `bounds` ({@link numericBounds}). */
function inNumeric(op: string, bounds: [number, number], value: unknown): boolean {
  const n = Number(value);
  if (value === null || typeof value === 'boolean' || Number.isNaN(n)) return false;
  if (op === 'gt') return n > bounds[0];
  if (op === 'lt') return n < bounds[1];
  return n >= bounds[0] && n <= bounds[1];
}

/** Filters ready to apply to items. */
export interface CompiledFilters {
  /** Whether an item passes every exact and range filter. */
  readonly matches: (obj: JsonObject) => boolean;
  /** The order asked for, if any: by `field`'s time, `desc` newest first. */
  readonly order: { readonly field: string; readonly desc: boolean } | undefined;
  /** Whether there are exact filters (a date index alone cannot decide then). */
  readonly exact: boolean;
  /** Whether an item whose date fields have the times `timeOf(field)` (epoch ms) passes the range filters. */
  readonly inRanges: (timeOf: (field: string) => number) => boolean;
}

/** Whether `time` (epoch ms) passes `op` against `bound` (epoch ms). */
function inRange(op: RangeOperator, time: number, bound: number): boolean {
  switch (op) {
    case 'after':
      return time >= bound;
    case 'strictly_after':
      return time > bound;
    case 'before':
      return time <= bound;
    default:
      return time < bound;
  }
}

/** The time of an item's date field, epoch ms; NaN when it is missing or not a date. */
export function fieldTime(obj: JsonObject, field: string): number {
  const value = obj[field];
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** The value at a dot path (`taxpayer.id`) of an item; undefined when a step is missing. */
function valueAt(obj: JsonObject, path: string): unknown {
  let value: unknown = obj;
  for (const step of path.split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[step] : undefined;
  return value;
}

/** Whether an item passes an exact filter `key` (a dot path, or `name[]` with any of its values). */
function exactMatch(obj: JsonObject, key: string, value: string): boolean {
  const any = key.endsWith('[]');
  // String() of any JSON field, on purpose: a nested object reads `[object Object]`, which no query value is.
  const text = String(valueAt(obj, any ? key.slice(0, -2) : key));
  return any ? value.split(ANY_SEPARATOR).includes(text) : text === value;
}

/** Compiles what {@link pickFilters} picked. */
export function compileFilters(filters: ReadonlyMap<string, string>): CompiledFilters {
  const exact: Array<[string, string]> = [];
  const ranges: Array<{ field: string; op: RangeOperator; bound: number }> = [];
  const numeric: Array<{ field: string; op: string; bounds: [number, number] }> = [];
  let order: CompiledFilters['order'];
  for (const [key, value] of filters) {
    const range = RANGE_KEY.exec(key);
    const ordered = ORDER_KEY.exec(key);
    const num = NUMERIC_KEY.exec(key);
    const bounds = num ? numericBounds(num[2]!, value) : undefined;
    if (num && bounds) numeric.push({ field: num[1]!, op: num[2]!, bounds });
    else if (range) ranges.push({ field: range[1]!, op: range[2] as RangeOperator, bound: Date.parse(value) });
    else if (ordered) order = { field: ordered[1]!, desc: value === 'desc' };
    else exact.push([key, value]);
  }
  return {
    order,
    exact: exact.length > 0 || numeric.length > 0,
    inRanges: (timeOf) => ranges.every((r) => inRange(r.op, timeOf(r.field), r.bound)),
    matches: (obj) => {
      for (const [k, v] of exact) if (!exactMatch(obj, k, v)) return false;
      for (const r of ranges) if (!inRange(r.op, fieldTime(obj, r.field), r.bound)) return false;
      for (const r of numeric) if (!inNumeric(r.op, r.bounds, obj[r.field])) return false;
      return true;
    },
  };
}
