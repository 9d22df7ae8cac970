/**
 * The mutable state of one concrete collection (e.g. `/taxpayers/X/invoices`): the generated base
 * items, items inserted at run time, items deleted at run time, and a byte cache of item JSON.
 *
 * The API order is newest first, i.e. id descending: inserted items (newest) come first, then the
 * generated ones from the highest index down, skipping deleted ones. Updated items keep their
 * place (the order is by id) and get a fresh `updatedAt`. Nothing is materialised for
 * an unfiltered view, so a collection of a million items costs a few words until it is read.
 */
import type { GeneratedCollection, JsonObject } from './data.js';
import { compileFilters, fieldTime, searchVariables } from './filters.js';
import { createDateIndex, type DateIndex } from './date-index.js';
import { createRng, hash32, hashString, uuidV7 } from './random.js';
import { isoDate, withNaiveDates, type DateStyle } from './records/values.js';
import { encodeJson, type WireEncoding } from './wire.js';

/** Depth of a member in a page's JSON (envelope, `member` array, item): where pretty item text is indented. */
const PAGE_MEMBER_DEPTH = 2;

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
  /** Incremented on every insert, update and remove (invalidates filtered views). */
  readonly version: number;
  /** The date fields the collection filters on (`GeneratedCollection.dateFilters`); [] for none. */
  readonly dateFields: readonly string[];
  /** The variables of its `hydra:search` template (sandbox/filters.ts `searchVariables`). */
  readonly search: readonly string[];
  /** The current items in API order, optionally filtered (see sandbox/filters.ts) and ordered by `order[field]`. */
  view(filters?: ReadonlyMap<string, string>): CollectionView;
  /** Whether a current (not deleted) item has this id. */
  has(id: string): boolean;
  /** Base index of a current generated item with this id, or -1 (inserted and deleted ids give -1). */
  baseIndexOf(id: string): number;
  /**
   * Inserts a new item at the front (newest). Its id's timestamp is `max(nowMs, newest + 1)`, so it
   * sorts after every existing id even if the clock is behind the generated data.
   * @param options `updated`: stamp its `updatedAt` (if it has one) with the same time
   * @returns the new item's id
   */
  insert(nowMs: number, options?: { updated?: boolean }): string;
  /**
   * Sets a fresh `updatedAt` (ISO 8601, `nowMs` epoch ms) on the item at `pos` of the full view; the
   * item keeps its place. Items without an `updatedAt` field are left as they are.
   */
  touchAt(pos: number, nowMs: number): void;
  /** Removes an item by id; false when there is none. */
  remove(id: string): boolean;
  /**
   * Adds an item made elsewhere (a deletion's event), at the place its time `ts` (epoch ms) gives
   * among the inserted items, which may be older than the newest (unlike {@link insert}).
   */
  insertObject(id: string, ts: number, obj: JsonObject): void;
  /**
   * Drops every item older than `beforeMs` (epoch ms; generated items by their timestamp, inserted
   * ones by their time), as a service that keeps its events for a while only.
   */
  expire(beforeMs: number): void;
  /** Parsed item at `pos` of a view (for tests and `items()`). */
  parse(view: CollectionView, pos: number): unknown;
}

/** The mutable parts of one collection; see {@link createCollectionState}. */
interface Store {
  readonly base: GeneratedCollection;
  readonly budget: ByteBudget;
  /** Items inserted at run time, oldest first. */
  readonly inserted: Inserted[];
  /** Deleted base indexes at or above {@link floor}, sorted descending. */
  deleted: number[];
  readonly deletedSet: Set<number>;
  /** Cached JSON of base items by index. */
  readonly cache: Array<Buffer | undefined>;
  /** Updated base items by index: the object and its JSON. */
  readonly updated: Map<number, { obj: JsonObject; bytes: Buffer }>;
  /** Filtered views by filter text, valid while `version` matches. */
  readonly filtered: Map<string, { version: number; refs: Int32Array }>;
  /** The dates of the generated items, for range filters. */
  readonly dates: DateIndex;
  /** An item's bytes in the sandbox's wire encoding, at the depth of a page's members. */
  readonly encode: (obj: JsonObject) => Buffer;
  version: number;
  /** Base indexes below it are expired (`expire`): base timestamps grow with the index. */
  floor: number;
}

