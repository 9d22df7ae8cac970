/**
 * The docs hold together: every relative link of the README and of docs/*.md reaches a file (and,
 * with `#anchor`, one of its headings), and every comment in src/, test/ and scripts/ that cites a
 * page as `(README, "Heading")` or `(docs/<guide>.md, "Heading")` names a heading of that page (or a
 * bold lead-in such as `**Links.**`), so moving a section cannot leave a citation pointing nowhere.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docPages } from '../helpers/doc-examples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** The text of a page's headings, fenced blocks excluded. */
function headings(page: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of read(page).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

describe('links of the README and docs/', () => {
  it.each(docPages(ROOT))('%s: every relative link reaches a file and its heading', (page) => {
    const broken: string[] = [];
    const text = read(page).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [file, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = file === '' ? page : normalize(join(dirname(page), file));
      if (!existsSync(join(ROOT, resolved))) broken.push(`${target!}: no file ${resolved}`);
      else if (anchor !== undefined && !headings(resolved).map(slug).includes(anchor)) broken.push(`${target!}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('citations of the docs in comments', () => {
  const sources = execFileSync('git', ['ls-files', 'src', 'test', 'scripts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    // This file's own comments show the form, with placeholders.
    .filter((f) => /\.(ts|js|cjs|sh)$/.test(f) && f !== 'test/integration/docs-links.test.ts');

  it('every (README, "X") and (docs/<guide>.md, "X") names a heading or bold lead-in of that page', () => {
    const unresolved: string[] = [];
    let cited = 0;
    for (const file of sources) {
      // A comment's lines joined, so a heading broken over two lines is read whole.
      const text = read(file).replace(/\n\s*(\*|\/\/|#)\s?/g, ' ');
      for (const [, page, heading] of text.matchAll(/\b(README|docs\/[\w-]+\.md)\s*(?:,\s*|\(\s*)"([^"]+)"/g)) {
        cited++;
        const path = page === 'README' ? 'README.md' : page!;
        const bold = existsSync(join(ROOT, path)) && read(path).includes(`**${heading!}.**`);
        const found = existsSync(join(ROOT, path)) && headings(path).some((h) => h.startsWith(heading!));
        if (!found && !bold) unresolved.push(`${file}: (${page!}, "${heading!}")`);
      }
    }
    expect(unresolved).toEqual([]);
    // The check reads the citations: the code cites the docs in many places.
    expect(cited).toBeGreaterThan(50);
  });
});
