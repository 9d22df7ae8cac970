/**
 * Many taxpayers in one run (docs/many-taxpayers.md, "Many taxpayers in one run"), in process on the sandbox with
 * the virtual clock: the list flags and file, the `--out` template, `--parallel`, a failing
 * taxpayer that does not stop the others, an interrupted run and its `--resume`, one state file
 * and one run manifest for every taxpayer, and `verify` of that manifest.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  canaryFree,
  createWorld,
  idsOfNdjson,
  interruptAt,
  removeTempDirs,
  runInProcess,
  tempDir,
  WRONG_KEY,
  useTempDir,
  useWorld,
} from '../helpers/world.js';

afterAll(removeTempDirs);

const UNKNOWN = 'XAXX010101000';
const PER_TAXPAYER = 12;
const DATE = '2024-04-16';

const world = useWorld({ sizes: { taxpayers: 9, invoicesPerTaxpayer: PER_TAXPAYER } });
const dir = useTempDir();
let rfcs: string[];
beforeEach(() => {
  rfcs = world.sandbox.taxpayers();
});

/** The invoices command for a template in `out/`, 5 items a page, quiet unless told. */
const invoices = (taxpayers: string[], extra: string[] = []): string[] => [
  'invoices',
  ...taxpayers.flatMap((t) => ['--taxpayer', t]),
  '--out',
  'out/{taxpayer}/invoices-{date}.ndjson',
  '--items-per-page',
  '5',
  ...extra,
];
const fileOf = (rfc: string): string => `out/${rfc}/invoices-${DATE}.ndjson`;
/** The ids the sandbox holds for a taxpayer's invoices, in its order. */
const sandboxIds = (rfc: string): string[] => (world.sandbox.items(`/taxpayers/${rfc}/invoices`) as Array<{ id: unknown }>).map((i) => String(i.id));

