/**
 * Every `collections …` example of the README and of docs/*.md runs against the sandbox and exits
 * as its page says (docs/README.md, "The examples are tested", states the conventions: which lines
 * run, the `<!-- docs-test: exit N -->` and `<!-- docs-test: skip (why) -->` markers, the
 * placeholders). Each page runs top to bottom in its own temp folder, in process through `main()`
 * on one sandbox and its virtual clock, as the nightly-sync suite runs its exports.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { docBlocks, docCommands, docPages, shellWords, type DocBlock } from '../helpers/doc-examples.js';
import { createWorld, removeTempDirs, runInProcess, START, tempDir, type SandboxWorld, type TempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The sandbox `collections sandbox` starts by default (its key, port and taxpayers), without a rate limit. */
const world: SandboxWorld = createWorld({
  apiKey: 'sandbox-key',
  base: 'http://127.0.0.1:8787',
  sizes: { taxpayers: 4, invoicesPerTaxpayer: 30, paymentsPerTaxpayer: 10, entities: 12, events: 12 },
});
const [first] = world.sandbox.taxpayers() as [string];
/** `$RUN` of the nightly script: `date -u +%Y%m%dT%H%M%SZ` at the sandbox's start. */
const RUN = new Date(START).toISOString().replace(/[-:]|\.\d+/g, '');

/** A word with `/data/…` moved under the page's folder; ids stay as written. */
function substitute(word: string, dir: TempDir): string {
  return word.startsWith('/data/') ? join(dir.path, word.slice(1)) : word;
}

/** A page's temp folder, with what its examples expect to find: `/data/` and `clients.txt`. */
function pageFolder(): TempDir {
  const dir = tempDir('collections-docs-');
  mkdirSync(dir.file('data'));
  writeFileSync(dir.file('clients.txt'), `# the sandbox's taxpayers\n${world.sandbox.taxpayers().join('\n')}\n`);
  return dir;
}

const pages = docPages(ROOT).map((page) => ({ page, blocks: docBlocks(ROOT, page) }));

describe('the examples of the README and docs/', () => {
  it.each(pages.filter((p) => p.blocks.length > 0).map((p) => [p.page, p.blocks] as const))(
    '%s: every collections command exits as the page says',
    async (_page, blocks: DocBlock[]) => {
      const dir = pageFolder();
      const vars = { HOME: dir.path, RFC: first, RUN };
      const outcomes: string[] = [];
      const expected: string[] = [];
      for (const block of blocks.filter((b) => b.skip === undefined)) {
        for (const command of docCommands(block, vars)) {
          const args = command.args.map((a) => substitute(a, dir));
          const r = await runInProcess(world, dir, args, { connectVia: 'env', env: { HOME: dir.path }, stdinText: `${world.key}\n` });
          if (command.stdoutTo !== undefined) {
            const target = substitute(command.stdoutTo, dir);
            const path = target.startsWith('/') ? target : join(dir.path, target);
            mkdirSync(dirname(path), { recursive: true });
            writeFileSync(path, r.stdout);
          }
          const where = `${block.page}:${block.line} ${command.source}`;
          outcomes.push(`${where} → exit ${r.code}${r.code === block.exit ? '' : `\n${r.stderr}`}`);
          expected.push(`${where} → exit ${block.exit}`);
        }
      }
      // One comparison per page, so a failure lists every example that drifted with its stderr.
      expect(outcomes).toEqual(expected);
    },
  );

  it('runs every block that calls collections, and skips only a few, each with a reason', () => {
    const blocks = pages.flatMap((p) => p.blocks);
    const calling = blocks.filter((b) => b.body.some((l) => /^\s*(\$ )?collections( |$)/.test(l)));
    for (const block of calling.filter((b) => b.skip === undefined))
      expect(docCommands(block, { HOME: '/h', RFC: 'R', RUN }).length, `${block.page}:${block.line}`).toBeGreaterThan(0);
    const skipped = blocks.filter((b) => b.skip !== undefined);
    expect(skipped.map((b) => `${b.page}:${b.line} (${b.skip!})`)).toHaveLength(4);
    // The README's own examples run too, not only the guides'.
    expect(calling.filter((b) => b.page === 'README.md' && b.skip === undefined).length).toBeGreaterThan(3);
  });

  it('the RFCs the examples use are taxpayers of the default sandbox, and the one meant to be unknown is not', async () => {
    const dir = pageFolder();
    for (const rfc of ['PEIC211118IS0', 'AAA010101AAA']) {
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', rfc, '--max-items', '1', '-q'], { connectVia: 'env' });
      expect(r.code, r.stderr).toBe(0);
    }
    const unknown = await runInProcess(world, dir, ['invoices', '--taxpayer', 'XAXX010101000', '-q'], { connectVia: 'env' });
    expect(unknown.code).toBe(4);
  });
});

