/**
 * `--fields a,b.c`: parsing, dot-path lookup and the projection of json/ndjson items
 * (README, "Export options" and "Output"). A dot path names a key at each level of nested objects; a
 * numeric segment also indexes an array (`taxes.0.amount`), since arrays are objects in JSON.
 */
import { UsageError } from '../errors.js';

/** A dot path split into its segments: `issuer.rfc` → `['issuer', 'rfc']`. */
export type FieldPath = readonly string[];

/**
 * Parses the value of `--fields`: comma-separated dot paths, each trimmed.
 * @param spec e.g. `id, issuer.rfc ,total`
 * @returns the paths in the given order, e.g. `['id', 'issuer.rfc', 'total']`
 * @throws {UsageError} (exit 2) on an empty list, an empty name (`a,,b`, `a.`, `.b`, `a..b`) or a
 *   name given twice, since each would make an ambiguous or empty column.
 */
export function parseFields(spec: string): string[] {
  const names = spec.split(',').map((s) => s.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') {
      throw new UsageError(`--fields: empty field name in '${spec}'`, { hint: 'give comma-separated names, e.g. --fields id,issuer.rfc,total' });
    }
    if (name.split('.').some((segment) => segment === '')) {
      throw new UsageError(`--fields: '${name}' has an empty path segment`, { hint: 'nested fields are written as dot paths, e.g. issuer.rfc' });
    }
    if (seen.has(name)) throw new UsageError(`--fields: '${name}' is listed twice`);
    seen.add(name);
  }
  return names;
}

/**
 * The own property `key` of a parsed JSON value, or `undefined`: never an inherited one, so field
 * names such as `constructor`, `toString` or `__proto__` find only what the data holds (a
 * `__proto__` key read by `JSON.parse` is an own property and is found).
 */
export function ownValue(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/** Splits a dot path into segments (`'a.b'` → `['a', 'b']`). */
export function splitPath(path: string): string[] {
  return path.split('.');
}

/**
 * The value at a dot path, or `undefined` when any step is missing or is not an object. Only own
 * properties are followed: `constructor` or `a.__proto__.b` never reach an object's prototype.
 * @param obj a parsed JSON item
 * @param path `'issuer.rfc'` or its segments `['issuer', 'rfc']`
 */
export function getPath(obj: unknown, path: string | FieldPath): unknown {
  const segments = typeof path === 'string' ? splitPath(path) : path;
  let value: unknown = obj;
  for (const segment of segments) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = ownValue(value, segment);
  }
  return value;
}

/**
 * Sets `key` on `obj` as an own, enumerable property, even `__proto__` (which plain assignment
 * would take as the object's prototype), so a projected or flattened item keeps every field it names.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** A node of a compiled projection: a leaf copies the value, a branch builds a nested object. */
type ProjectionNode = { key: string; children: ProjectionNode[] | null };

/**
 * Compiles `fields` once into a function that projects an item onto them (for json/ndjson, where
 * `--fields` selects what is written). The result is a nested object whose keys follow the order of
 * `fields` (by first segment, then within each level). A missing value is written as `null`, so
 * every projected item has the same shape (as jq's `{a, b}` does). When both `a` and `a.b` are
 * listed, `a` wins: it already holds `a.b`. Field names are plain keys: only own properties are
 * read, and `__proto__` is written as an own key like any other.
 * @param fields dot paths, e.g. from {@link parseFields}
 */
export function compileProjection(fields: readonly string[]): (item: unknown) => Record<string, unknown> {
  const root: ProjectionNode[] = [];
  for (const field of fields) {
    const segments = splitPath(field);
    let level = root;
    for (let i = 0; i < segments.length; i++) {
      const key = segments[i] as string;
      const last = i === segments.length - 1;
      let node = level.find((n) => n.key === key);
      if (node === undefined) {
        node = { key, children: last ? null : [] };
        level.push(node);
      } else if (last) {
        node.children = null;
      }
      if (node.children === null) break;
      level = node.children;
    }
  }
  const build = (nodes: readonly ProjectionNode[], source: unknown): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const node of nodes) {
      const value = ownValue(source, node.key);
      setOwn(out, node.key, node.children === null ? (value === undefined ? null : value) : build(node.children, value));
    }
    return out;
  };
  return (item) => build(root, item);
}

/**
 * Projects one item onto `fields` (see {@link compileProjection}; compile once for many items).
 * @example project({ id: 1, issuer: { rfc: 'X', name: 'Y' } }, ['issuer.rfc', 'id']) → { issuer: { rfc: 'X' }, id: 1 }
 */
export function project(item: unknown, fields: readonly string[]): Record<string, unknown> {
  return compileProjection(fields)(item);
}
