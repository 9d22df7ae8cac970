import { setOwn } from '../../src/json/object.js';
import { addPaths, compileAccessor, createPathTree, toCell, treePaths } from '../../src/output/flatten.js';

/** One item as `{ 'dot.path': cellText }` in column order, outside the hot path. */
export function flatten(item: unknown): Record<string, string> {
  const tree = createPathTree();
  addPaths(tree, item);
  const out: Record<string, string> = {};
  for (const path of treePaths(tree, 'leaf')) setOwn(out, path.join('.'), toCell(compileAccessor(path)(item)));
  return out;
}