describe('the examples of --help', () => {
  /** Commands whose examples cannot run in a test, as in the docs: a server that runs until Ctrl-C, files in the shell's folders. */
  const SKIPPED = new Set(['sandbox', 'completion']);
  const names = ['invoices', 'line-items', 'payments', 'entities', 'events', 'get', 'ratelimit', 'config', 'verify'];

  it('run against the default sandbox as written (its ids, their ` \\` continuations), in one folder, each exit 0', async () => {
    const dir = pageFolder();
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const command of [[], ...names.filter((n) => !SKIPPED.has(n)).map((n) => [n])]) {
      const help = (await runInProcess(world, dir, [...command, '--help'], { connectVia: 'none' })).stdout;
      const examples = help.slice(help.indexOf('\nExamples:\n'), help.indexOf('\nExit codes:\n')).split('\n');
      const block: DocBlock = { page: `collections ${command.join(' ')} --help`, line: 0, lang: 'console', body: examples, exit: 0 };
      for (const { source, args, stdoutTo } of docCommands(block, { HOME: dir.path, RFC: first, RUN })) {
        // A shell glob (`verify exports/*.manifest.json`) is not expanded here.
        if (SKIPPED.has(args[0]!) || args.some((a) => a.includes('*'))) continue;
        const r = await runInProcess(world, dir, args, { connectVia: 'env', env: { HOME: dir.path }, stdinText: `${world.key}\n` });
        if (stdoutTo !== undefined) writeFileSync(join(dir.path, stdoutTo), r.stdout);
        outcomes.push(`${block.page}: ${source} → exit ${r.code}${r.code === 0 ? '' : `\n${r.stderr}`}`);
        expected.push(`${block.page}: ${source} → exit 0`);
      }
    }
    expect(outcomes.length).toBeGreaterThan(20);
    expect(outcomes).toEqual(expected);
  });
});

describe('shellWords (as much shell as the docs use)', () => {
  const vars = { HOME: '/home/u', RFC: 'D&M750624V8Z', DAY: '2024-04-16' };
  it.each([
    ['collections invoices --taxpayer "$RFC" --out x.csv', ['collections', 'invoices', '--taxpayer', 'D&M750624V8Z', '--out', 'x.csv']],
    [
      "collections invoices --taxpayer 'D&M750624V8Z' --param 'total[gte]=1000'",
      ['collections', 'invoices', '--taxpayer', 'D&M750624V8Z', '--param', 'total[gte]=1000'],
    ],
    [
      'collections x --out "exports/$DAY/{taxpayer}/a.ndjson" --quiet "$@"',
      ['collections', 'x', '--out', 'exports/2024-04-16/{taxpayer}/a.ndjson', '--quiet'],
    ],
    ['collections verify m.json || echo "not whole" >&2', ['collections', 'verify', 'm.json']],
    ['collections completion bash > ~/.bash  # comment', ['collections', 'completion', 'bash', '\0>', '/home/u/.bash']],
    ['collections ratelimit   # check the quota', ['collections', 'ratelimit']],
    ['collections a\\ b "x\\"y" ${DAY}', ['collections', 'a b', 'x"y', '2024-04-16']],
  ])('%s', (line, words) => {
    expect(shellWords(line, vars)).toEqual(words);
  });

  it.each(['collections x < in.txt', 'collections x --out "$(date)"', 'collections x --taxpayer $NOPE', "collections x 'open"])(
    'refuses what it cannot run faithfully: %s',
    (line) => {
      expect(() => shellWords(line, vars)).toThrow();
    },
  );
});
