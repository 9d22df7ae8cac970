/**
 * `--fields` names that match nothing (README, "Output"): a typo such as `Total` for `total` would
 * otherwise give an empty column or `null` in every item and exit 0. Each name that no item of the
 * first page holding items has is named once through the formatter's `warn`, in every format.
 */
import type { Formatter } from './formatter.js';
import { getPath, splitPath } from './fields.js';
import { addPaths, createPathTree, type PathTree } from './flatten.js';

/** Every path of a tree, branches included (`issuer` and `issuer.rfc`), joined with dots. */
function allPaths(tree: PathTree): string[] {
  const out: string[] = [];
  const walk = (node: PathTree, prefix: string): void => {
    for (const [key, next] of node.children) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      out.push(path);
      walk(next, path);
    }
  };
  walk(tree, '');
  return out;
}

/** The warning for `field`, with the path of the page it differs from only in case, if any. */
function missingMessage(field: string, present: readonly string[]): string {
  const lower = field.toLowerCase();
  const near = present.find((p) => p.toLowerCase() === lower);
  return near === undefined
    ? `--fields: no item of the first page has '${field}'; check the name (keys are case-sensitive, nested keys are dot paths such as issuer.rfc)`
    : `--fields: no item of the first page has '${field}'; did you mean '${near}'?`;
}

/**
 * The names of `fields` that no item of `items` has (a value, `null` included, at that path).
 * @returns one warning a name, in the order of `fields`
 */
export function missingFieldWarnings(fields: readonly string[], items: readonly unknown[]): string[] {
  const missing = fields.filter((field) => {
    const path = splitPath(field);
    return !items.some((item) => getPath(item, path) !== undefined);
  });
  if (missing.length === 0) return [];
  const tree = createPathTree();
  for (const item of items) addPaths(tree, item);
  const present = allPaths(tree);
  return missing.map((field) => missingMessage(field, present));
}

/**
 * `formatter`, which names through `warn` the `fields` that no item of its first page holding items
 * has (once: a page with no items names nothing and leaves the check to the next).
 */
export function withMissingFieldCheck(formatter: Formatter, fields: readonly string[], warn: (message: string) => void): Formatter {
  let checked = false;
  return {
    ...formatter,
    page(items) {
      if (!checked && items.length > 0) {
        checked = true;
        for (const message of missingFieldWarnings(fields, items.values())) warn(message);
      }
      return formatter.page(items);
    },
  };
}