describe('a run with many taxpayers', () => {
  it('ten taxpayers, one unknown: the other nine finish whole, the run exits 4 and the summary names it', async () => {
    const list = [...rfcs.slice(0, 5), UNKNOWN, ...rfcs.slice(5)];
    const r = await runInProcess(world, dir, invoices([list.join(',')], ['--parallel', '3']));
    expect(r.code).toBe(4);
    for (const rfc of rfcs) {
      expect(idsOfNdjson(dir.read(fileOf(rfc)).toString())).toEqual(sandboxIds(rfc));
      expect(dir.has(`${fileOf(rfc)}.manifest.json`)).toBe(true);
    }
    expect(dir.has(fileOf(UNKNOWN))).toBe(false);
    const row = r.lines.find((l) => l.startsWith(UNKNOWN));
    expect(row).toMatch(/failed \(exit 4\): not found/);
    expect(r.lines.filter((l) => / ok$/.test(l))).toHaveLength(9);
    expect(r.lines.some((l) => l.includes('[6/10]') || l.includes('/10]'))).toBe(true);
    expect(canaryFree(r.stderr, r.stdout)).toBe(true);
  });

  it('takes comma lists and repeated flags, and one JSON event per taxpayer with --log-format json', async () => {
    const r = await runInProcess(world, dir, invoices([`${rfcs[0]},${rfcs[1]}`, rfcs[2]!], ['--log-format', 'json']));
    expect(r.code).toBe(0);
    const events = r.lines.map((l) => JSON.parse(l) as { event: string; taxpayer?: string; outcome?: string; items?: number });
    expect(events.filter((e) => e.event === 'taxpayer').map((e) => [e.taxpayer, e.outcome, e.items])).toEqual(
      rfcs.slice(0, 3).map((t) => [t, 'ok', PER_TAXPAYER]),
    );
    expect(events.at(-1)).toMatchObject({ event: 'run', taxpayers: 3, ok: 3, exitCode: 0 });
  });

  it('reads --taxpayers-file (comments and blank lines ignored) and - from stdin', async () => {
    writeFileSync(dir.file('list.txt'), `# our clients\n${rfcs[0]}\n\n  ${rfcs[1]}  \n# ${rfcs[2]} left\n`);
    const r = await runInProcess(world, dir, [...invoices([], ['-q']), '--taxpayers-file', 'list.txt']);
    expect(r.code).toBe(0);
    expect(dir.has(fileOf(rfcs[0]!)) && dir.has(fileOf(rfcs[1]!))).toBe(true);
    expect(dir.has(fileOf(rfcs[2]!))).toBe(false);
    expect(r.stderr).toBe('');

    const s = await runInProcess(world, dir, [...invoices([], ['-q']), '--taxpayers-file', '-', '--restart'], {
      stdinText: `${rfcs[3]}\n${rfcs[4]}\n`,
    });
    expect(s.code).toBe(0);
    expect(dir.has(fileOf(rfcs[3]!)) && dir.has(fileOf(rfcs[4]!))).toBe(true);
  });

  it.each([
    ['two taxpayers without {taxpayer}', ['invoices', '--taxpayer', 'A1,B2', '--out', 'x-{date}.ndjson'], /has no \{taxpayer\}/],
    ['two taxpayers to stdout', ['invoices', '--taxpayer', 'A1', '--taxpayer', 'B2'], /need --out FILE/],
    ['an unknown placeholder', ['invoices', '--taxpayer', 'A1,B2', '--out', '{taxpayer}-{day}.ndjson'], /unknown placeholder \{day\}/],
    ['an empty list entry', ['invoices', '--taxpayer', 'A1,,B2', '--out', '{taxpayer}.ndjson'], /empty entry/],
    ['a taxpayer twice', ['invoices', '--taxpayer', 'A1,A1', '--out', '{taxpayer}.ndjson'], /listed twice/],
    ['a path in an id', ['invoices', '--taxpayer', 'A1,../B2', '--out', '{taxpayer}.ndjson'], /must not contain '\/'/],
    [
      'a missing list file',
      ['invoices', '--taxpayers-file', 'nope.txt', '--out', '{taxpayer}.ndjson'],
      /cannot read --taxpayers-file nope.txt: no such file/,
    ],
    ['--parallel 0', ['invoices', '--taxpayer', 'A1,B2', '--out', '{taxpayer}.ndjson', '--parallel', '0'], /--parallel/],
    ['--parallel 33', ['invoices', '--taxpayer', 'A1,B2', '--out', '{taxpayer}.ndjson', '--parallel', '33'], /--parallel/],
    [
      'an unknown placeholder beside no {taxpayer}',
      ['invoices', '--taxpayer', 'A1,B2', '--out', 'y-{taxpayr}.ndjson'],
      /^collections: --out has an unknown placeholder \{taxpayr\}; the known ones are \{taxpayer\}, \{endpoint\} and \{date\}\n$/,
    ],
    [
      'an unknown placeholder with one taxpayer',
      ['invoices', '--taxpayer', 'A1', '--out', 'y-{taxpayr}.ndjson'],
      /^collections: --out has an unknown placeholder \{taxpayr\}; the known ones are/,
    ],
    ['{taxpayer} without one', ['entities', '--out', '{taxpayer}.ndjson'], /takes no --taxpayer/],
  ])('%s: exit 2 before any request', async (_name, args, message) => {
    const r = await runInProcess(world, dir, args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.requests).toHaveLength(0);
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual([]);
  });

  it('--state in a folder that does not exist yet: made before the first request, and the watermarks land there', async () => {
    const r = await runInProcess(world, dir, invoices([rfcs.slice(0, 2).join(',')], ['--state', 'st/nested/state.json', '-q']));
    expect(r.code).toBe(0);
    const state = JSON.parse(dir.read('st/nested/state.json').toString()) as { watermarks: Record<string, unknown> };
    expect(Object.keys(state.watermarks).sort()).toEqual(
      rfcs
        .slice(0, 2)
        .map((rfc) => `invoices ${rfc}`)
        .sort(),
    );
  });

  // sysfs refuses mkdir with EPERM (as root too); Node's recursive mkdir reported ENOENT (or looped) instead.
  it.skipIf(!existsSync('/sys/kernel'))(
    "a template's folder the file system refuses (/sys): exit 7 with the real cause, before any request",
    async () => {
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', rfcs[0]!, '--out', '/sys/collections-test/{taxpayer}/x.ndjson']);
      expect(r.code).toBe(7);
      expect(r.lines).toEqual([expect.stringMatching(/^collections: cannot create the folder \/sys\/collections-test: .*\((EPERM|EROFS|EACCES)\)$/)]);
      expect(r.requests).toHaveLength(0);
    },
  );

  it("an output's folder that cannot be made (a file is in the way): exit 7 naming it, before any request", async () => {
    writeFileSync(dir.file('blocker'), 'not a folder');
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', rfcs.slice(0, 2).join(','), '--out', 'blocker/{taxpayer}.ndjson']);
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: cannot write \S+blocker\/\S+\.ndjson: \S+blocker is a file, not a folder$/)]);
    expect(r.requests).toHaveLength(0);
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual(['blocker']);
  });

  it('a rejected key stops the run: the taxpayers not started yet are reported, exit 3', async () => {
    const r = await runInProcess(world, dir, [...invoices([rfcs.slice(0, 4).join(',')]), '--api-key', WRONG_KEY], { noKey: true });
    expect(r.code).toBe(3);
    expect(r.requests).toHaveLength(1);
    expect(r.lines.find((l) => l.startsWith(rfcs[0]!))).toMatch(/failed \(exit 3\): the API key was rejected/);
    expect(r.lines.filter((l) => l.endsWith('not started'))).toHaveLength(3);
    expect(r.stderr).not.toContain(WRONG_KEY);
    // Not resumable: the hint is to fix the key, and the run leaves none of the folders it made.
    expect(r.lines.at(-1)).toMatch(
      /^collections: the API key was rejected; set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY, then run the command again: collections invoices .*'out\/\{taxpayer\}\/invoices-\{date\}\.ndjson' --items-per-page 5 --base-url \S+$/,
    );
    expect(r.stderr).not.toContain('--resume');
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual([]);
  });

  it('a single export to a template leaves no folder it made when it fails; a folder that holds a checkpoint stays', async () => {
    const one = ['invoices', '--taxpayer', rfcs[0]!, '--out', 'a/b/{taxpayer}.ndjson', '--items-per-page', '5'];
    const rejected = await runInProcess(world, dir, [...one, '--api-key', WRONG_KEY], { noKey: true });
    expect(rejected.code).toBe(3);
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual([]);
    expect((await runInProcess(world, dir, one, interruptAt(2))).code).toBe(130);
    expect(readdirSync(dir.file('a/b')).sort()).toEqual([`${rfcs[0]!}.ndjson.checkpoint.json`, `${rfcs[0]!}.ndjson.part`]);
  });

  it('a template with one taxpayer creates its folders and fills {endpoint} and {date}', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', rfcs[0]!, '--out', 'a/{taxpayer}/{endpoint}-{date}.ndjson', '-q']);
    expect(r.code).toBe(0);
    expect(idsOfNdjson(dir.read(`a/${rfcs[0]}/invoices-${DATE}.ndjson`).toString())).toEqual(sandboxIds(rfcs[0]!));
  });
});

