/** Nested items as cells for csv and table: nested objects become dot-path columns (`issuer.rfc`). */
import { ownValue, type FieldPath } from './fields.js';
import { JsonNumber, writeJson } from '../json/json-value.js';

/** A JSON object: not null, an array, or a number kept as its literal. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/** `''` for null and undefined; JSON text, number literals kept, for arrays and objects. */
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
 * A plain property read, unless a prototype of a JSON value has `key` (`constructor`, `length`,
 * `__proto__`, a kept literal's `toJSON`): that one goes through {@link ownValue}.
 */
function segmentAccessor(key: string): (value: unknown) => unknown {
  if (key in Object.prototype || key in Array.prototype || key in JsonNumber.prototype) return (value) => ownValue(value, key);
  return (value) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);
}

/** The value at `path` in an item (own properties only), compiled once: the CSV hot path. */
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
 * The paths seen so far: a node is a column (`leaf`) when some item had a scalar, null, array or
 * empty object there, and has children when some item had a non-empty object there; both when
 * items disagree (an embedded object in one, an IRI string in another).
 */
export interface PathTree {
  /** In first-seen order. */
  children: Map<string, PathTree>;
  leaf: boolean;
  /** Named in a warning already (first seen after the header was written). */
  warned: boolean;
}

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

function isBranch(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  for (const _key in value) return true;
  return false;
}

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
 * The paths of the nodes marked `flag` (all without), depth first: keys in first-seen order, a path
 * before its children, so `issuer.rfc` and `issuer.name` stay together.
 */
export function treePaths(tree: PathTree, flag?: 'leaf' | 'warned'): string[][] {
  const out: string[][] = [];
  const walk = (node: PathTree, prefix: string[]): void => {
    for (const [key, next] of node.children) {
      const path = [...prefix, key];
      if (flag === undefined || next[flag]) out.push(path);
      walk(next, path);
    }
  };
  walk(tree, []);
  return out;
}

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
 * The paths of `item` without a column, not reported yet, marked so each is reported once. An
 * object where the column holds scalars lands in it as JSON text; a scalar where only sub-columns
 * exist has none. Null, missing and empty values would be empty cells anyway.
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
