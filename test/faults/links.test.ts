/**
 * The fault table (README, "Test"; rows in scripts/faults-report.js): links. A `hydra:next` or a redirect that leaves the origin must
 * not receive anything (the in-process fetch records every request to another origin, with its
 * headers); a looping next stops at once without duplicates; key styles and link forms do not
 * change a byte of the output; cursor mode survives inserts and deletes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, idsOfNdjson, removeTempDirs } from '../helpers/world.js';
import { report, runScenario, type ScenarioOutcome } from './harness.js';
import { lostAndDuplicated } from './measures.js';
import type { FaultRule } from '../../src/sandbox/faults.js';

const CURSOR = ['--cursor', '--items-per-page', '10'];
const OFFSET = ['--items-per-page', '10', '--concurrency', '4'];
const SEQUENTIAL = ['--items-per-page', '10', '--concurrency', '1'];

let clean: Record<'cursor' | 'offset', ScenarioOutcome>;
beforeAll(async () => {
  clean = { cursor: await runScenario({ args: CURSOR }), offset: await runScenario({ args: OFFSET }) };
});
afterAll(removeTempDirs);

/** Whether `text` is the clean output cut after a whole number of pages (10 items each). */
function isCleanPrefix(text: string, mode: 'cursor' | 'offset'): boolean {
  const ids = idsOfNdjson(text);
  return ids.length % 10 === 0 && clean[mode].stdout.startsWith(text);
}

describe('hydra:next to another host, port or scheme; //evil/; userinfo tricks; a 302 elsewhere', () => {
  const nexts: Array<[string, FaultRule]> = [
    ['next to another host', { kind: 'foreign-next', url: 'http://evil.test/' }],
    ['next to localhost (another host name)', { kind: 'foreign-next', url: 'http://localhost:8080/' }],
    ['next to another port', { kind: 'foreign-next', url: 'http://127.0.0.1:9999/' }],
    ['next to https on the same host and port', { kind: 'foreign-next', url: 'https://127.0.0.1:8080/' }],
    ['next to //evil/ (scheme-relative)', { kind: 'foreign-next', link: '//evil.test/taxpayers/x/invoices?page=2' }],
    ['next to /\\evil/ (backslash)', { kind: 'foreign-next', link: '/\\evil.test/taxpayers/x/invoices?page=2' }],
    ['next with userinfo hiding the host', { kind: 'foreign-next', link: 'http://127.0.0.1:8080@evil.test/taxpayers/x/invoices' }],
    ['next with userinfo on the same origin', { kind: 'foreign-next', link: 'http://user:secret@127.0.0.1:8080/taxpayers/x/invoices' }],
    ['next to file:///etc/passwd', { kind: 'foreign-next', link: 'file:///etc/passwd' }],
    ['302 to another host', { kind: 'redirect', url: 'http://evil.test/' }],
    ['302 to another port', { kind: 'redirect', url: 'http://127.0.0.1:9999/' }],
    ['302 to https', { kind: 'redirect', url: 'https://127.0.0.1:8080/' }],
  ];
  const cases = [
    ...nexts.map(([name, rule]) => [name, 'cursor', CURSOR, { ...rule, pages: 2 }] as const),
    ...nexts.map(([name, rule]) => [name, 'offset', OFFSET, { ...rule, pages: 1 }] as const),
    ...nexts.map(([name, rule]) => [name, 'offset, sequential', SEQUENTIAL, { ...rule, pages: 3 }] as const),
  ];
  it.each(cases)('%s (%s): the other origin receives nothing, exit 6', async (name, mode, args, rule) => {
    const r = await runScenario({ args: [...args], faults: [rule] });
    const cleanMode = mode === 'cursor' ? 'cursor' : 'offset';
    const { duplicated } = lostAndDuplicated([], idsOfNdjson(r.stdout));
    const row = report(
      {
        fault: 'hydra:next to another host, port or scheme; //evil/; userinfo tricks; a 302 elsewhere',
        mode: `${name}, ${mode}`,
        expected: 'the other origin receives nothing; exit 6',
        lost: 0,
        duplicated,
        early: 0,
        max429: 0,
        foreign: r.foreign.length,
        exit: r.code,
      },
      {
        exit6: r.code === 6,
        nothingElsewhere: r.foreign.length === 0,
        noRequestAfter: r.requests.length === (rule.pages as number),
        prefix: isCleanPrefix(r.stdout, cleanMode),
        refusedClearly: /refusing/.test(r.stderr),
        noSecrets: !r.stderr.includes(CANARY) && !r.stderr.includes('secret'),
      },
    );
    expect(row.failed).toEqual([]);
  });

  it('offset, concurrency 4: a bad next on a middle page is never used (pages are built from numbers); the export completes', async () => {
    const r = await runScenario({ args: OFFSET, faults: [{ kind: 'foreign-next', url: 'http://evil.test/', pages: 3 }] });
    expect(r.foreign).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.offset.stdout);
  });
});

