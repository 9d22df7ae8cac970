/**
 * The mutable state of one concrete collection (e.g. `/taxpayers/X/invoices`): the generated base
 * items, items inserted at run time, items deleted at run time, and a byte cache of item JSON.
 *
 * The API order is newest first, i.e. id descending: inserted items (newest) come first, then the
 * generated ones from the highest index down, skipping deleted ones. Nothing is materialised for
 * an unfiltered view, so a collection of a million items costs a few words until it is read.
 */
import type { GeneratedCollection, JsonObject } from './data.js';
import { createRng, hash32, hashString, uuidV7 } from './random.js';

/**
 * A shared budget for cached item bytes. Items are cached as UTF-8 Buffers (outside the V8 heap)
 * until `limitBytes` is used up; after that they are rebuilt on every read.
 */
export interface ByteBudget {
  /** Bytes in use. */
  used: number;
  /** Maximum bytes (default 2 GiB in the sandbox). */
  readonly limitBytes: number;
}

/** An ordered, read-only list of items: position 0 is the newest. */
export interface CollectionView {
  readonly length: number;
  /** Id of the item at `pos`. */
  id(pos: number): string;
  /** JSON text of the item at `pos`, UTF-8. */
  bytes(pos: number): Buffer;
}

interface Inserted {
  id: string;
  ts: number;
  bytes: Buffer;
  obj: JsonObject;
}

/** One collection's current state; see the module comment. */
export interface CollectionState {
  readonly key: string;
  readonly context: string;
  /** Incremented on every insert and remove (invalidates filtered views). */
  readonly version: number;
  /** The current items in API order, optionally filtered by exact field values. */
  view(filters?: ReadonlyMap<string, string>): CollectionView;
  /** Whether a current (not deleted) item has this id. */
  has(id: string): boolean;
  /** Base index of a current generated item with this id, or -1 (inserted and deleted ids give -1). */
  baseIndexOf(id: string): number;
  /**
   * Inserts a new item at the front (newest). Its id's timestamp is `max(nowMs, newest + 1)`, so it
   * sorts after every existing id even if the clock is behind the generated data.
   * @returns the new item's id
   */
  insert(nowMs: number): string;
  /** Removes an item by id; false when there is none. */
  remove(id: string): boolean;
  /** Parsed item at `pos` of a view (for tests and `items()`). */
  parse(view: CollectionView, pos: number): unknown;
}

/** Filterable names this collection knows, from the query parameters; unknown ones are dropped (real-service.md). */
export function pickFilters(base: GeneratedCollection, params: URLSearchParams): Map<string, string> {
  const filters = new Map<string, string>();
  for (const name of base.filters) {
    const value = params.get(name);
    if (value !== null) filters.set(name, value);
  }
  return filters;
}

/**
 * Creates the state of a collection.
 * @param key stable name of the collection (seeds inserted ids), e.g. `invoices:DMO140312KT5`
 * @param seed the sandbox seed
 */