describe('--resume of a run with many taxpayers', () => {
  it('continues only the unfinished ones; every file equals a fresh export', async () => {
    const four = rfcs.slice(0, 4);
    // 3 pages each: the 5th request is the second page of the second taxpayer.
    const cut = await runInProcess(world, dir, invoices([four.join(',')]), interruptAt(5));
    expect(cut.code).toBe(130);
    expect(cut.lines.find((l) => l.startsWith(four[1]!))).toMatch(/interrupted$/);
    expect(cut.lines.find((l) => l.startsWith(four[3]!))).toMatch(/not started$/);
    expect(cut.stderr).toContain('--resume');
    expect(dir.has(`${fileOf(four[1]!)}.checkpoint.json`)).toBe(true);
    // The summary row of the interrupted taxpayer counts the items its checkpoint keeps, not '-'.
    const kept = (JSON.parse(dir.read(`${fileOf(four[1]!)}.checkpoint.json`).toString()) as { items: number }).items;
    expect(kept).toBeGreaterThan(0);
    expect(cut.lines.find((l) => l.startsWith(four[1]!) && l.endsWith('interrupted'))).toMatch(new RegExp(`^${four[1]!}\\s+${kept}\\s`));
    expect(cut.lines.find((l) => l.startsWith('collections: 4 taxpayers'))).toBe('collections: 4 taxpayers, 1 complete, 3 not');

    const resumed = await runInProcess(world, dir, invoices([four.join(',')], ['--resume']));
    expect(resumed.code).toBe(0);
    expect(resumed.lines.find((l) => l.startsWith(four[0]!))).toMatch(/done earlier$/);
    expect(resumed.requests.some((q) => q.url.includes(four[0]!))).toBe(false);
    expect(resumed.requests.filter((q) => q.url.includes(four[1]!))).toHaveLength(2);

    const fresh = tempDir();
    expect((await runInProcess(world, fresh, invoices([four.join(',')], ['-q']))).code).toBe(0);
    for (const rfc of four) expect(dir.read(fileOf(rfc)).equals(fresh.read(fileOf(rfc)))).toBe(true);
  });
});

