/**
 * The example programs of docs/library.md are the files CI runs (scripts/example-check.sh): a
 * `<!-- example: PATH -->` marker before a fenced block says which file the block copies, whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const page = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');
const copies = [...page.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)].map((m) => [m[1]!, m[2]!] as const);

describe('docs/library.md copies its example programs whole', () => {
  it('has the PostgreSQL example', () => {
    expect(copies.map(([path]) => path)).toContain('examples/postgres-export/index.ts');
  });

  it.each(copies)('%s', (path, code) => {
    expect(code).toBe(readFileSync(join(ROOT, path), 'utf8'));
  });

  it('CI runs every example of examples/', () => {
    const script = readFileSync(join(ROOT, 'scripts/example-check.sh'), 'utf8');
    for (const [path] of copies) expect(script).toContain(path.split('/')[1]);
  });
});