export function createCollectionState(
  key: string,
  base: GeneratedCollection,
  budget: ByteBudget,
  seed: number,
): CollectionState {
  const inserted: Inserted[] = [];
  /** Deleted base indexes, sorted descending. */
  const deleted: number[] = [];
  const deletedSet = new Set<number>();
  const cache: Array<Buffer | undefined> = [];
  let version = 0;
  let serial = 0;
  const keyHash = hashString(key);
  const filtered = new Map<string, { version: number; refs: Int32Array }>();

  const baseBytes = (i: number): Buffer => {
    const hit = cache[i];
    if (hit !== undefined) return hit;
    const buf = Buffer.from(JSON.stringify(base.item(i)));
    if (budget.used + buf.length <= budget.limitBytes) {
      budget.used += buf.length;
      cache[i] = buf;
    }
    return buf;
  };

  /** Base index of the p-th (0-based) generated item in API order, skipping deleted ones. */
  const baseAt = (p: number): number => {
    let idx = base.count - 1 - p;
    for (const d of deleted) {
      if (d >= idx) idx--;
      else break;
    }
    return idx;
  };

  /** Binary search on the ascending base ids; -1 when absent. */
  const findBase = (id: string): number => {
    let lo = 0;
    let hi = base.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = base.id(mid);
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  const fullView = (): CollectionView => {
    const n = inserted.length;
    return {
      length: n + base.count - deleted.length,
      id: (pos) => (pos < n ? inserted[n - 1 - pos]!.id : base.id(baseAt(pos - n))),
      bytes: (pos) => (pos < n ? inserted[n - 1 - pos]!.bytes : baseBytes(baseAt(pos - n))),
    };
  };

  const filteredView = (filters: ReadonlyMap<string, string>): CollectionView => {
    const cacheKey = [...filters].map(([k, v]) => `${k}=${v}`).join('&');
    let entry = filtered.get(cacheKey);
    if (!entry || entry.version !== version) {
      const matches = (obj: JsonObject): boolean => {
        for (const [k, v] of filters) if (String(obj[k]) !== v) return false;
        return true;
      };
      const refs: number[] = [];
      for (let k = inserted.length - 1; k >= 0; k--) if (matches(inserted[k]!.obj)) refs.push(-(k + 1));
      for (let i = base.count - 1; i >= 0; i--) if (!deletedSet.has(i) && matches(base.item(i))) refs.push(i);
      entry = { version, refs: Int32Array.from(refs) };
      filtered.set(cacheKey, entry);
    }
    const refs = entry.refs;
    return {
      length: refs.length,
      id: (pos) => {
        const r = refs[pos]!;
        return r < 0 ? inserted[-r - 1]!.id : base.id(r);
      },
      bytes: (pos) => {
        const r = refs[pos]!;
        return r < 0 ? inserted[-r - 1]!.bytes : baseBytes(r);
      },
    };
  };

  return {
    key,
    context: base.context,
    get version() {
      return version;
    },
    view: (filters) => (filters && filters.size > 0 ? filteredView(filters) : fullView()),
    has: (id) => inserted.some((x) => x.id === id) || baseIndexOfCurrent(id) >= 0,
    baseIndexOf: (id) => baseIndexOfCurrent(id),
    insert(nowMs) {
      const newest = inserted.length > 0 ? inserted[inserted.length - 1]!.ts : base.count > 0 ? base.timestamp(base.count - 1) : 0;
      const ts = Math.max(Math.floor(nowMs), newest + 1);
      const rng = createRng(hash32(seed, keyHash, serial, 77));
      const id = uuidV7(ts, rng.u32(), rng.u32(), rng.u32());
      const obj = base.make(id, ts, serial);
      serial++;
      inserted.push({ id, ts, obj, bytes: Buffer.from(JSON.stringify(obj)) });
      version++;
      return id;
    },
    remove(id) {
      const k = inserted.findIndex((x) => x.id === id);
      if (k >= 0) {
        inserted.splice(k, 1);
        version++;
        return true;
      }
      const i = baseIndexOfCurrent(id);
      if (i < 0) return false;
      deletedSet.add(i);
      deleted.push(i);
      deleted.sort((a, b) => b - a);
      version++;
      return true;
    },
    parse: (view, pos) => JSON.parse(view.bytes(pos).toString('utf8')) as unknown,
  };

  function baseIndexOfCurrent(id: string): number {
    const i = findBase(id);
    return i >= 0 && !deletedSet.has(i) ? i : -1;
  }
}

/**
 * Smallest position in `[0, view.length]` whose id is below `id` (`strict`) or at most `id`;
 * `view.length` when there is none. Ids descend with position, so this is a binary search.
 */
export function firstPositionBelow(view: CollectionView, id: string, strict: boolean): number {
  let lo = 0;
  let hi = view.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = view.id(mid);
    if (strict ? v < id : v <= id) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
