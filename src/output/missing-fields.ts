/**
 * `--fields` names that match nothing: a typo such as `Total` would otherwise give an empty column
 * or `null` in every item and exit 0.
 */
import type { Formatter } from './formatter.js';
import { getPath, splitPath } from './fields.js';
import { addPaths, createPathTree, treePaths } from './flatten.js';

/** With the path it differs from only in case, if any. */
function missingMessage(field: string, present: readonly string[]): string {
  const lower = field.toLowerCase();
  const near = present.find((p) => p.toLowerCase() === lower);
  return near === undefined
    ? `--fields: no item of the first page has '${field}'; check the name (keys are case-sensitive, nested keys are dot paths such as issuer.rfc)`
    : `--fields: no item of the first page has '${field}'; did you mean '${near}'?`;
}

/** A warning for each name no item has (a value, `null` included, at that path), in the order of `fields`. */
export function missingFieldWarnings(fields: readonly string[], items: readonly unknown[]): string[] {
  const missing = fields.filter((field) => {
    const path = splitPath(field);
    return !items.some((item) => getPath(item, path) !== undefined);
  });
  if (missing.length === 0) return [];
  const tree = createPathTree();
  for (const item of items) addPaths(tree, item);
  const present = treePaths(tree).map((path) => path.join('.'));
  return missing.map((field) => missingMessage(field, present));
}

/** `formatter`, checking the first page that holds items. */
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
