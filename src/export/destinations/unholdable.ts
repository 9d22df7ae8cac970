/**
 * Items a database cannot hold as written (docs/databases.md, "An item the database cannot hold"):
 * valid JSON that PostgreSQL's `jsonb` refuses (a NUL, `\u0000`, in a string) or that neither
 * `jsonb` nor DuckDB's JSON reader takes (a lone surrogate, `\ud800`). Such an item fails its whole
 * group, on every run; it is found here only once a group failed (the lines are not scanned
 * otherwise), kept apart exactly as received, and the rest of the group written.
 */
import type { Dialect } from './schema.js';

/** An item kept apart: its key ('' when it has none), its line as received, and why. */
export interface Rejected {
  readonly id: string;
  readonly item: string;
  readonly reason: string;
}

/** A UTF-16 surrogate without its pair: no Unicode encoding can write it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `dialect` cannot hold string `s` as written; undefined when it can. */
function stringReason(s: string, dialect: Dialect): string | undefined {
  if (dialect === 'postgres' && s.includes('\u0000')) return "a NUL (\\u0000) in a string, which PostgreSQL's jsonb cannot hold";
  if (LONE_SURROGATE.test(s))
    return `a lone surrogate (\\ud800-\\udfff) in a string, which ${dialect === 'postgres' ? "PostgreSQL's jsonb" : "DuckDB's JSON"} cannot hold`;
  return undefined;
}

/** The first reason found in a parsed JSON value's keys and strings. */
function valueReason(value: unknown, dialect: Dialect): string | undefined {
  if (typeof value === 'string') return stringReason(value, dialect);
  if (Array.isArray(value)) {
    for (const v of value) {
      const reason = valueReason(v, dialect);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const reason = stringReason(k, dialect) ?? valueReason(v, dialect);
      if (reason !== undefined) return reason;
    }
  }
  return undefined;
}

/** The item's key as the table's `id`: `key`'s path, else `id`, else `@id`; '' when missing. */
function keyOf(item: unknown, key: readonly string[] | undefined): string {
  const at = (path: readonly string[]): unknown =>
    path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), item);
  const found = key === undefined ? (at(['id']) ?? at(['@id'])) : at(key);
  return typeof found === 'string' ? found : found === undefined || found === null ? '' : JSON.stringify(found);
}

/**
 * Splits a failed group (NDJSON, one item a line) into the lines `dialect` can hold and those it
 * cannot. @returns undefined when every line can be held (the failure had another cause)
 */
function splitUnholdable(
  ndjson: readonly Buffer[],
  dialect: Dialect,
  key: readonly string[] | undefined,
): { kept: Buffer[]; rejected: Rejected[] } | undefined {
  const kept: string[] = [];
  // By key: an item seen twice in a group is kept apart once, as its last line.
  const rejected = new Map<string, Rejected>();
  for (const line of Buffer.concat(ndjson).toString('utf8').split('\n')) {
    if (line === '') continue;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      kept.push(line);
      continue;
    }
    const reason = valueReason(item, dialect);
    if (reason === undefined) kept.push(line);
    else {
      const id = keyOf(item, key);
      rejected.set(id, { id, item: line, reason });
    }
  }
  if (rejected.size === 0) return undefined;
  return { kept: kept.length === 0 ? [] : [Buffer.from(`${kept.join('\n')}\n`)], rejected: [...rejected.values()] };
}

/** The parameters of `rejectSql` after the table's text, the source and the run. */
export function rejectParams(rejected: readonly Rejected[]): string[] {
  return rejected.flatMap((r) => [r.id, r.item, r.reason]);
}

/**
 * Writes a group by `write`; when the database refused its data (`refused`), writes again the lines
 * it can hold, with those it cannot. @throws the first failure when it was not refused data, or no line explains it
 */
export async function keepingApart<T>(
  ndjson: readonly Buffer[],
  target: { dialect: Dialect; key: readonly string[] | undefined; refused: (err: unknown) => boolean },
  write: (lines: readonly Buffer[], rejected: readonly Rejected[]) => Promise<T>,
): Promise<T> {
  try {
    return await write(ndjson, []);
  } catch (err) {
    const split = target.refused(err) ? splitUnholdable(ndjson, target.dialect, target.key) : undefined;
    if (split === undefined) throw err;
    return write(split.kept, split.rejected);
  }
}
