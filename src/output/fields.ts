/** `--fields a,b.c` (`taxes.0.amount` indexes an array). Only own properties are read: `a.__proto__.b` never reaches a prototype. */
import { UsageError, hint, option } from '../errors.js';
import { setOwn } from '../json/object.js';

export type FieldPath = readonly string[];

/** @throws {UsageError} (exit 2) for an empty name (`a,,b`, `a.`, `a..b`) or one given twice: an empty or ambiguous column */
export function parseFields(spec: string): string[] {
  const names = spec.split(',').map((s) => s.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') {
      throw new UsageError(`--fields: empty field name in '${spec}'`, {
        hint: hint`give comma-separated names, e.g. ${option('fields', 'id,issuer.rfc,total')}`,
      });
    }
    if (name.split('.').some((segment) => segment === '')) {
      throw new UsageError(`--fields: '${name}' has an empty path segment`, { hint: 'nested fields are written as dot paths, e.g. issuer.rfc' });
    }
    if (seen.has(name)) throw new UsageError(`--fields: '${name}' is listed twice`);
    seen.add(name);
  }
  return names;
}

/** A `__proto__` key read by `JSON.parse` is an own property, and is found. */
export function ownValue(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

export function splitPath(path: string): string[] {
  return path.split('.');
}

/** A leaf copies the value, a branch builds a nested object. */
type ProjectionNode = { key: string; children: ProjectionNode[] | null };

/**
 * The projection of json/ndjson items on `fields`, keys in their order: a missing value is `null`,
 * so every item has the same shape (as jq's `{a, b}`); with both `a` and `a.b`, `a` wins.
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