/** JSON of base item `i`, cached while the budget allows. */
function baseBytes(st: Store, i: number): Buffer {
  const hit = st.updated.get(i)?.bytes ?? st.cache[i];
  if (hit !== undefined) return hit;
  const buf = st.encode(st.base.item(i));
  if (st.budget.used + buf.length <= st.budget.limitBytes) {
    st.budget.used += buf.length;
    st.cache[i] = buf;
  }
  return buf;
}

/** Base item `i` as an object, updated or generated. */
function baseObject(st: Store, i: number): JsonObject {
  return st.updated.get(i)?.obj ?? st.base.item(i);
}

/** `obj` with `updatedAt` set to `nowMs` (ISO 8601), the key staying in place; unchanged without one. */
function stamped(obj: JsonObject, nowMs: number): JsonObject {
  return 'updatedAt' in obj ? { ...obj, updatedAt: isoDate(nowMs) } : obj;
}

/** Base index of the p-th (0-based) generated item in API order, skipping deleted ones. */
function baseAt(st: Store, p: number): number {
  let idx = st.base.count - 1 - p;
  for (const d of st.deleted) {
    if (d >= idx) idx--;
    else break;
  }
  return idx;
}

/** Binary search on the ascending base ids; -1 when absent. */
function findBase(base: GeneratedCollection, id: string): number {
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
}

/** Base index of a current (not deleted) generated item, or -1. */
function baseIndexOfCurrent(st: Store, id: string): number {
  const i = findBase(st.base, id);
  return i >= st.floor && !st.deletedSet.has(i) ? i : -1;
}

/** Every current item: inserted ones (newest first), then the generated ones. */
function fullView(st: Store): CollectionView {
  const { inserted, base } = st;
  const n = inserted.length;
  return {
    length: n + base.count - st.floor - st.deleted.length,
    id: (pos) => (pos < n ? inserted[n - 1 - pos]!.id : base.id(baseAt(st, pos - n))),
    bytes: (pos) => (pos < n ? inserted[n - 1 - pos]!.bytes : baseBytes(st, baseAt(st, pos - n))),
  };
}

/** `refs` ordered by the time of `field` (`desc`: newest first); ties keep their order (id descending). */
function orderRefs(st: Store, refs: number[], field: string, desc: boolean): number[] {
  const time = (r: number): number => fieldTime(r < 0 ? st.inserted[-r - 1]!.obj : baseObject(st, r), field);
  const keyed = refs.map((r) => ({ r, t: time(r) }));
  keyed.sort((a, b) => (desc ? b.t - a.t : a.t - b.t));
  return keyed.map((k) => k.r);
}

/**
 * The current items that pass the filters (sandbox/filters.ts), in API order or `order[field]`'s.
 * The matching positions are computed once per filter set and collection version: inserted items
 * as `-(k + 1)`, base items as their index.
 */
function filteredView(st: Store, filters: ReadonlyMap<string, string>): CollectionView {
  const { inserted, base } = st;
  const cacheKey = [...filters].map(([k, v]) => `${k}=${v}`).join('&');
  let entry = st.filtered.get(cacheKey);
  if (!entry || entry.version !== st.version) {
    const { matches, order, exact, inRanges } = compileFilters(filters);
    let refs: number[] = [];
    for (let k = inserted.length - 1; k >= 0; k--) if (matches(inserted[k]!.obj)) refs.push(-(k + 1));
    for (let i = base.count - 1; i >= st.floor; i--) {
      if (st.deletedSet.has(i)) continue;
      const updated = st.updated.get(i);
      // A generated item is only built when its dates pass (or no date range is asked).
      const pass = updated ? matches(updated.obj) : inRanges((f) => st.dates.time(f, i)) && (!exact || matches(base.item(i)));
      if (pass) refs.push(i);
    }
    if (order) refs = orderRefs(st, refs, order.field, order.desc);
    entry = { version: st.version, refs: Int32Array.from(refs) };
    st.filtered.set(cacheKey, entry);
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
      return r < 0 ? inserted[-r - 1]!.bytes : baseBytes(st, r);
    },
  };
}