describe('one state file and one manifest for the run', () => {
  type State = { watermarks: Record<string, { since: string }> };
  type RunManifest = {
    run?: { started: string; finished: string };
    outputs: Array<{ file: string; items: number; ids: { taxpayerId: string }; watermark: { before: string | null; after: string | null } }>;
  };
  const readJson = (name: string): unknown => JSON.parse(dir.read(name).toString());

  it('parallel taxpayers keep every state entry; the run manifest has their watermarks and verify checks it', async () => {
    const five = rfcs.slice(0, 5);
    // Each run in its own folder (docs/nightly-sync.md, "Running twice"): `run` in place of `out`.
    const args = (run: string): string[] =>
      invoices([five.join(',')], ['--state', 'state.json', '--manifest', `${run}/run.json`, '--parallel', '4', '-q']).map((a) =>
        a.replace(/^out\//, `${run}/`),
      );
    expect((await runInProcess(world, dir, args('out'))).code).toBe(0);
    const first = readJson('state.json') as State;
    expect(Object.keys(first.watermarks).sort()).toEqual(five.map((t) => `invoices ${t}`).sort());
    const m1 = readJson('out/run.json') as RunManifest;
    expect(m1.run).toEqual({ started: '2024-04-16T18:00:00.000Z', finished: expect.any(String) as string });
    expect(m1.outputs.map((o) => o.ids.taxpayerId)).toEqual(five);
    for (const o of m1.outputs) expect(o.watermark).toEqual({ before: null, after: first.watermarks[`invoices ${o.ids.taxpayerId}`]!.since });
    // No manifest beside each output when the run has one.
    expect(dir.has(`${fileOf(five[0]!)}.manifest.json`)).toBe(false);

    world.clock.advance(10 * 60_000);
    expect((await runInProcess(world, dir, args('out2'))).code).toBe(0);
    const second = readJson('state.json') as State;
    const m2 = readJson('out2/run.json') as RunManifest;
    for (const o of m2.outputs) {
      const key = `invoices ${o.ids.taxpayerId}`;
      expect(o.watermark).toEqual({ before: first.watermarks[key]!.since, after: second.watermarks[key]!.since });
      expect(o.watermark.after).not.toBe(o.watermark.before);
    }

    const ok = await runInProcess(world, dir, ['verify', 'out/run.json', 'out2/run.json']);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength(10);

    const victim = fileOf(five[2]!).replace(/^out\//, 'out2/');
    // The incremental files may be empty (nothing changed): one more line changes any of them.
    writeFileSync(dir.file(victim), `${dir.read(victim).toString()}{"id":"planted"}\n`);
    const bad = await runInProcess(world, dir, ['verify', 'out2/run.json']);
    expect(bad.code).toBe(8);
    expect(bad.stderr).toContain(`${five[2]}/invoices-${DATE}.ndjson: SHA-256`);
    expect(bad.stderr).toContain('holds');
    expect(bad.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength(4);
  });

  it("a second incremental run into the first run's files: exit 2 before any request; files, run manifest and state kept", async () => {
    const three = rfcs.slice(0, 3);
    const args = invoices([three.join(',')], ['--state', 'state.json', '--manifest', 'out/run.json', '-q']);
    expect((await runInProcess(world, dir, args)).code).toBe(0);
    const kept = [...three.map(fileOf), 'out/run.json', 'state.json'].map((f) => dir.read(f).toString());
    world.clock.advance(10 * 60_000);
    const again = await runInProcess(world, dir, args);
    expect(again.code).toBe(2);
    expect(again.requests).toHaveLength(0);
    expect(again.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^collections: \\S+/${fileOf(three[0]!)} holds a full export \\(its manifest says so\\); this export asks only for what changed since 2024-04-16T17:59:59\\+00:00, `,
        ),
      ),
    ]);
    expect([...three.map(fileOf), 'out/run.json', 'state.json'].map((f) => dir.read(f).toString())).toEqual(kept);
    expect((await runInProcess(world, dir, ['verify', 'out/run.json'])).code).toBe(0);
  });

  it('a run manifest after --resume still lists the outputs finished before the interruption', async () => {
    const three = rfcs.slice(0, 3);
    const args = invoices([three.join(',')], ['--manifest', 'out/run.json', '-q']);
    expect((await runInProcess(world, dir, args, interruptAt(5))).code).toBe(130);
    expect((readJson('out/run.json') as RunManifest).outputs.map((o) => o.ids.taxpayerId)).toEqual([three[0]]);
    expect((await runInProcess(world, dir, [...args, '--resume'])).code).toBe(0);
    expect((readJson('out/run.json') as RunManifest).outputs.map((o) => o.ids.taxpayerId)).toEqual(three);
    expect((await runInProcess(world, dir, ['verify', 'out/run.json'])).code).toBe(0);
  });
});

describe('the manifest of one incremental export', () => {
  it('holds the watermark it started at (before) and the one it stored (after); a --max-items export stores none', async () => {
    const rfc = rfcs[0]!;
    const one = (out: string, extra: string[] = []): string[] => [
      'invoices',
      '--taxpayer',
      rfc,
      '--state',
      'state.json',
      '--out',
      out,
      '-q',
      ...extra,
    ];
    type M = { outputs: Array<{ filters: { since: string | null }; watermark: { before: string | null; after: string | null } }> };
    const manifest = (name: string): M['outputs'][number] => (JSON.parse(dir.read(`${name}.manifest.json`).toString()) as M).outputs[0]!;
    const since = (): string =>
      (JSON.parse(dir.read('state.json').toString()) as { watermarks: Record<string, { since: string }> }).watermarks[`invoices ${rfc}`]!.since;

    expect((await runInProcess(world, dir, one('a.ndjson'))).code).toBe(0);
    const firstMark = since();
    expect(manifest('a.ndjson').watermark).toEqual({ before: null, after: firstMark });
    world.clock.advance(60_000);
    expect((await runInProcess(world, dir, one('b.ndjson'))).code).toBe(0);
    expect(manifest('b.ndjson').watermark).toEqual({ before: firstMark, after: since() });
    expect(manifest('b.ndjson').filters.since).toBe(firstMark);
    const secondMark = since();
    world.clock.advance(60_000);
    expect((await runInProcess(world, dir, one('c.ndjson', ['--max-items', '1', '--since', '2024-01-01']))).code).toBe(0);
    expect(manifest('c.ndjson').watermark).toEqual({ before: '2024-01-01T00:00:00+00:00', after: null });
    expect(since()).toBe(secondMark);
  });
});

describe('many taxpayers into one database table', () => {
  it('--incremental over plain http: the warning is said once, though the table is read before the taxpayers are planned', async () => {
    const plain = createWorld({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 5 }, base: 'http://api.example.com' });
    const r = await runInProcess(plain, dir, [
      'invoices',
      '--taxpayer',
      plain.sandbox.taxpayers().join(','),
      '--out',
      'x.duckdb',
      '--incremental',
      '-q',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.lines).toEqual(['collections: warning: http://api.example.com is plain http: the API key will be sent unencrypted; use https']);
  });
});