describe('next pointing to itself or to an earlier page', () => {
  const cases = [
    ['next to itself', 'cursor', CURSOR, 'loop-next pages=3'],
    ['next to the first page', 'cursor', CURSOR, 'loop-next to=first pages=3'],
    ['next to itself', 'offset', OFFSET, 'loop-next pages=1'],
    ['last page next to the first page', 'offset', OFFSET, 'loop-next to=first pages=10'],
    ['next to the first page', 'offset, sequential', SEQUENTIAL, 'loop-next to=first pages=4'],
  ] as const;
  it.each(cases)('%s (%s): exit 6 at once, no duplicate items', async (name, mode, args, spec) => {
    const r = await runScenario({ args: [...args], faults: spec });
    const page = Number(/pages=(\d+)/.exec(spec)![1]);
    const { duplicated } = lostAndDuplicated([], idsOfNdjson(r.stdout));
    const row = report(
      {
        fault: 'next pointing to itself or to an earlier page',
        mode: `${name}, ${mode}`,
        expected: 'exit 6 promptly, no duplicate items',
        lost: 0,
        duplicated,
        early: 0,
        max429: 0,
        foreign: r.foreign.length,
        exit: r.code,
        note: `${r.requests.length} requests for ${page} pages`,
      },
      {
        exit6: r.code === 6,
        prompt: r.requests.length === page && r.elapsedMs === 0,
        noDuplicates: duplicated === 0,
        prefix: isCleanPrefix(r.stdout, mode === 'cursor' ? 'cursor' : 'offset'),
        says: /loops back/.test(r.stderr),
      },
    );
    expect(row.failed).toEqual([]);
  });
});

describe('unprefixed keys, relative or absolute links', () => {
  const cases = (['cursor', 'offset'] as const).flatMap((mode) =>
    [
      ['unprefixed keys', 'unprefixed'],
      ['absolute links', 'absolute-links'],
      ['relative links', 'relative-links'],
      ['unprefixed keys and absolute links', 'unprefixed; absolute-links'],
      ['unprefixed keys and relative links', 'unprefixed; relative-links'],
    ].map(([name, spec]) => [name!, mode, spec!] as const),
  );
  it.each(cases)('%s (%s): byte-identical output', async (name, mode, spec) => {
    const r = await runScenario({ args: mode === 'cursor' ? CURSOR : OFFSET, faults: spec });
    const { lost, duplicated } = lostAndDuplicated(idsOfNdjson(clean[mode].stdout), idsOfNdjson(r.stdout));
    const row = report(
      {
        fault: 'unprefixed keys, relative or absolute links',
        mode: `${name}, ${mode}`,
        expected: 'byte-identical output',
        lost,
        duplicated,
        early: 0,
        max429: 0,
        foreign: r.foreign.length,
        exit: r.code,
      },
      { exit0: r.code === 0, identical: r.stdout === clean[mode].stdout, sameRequests: r.requests.length === clean[mode].requests.length },
    );
    expect(row.failed).toEqual([]);
  });

  it.each(['json', 'csv'])('%s output is byte-identical too (cursor, unprefixed keys and relative links)', async (format) => {
    const a = await runScenario({ args: [...CURSOR, '--format', format] });
    const b = await runScenario({ args: [...CURSOR, '--format', format], faults: 'unprefixed; relative-links' });
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });
});

describe('items inserted and deleted while paging', () => {
  const cases = [
    ['2 inserted and 2 deleted after every page', { every: 1, insert: 2, remove: 2 }, ''],
    ['5 inserted after every other page, 3 deleted', { every: 2, insert: 5, remove: 3 }, ''],
    ['inserts and deletes with 5xx and resets', { every: 1, insert: 1, remove: 1 }, 'status p=0.2; reset-mid-body p=0.1'],
  ] as const;
  it.each(cases)('cursor mode, %s: nothing lost, nothing duplicated', async (name, mutation, faults) => {
    let initial: string[] = [];
    const r = await runScenario({
      args: [...CURSOR, '--retries', '8'],
      sandboxFor: (taxpayer) => ({ mutations: [{ path: `/taxpayers/${taxpayer}/invoices`, ...mutation }] }),
      before: ({ sandbox }) => {
        initial = sandbox.invoiceIds(sandbox.taxpayers()[0]!);
      },
      ...(faults ? { faults } : {}),
    });
    const final = new Set(r.sandbox.invoiceIds(r.taxpayer));
    const survivors = initial.filter((id) => final.has(id));
    const got = idsOfNdjson(r.stdout);
    const { lost, duplicated } = lostAndDuplicated(survivors, got);
    const deleted = initial.length - survivors.length;
    const row = report(
      {
        fault: 'items inserted and deleted while paging',
        mode: `cursor, ${name}`,
        expected: 'nothing lost, nothing duplicated',
        lost,
        duplicated,
        early: 0,
        max429: 0,
        foreign: r.foreign.length,
        exit: r.code,
        note: `${deleted} deleted, ${final.size + deleted - initial.length} inserted during the run`,
      },
      {
        exit0: r.code === 0,
        lost: lost === 0,
        duplicated: duplicated === 0,
        mutated: deleted > 0,
        newestFirst: got.every((id, i) => i === 0 || got[i - 1]! > id),
      },
    );
    expect(row.failed).toEqual([]);
  });
});