/** Removes an item by id (inserted or generated); false when there is none. */
function removeItem(st: Store, id: string): boolean {
  const k = st.inserted.findIndex((x) => x.id === id);
  if (k >= 0) {
    st.inserted.splice(k, 1);
    st.version++;
    return true;
  }
  const i = baseIndexOfCurrent(st, id);
  if (i < 0) return false;
  st.deletedSet.add(i);
  st.deleted.push(i);
  st.deleted.sort((a, b) => b - a);
  st.version++;
  return true;
}

/** Inserts `item` among the inserted items (oldest first) after every one not newer than it. */
function insertByTime(st: Store, item: Inserted): void {
  let k = st.inserted.length;
  while (k > 0 && st.inserted[k - 1]!.ts > item.ts) k--;
  st.inserted.splice(k, 0, item);
  st.version++;
}

/** Drops the items older than `beforeMs` (see {@link CollectionState.expire}). */
function expireItems(st: Store, beforeMs: number): void {
  const { base, inserted } = st;
  let gone = 0;
  while (gone < inserted.length && inserted[gone]!.ts < beforeMs) gone++;
  const floor = st.floor;
  while (st.floor < base.count && base.timestamp(st.floor) < beforeMs) st.floor++;
  if (gone === 0 && st.floor === floor) return;
  inserted.splice(0, gone);
  st.deleted = st.deleted.filter((d) => d >= st.floor);
  st.version++;
}

/**
 * Creates the state of a collection.
 * @param key stable name of the collection (seeds inserted ids), e.g. `invoices:DMO140312KT5`
 * @param budget bytes of item JSON that may be cached, shared by every collection
 * @param wire how item bytes are written (sandbox/wire.ts); `dates` how their dates are (the items keep ISO 8601 for the filters)
 */
export function createCollectionState(
  key: string,
  base: GeneratedCollection,
  budget: ByteBudget,
  seed: number,
  wire: WireEncoding = 'apiplatform',
  dates: DateStyle = 'iso',
): CollectionState {
  const depth = wire === 'pretty' ? PAGE_MEMBER_DEPTH : 0;
  const st: Store = {
    base,
    budget,
    inserted: [],
    deleted: [],
    deletedSet: new Set(),
    cache: [],
    updated: new Map(),
    filtered: new Map(),
    dates: createDateIndex(base),
    encode: (obj) => Buffer.from(encodeJson(dates === 'naive' ? withNaiveDates(obj) : obj, wire, depth)),
    version: 0,
    floor: 0,
  };
  let serial = 0;
  const keyHash = hashString(key);

  return {
    key,
    context: base.context,
    get version() {
      return st.version;
    },
    dateFields: base.dateFilters ?? [],
    search: searchVariables(base),
    view: (filters) => (filters && filters.size > 0 ? filteredView(st, filters) : fullView(st)),
    has: (id) => st.inserted.some((x) => x.id === id) || baseIndexOfCurrent(st, id) >= 0,
    baseIndexOf: (id) => baseIndexOfCurrent(st, id),
    insert(nowMs, options = {}) {
      const { inserted } = st;
      const newest = inserted.length > 0 ? inserted[inserted.length - 1]!.ts : base.count > 0 ? base.timestamp(base.count - 1) : 0;
      const ts = Math.max(Math.floor(nowMs), newest + 1);
      const rng = createRng(hash32(seed, keyHash, serial, 77));
      const id = uuidV7(ts, rng.u32(), rng.u32(), rng.u32());
      const made = base.make(id, ts, serial);
      const obj = options.updated ? stamped(made, ts) : made;
      serial++;
      inserted.push({ id, ts, obj, bytes: st.encode(obj) });
      st.version++;
      return id;
    },
    touchAt(pos, nowMs) {
      const n = st.inserted.length;
      if (pos < n) {
        const item = st.inserted[n - 1 - pos]!;
        item.obj = stamped(item.obj, nowMs);
        item.bytes = st.encode(item.obj);
      } else {
        const i = baseAt(st, pos - n);
        const obj = stamped(baseObject(st, i), nowMs);
        st.updated.set(i, { obj, bytes: st.encode(obj) });
      }
      st.version++;
    },
    remove: (id) => removeItem(st, id),
    insertObject: (id, ts, obj) => insertByTime(st, { id, ts, obj, bytes: st.encode(obj) }),
    expire: (beforeMs) => expireItems(st, beforeMs),
    parse: (view, pos) => JSON.parse(view.bytes(pos).toString('utf8')) as unknown,
  };
}
