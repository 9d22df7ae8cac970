/**
 * The arrows of the command-line floors point down: `cli → commands → {export, config, …}`.
 * Nothing in `commands/` imports `cli/`; nothing below `commands/` imports `cli/` or `commands/`;
 * and no import cycle runs through `cli/`, `commands/`, `config/` or `endpoints.ts`. Type-only
 * imports, re-exports and lazy `import()`s count as imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Each source file (relative to src/, `/`-separated) and the source files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = new Set<string>();
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith('.')) continue;
      targets.add(
        relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
          .split('\\')
          .join('/'),
      );
    }
    graph.set(relative(SRC, file).split('\\').join('/'), [...targets]);
  }
  return graph;
}

const floor = (file: string): string => file.split('/')[0]!.replace(/\.ts$/, '');
const OURS = (file: string): boolean => ['cli', 'commands', 'config', 'endpoints'].includes(floor(file));

/** The strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('layering of cli/, commands/, config/ and endpoints.ts', () => {
  const graph = importGraph();
  const edges = [...graph].flatMap(([from, tos]) => tos.map((to) => ({ from, to })));

  it('reads the imports it checks', () => {
    expect(edges.some((e) => e.from === 'cli/program.ts' && e.to === 'commands/export/export.ts')).toBe(true);
    expect(edges.some((e) => e.from === 'export/plan/parts.ts' && e.to === 'config/settings.ts')).toBe(true);
  });

  it('nothing in commands/ imports cli/', () => {
    expect(edges.filter((e) => floor(e.from) === 'commands' && floor(e.to) === 'cli')).toEqual([]);
  });

  it('nothing below commands/ imports cli/ or commands/ (the library door, index.ts and library/, stands above commands/)', () => {
    const up = edges.filter((e) => !['cli', 'commands', 'library', 'index'].includes(floor(e.from)) && ['cli', 'commands'].includes(floor(e.to)));
    expect(up).toEqual([]);
  });

  it('the library door imports no cli/, and only index.ts imports library/', () => {
    expect(edges.filter((e) => ['library', 'index'].includes(floor(e.from)) && floor(e.to) === 'cli')).toEqual([]);
    expect(edges.filter((e) => floor(e.to) === 'library' && !['library', 'index'].includes(floor(e.from)))).toEqual([]);
  });

  it('no import cycle runs through the command-line floors', () => {
    expect(cycles(graph).filter((c) => c.some(OURS))).toEqual([]);
  });
});
