/**
 * Flattening of nested items into cells for csv and table (README, "Output"): nested objects
 * become dot-path columns (`issuer.rfc`), arrays become JSON text, null and missing values an empty
 * cell, booleans `true`/`false`, numbers as the server wrote them (a json/json-value.ts
 * `JsonNumber` is a scalar holding its literal).
 */
import { ownValue, setOwn, type FieldPath } from './fields.js';
import { JsonNumber, writeJson } from '../json/json-value.js';

/** True for a JSON object (not null, not an array, not a number kept as its literal). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/**
 * The text of one cell: `''` for null/undefined, the string itself, the literal of a number as the
 * server wrote it (`9007199254740993`, `1.0`, `1.25E-2`: a `JsonNumber`; any other number's
 * literal is `String(n)`), `true`/`false`, and JSON text for arrays and objects, number literals
 * kept (an object lands in a cell only when a column names it, e.g. `--fields issuer`, or when the
 * path is an object in some items and a scalar in others).
 */
export function toCell(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'undefined':
      return '';
    default:
      return value === null ? '' : value instanceof JsonNumber ? value.toString() : writeJson(value);
  }
}

/**
 * Whether reading `key` off a parsed JSON object or array can find only an own property: neither
 * `Object.prototype` nor `Array.prototype` has it (`constructor`, `length`, `__proto__` and the like
 * go through {@link ownValue}).
 */
function ownOnly(key: string): boolean {
  return !(key in Object.prototype) && !(key in Array.prototype);
}

/** The accessor of one path segment: a plain property read when {@link ownOnly}, else {@link ownValue}. */
function segmentAccessor(key: string): (value: unknown) => unknown {
  if (!ownOnly(key)) return (value) => ownValue(value, key);
  return (value) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);
}

/**
 * Compiles a path into an accessor once, so rows do not re-split paths (the CSV hot path). Only own
 * properties are followed ({@link ownValue}); a key no prototype of a JSON value has is read
 * directly, which finds the same.
 * @returns a function giving the value at `path` in an item, or `undefined`
 */
export function compileAccessor(path: FieldPath): (item: unknown) => unknown {
  const getters = path.map(segmentAccessor);
  if (getters.length === 1) return getters[0] as (item: unknown) => unknown;
  if (getters.length === 2) {
    const [a, b] = getters as [(v: unknown) => unknown, (v: unknown) => unknown];
    return (item) => b(a(item));
  }
  return (item) => {
    let v: unknown = item;
    for (const get of getters) {
      if (typeof v !== 'object' || v === null) return undefined;
      v = get(v);
    }
    return v;
  };
}

/**
 * A tree of the leaf paths seen so far. A node is a column (`leaf`) when some item had a scalar,
 * null, array or empty object there, and has children when some item had a non-empty object there;
 * both can hold when items disagree (an embedded object in one, an IRI string in another).
 */
export interface PathTree {
  /** Children in first-seen order (Map keeps insertion order). */
  children: Map<string, PathTree>;
  /** A column exists for this path. */
  leaf: boolean;
  /** Named once in a warning already (a path first seen after the header was written). */
  warned: boolean;
}

/** An empty {@link PathTree}. */
export function createPathTree(): PathTree {
  return { children: new Map(), leaf: false, warned: false };
}

function child(node: PathTree, key: string): PathTree {
  let next = node.children.get(key);
  if (next === undefined) {
    next = createPathTree();
    node.children.set(key, next);
  }
  return next;
}

/** True when the value is recursed into rather than being a cell of its own. */
function isBranch(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  for (const _key in value) return true;
  return false;
}

/**
 * Adds the leaf paths of one item to `tree` (column discovery on the first page).
 * @param item a parsed JSON item; a non-object item contributes nothing
 */
export function addPaths(tree: PathTree, item: unknown): void {
  if (!isPlainObject(item)) return;
  for (const key of Object.keys(item)) {
    const value = item[key];
    const node = child(tree, key);
    if (isBranch(value)) addPaths(node, value);
    else node.leaf = true;
  }
}

/**
 * The columns of a tree, depth first: at each level keys keep their first-seen order, a path's own
 * column comes before those of its children, so `issuer.rfc` and `issuer.name` stay together.
 */
export function treeColumns(tree: PathTree): string[][] {
  const out: string[][] = [];
  const walk = (node: PathTree, prefix: string[]): void => {
    for (const [key, next] of node.children) {
      const path = [...prefix, key];
      if (next.leaf) out.push(path);
      walk(next, path);
    }
  };
  walk(tree, []);
  return out;
}

/** Builds the tree whose columns are `columns` (used on resume, and for warned paths). */
export function treeFromPaths(columns: readonly FieldPath[], warned: readonly FieldPath[] = []): PathTree {
  const tree = createPathTree();
  const mark = (path: FieldPath, flag: 'leaf' | 'warned'): void => {
    let node = tree;
    for (const segment of path) node = child(node, segment);
    node[flag] = true;
  };
  for (const path of columns) mark(path, 'leaf');
  for (const path of warned) mark(path, 'warned');
  return tree;
}

/**
 * Finds the leaf paths of `item` that have no column in `tree` (keys first seen after the header
 * was written) and have not been reported yet; marks them so each is reported once.
 * A value that is an object where the column holds scalars is not reported: it lands in the
 * column as JSON text. A scalar where only sub-columns exist is reported: it has no column.
 * Null, missing and empty values are never reported (they would be empty cells anyway).
 * @returns the new paths, in the order met
 */
export function findNewPaths(tree: PathTree, item: unknown): string[][] {
  const found: string[][] = [];
  const walk = (node: PathTree, obj: Record<string, unknown>, prefix: string[]): void => {
    for (const key in obj) {
      const value = obj[key];
      const next = node.children.get(key);
      if (next !== undefined && next.leaf) continue;
      if (isBranch(value)) {
        walk(next ?? child(node, key), value, prefix.length === 0 ? [key] : [...prefix, key]);
      } else if (value !== null && value !== undefined) {
        const target = next ?? child(node, key);
        if (!target.warned) {
          target.warned = true;
          found.push([...prefix, key]);
        }
      }
    }
  };
  if (isPlainObject(item)) walk(tree, item, []);
  return found;
}

/** All paths marked as warned in a tree, for the formatter's state. */
export function warnedPaths(tree: PathTree): string[][] {
  const out: string[][] = [];
  const walk = (node: PathTree, prefix: string[]): void => {
    for (const [key, next] of node.children) {
      const path = [...prefix, key];
      if (next.warned) out.push(path);
      walk(next, path);
    }
  };
  walk(tree, []);
  return out;
}

/**
 * Flattens one item to `{ 'dot.path': cellText }` in column order (a convenience for tests and for
 * callers outside the hot path; the CSV formatter compiles accessors instead).
 */
export function flatten(item: unknown): Record<string, string> {
  const tree = createPathTree();
  addPaths(tree, item);
  const out: Record<string, string> = {};
  for (const path of treeColumns(tree)) setOwn(out, path.join('.'), toCell(compileAccessor(path)(item)));
  return out;
}
