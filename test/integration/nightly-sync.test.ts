/**
 * Incremental exports end to end on the in-process sandbox with churn and the virtual clock
 * (docs/nightly-sync.md, "Nightly sync"): a full run, churn, an incremental run with `--state` that finds every
 * change and advances the watermark; an interrupted incremental run that leaves the state alone
 * and a `--resume` that completes it with the original watermark; the usage errors of `--since`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { idsOfNdjson, removeTempDirs, runInProcess, START, type TempDir, interruptAt, useTempDir, useWorld } from '../helpers/world.js';

afterAll(removeTempDirs);

const MINUTE = 60_000;

const world = useWorld({ churn: 3 });
const dir = useTempDir();

interface Item {
  id: string;
  updatedAt: string;
}

/** The taxpayer's invoices as the sandbox holds them now. */
const invoices = (): Item[] => world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`) as Item[];
/** The state file, parsed. */
const state = (): { version: number; watermarks: Record<string, { since: string; updatedAt: string }> } =>
  JSON.parse(dir.read('state.json').toString()) as { version: number; watermarks: Record<string, { since: string; updatedAt: string }> };
/** `2024-04-16T18:10:00.000Z` → `2024-04-16T18:09:59+00:00`: a server time less the second of `Date`'s resolution. */
const watermarkOf = (ms: number): string => new Date(ms - 1000).toISOString().replace('.000Z', '+00:00');
const sync = (out: string, extra: string[] = []): string[] => [
  'invoices',
  '--taxpayer',
  world.taxpayer,
  '--state',
  'state.json',
  '--items-per-page',
  '5',
  '--out',
  out,
  '-q',
  ...extra,
];

describe('--state', () => {
  it('exports in full without a state file, then only what changed, advancing the watermark each time', async () => {
    const key = `invoices ${world.taxpayer}`;
    const full = await runInProcess(world, dir, sync('full.ndjson'));
    expect(full.code).toBe(0);
    expect(idsOfNdjson(dir.read('full.ndjson').toString())).toHaveLength(60);
    expect(full.requests.every((r) => !r.url.includes('updatedAt'))).toBe(true);
    expect(state().watermarks[key]!.since).toBe(watermarkOf(START));
    expect(statSync(dir.file('state.json')).mode & 0o777).toBe(0o600);

    const before = new Map(invoices().map((i) => [i.id, i.updatedAt]));
    world.clock.advance(10 * MINUTE);
    const now = world.clock.now();
    const changed = invoices().filter((i) => before.get(i.id) !== i.updatedAt);
    expect(changed.length).toBeGreaterThanOrEqual(15);

    const inc = await runInProcess(world, dir, sync('inc.ndjson'));
    expect(inc.code).toBe(0);
    // Cursor mode by default, the filter with an explicit UTC offset.
    expect(inc.requests[0]!.url).toContain(`updatedAt%5Bafter%5D=${encodeURIComponent(watermarkOf(START))}`);
    // Then the cursor pages, and last the one request of delete events since the same watermark (F.deleted.ndjson).
    expect(inc.requests.slice(1, -1).every((r) => r.url.includes('id%5Blt%5D'))).toBe(true);
    expect(inc.requests.at(-1)!.url).toMatch(/^\/events\?type=invoice\.deleted&/);
    const written = idsOfNdjson(dir.read('inc.ndjson').toString());
    // Every changed item, and nothing else: the generated data predates the boundary.
    expect(new Set(written)).toEqual(new Set(changed.map((i) => i.id)));
    expect(written).toHaveLength(new Set(written).size);
    expect(state().watermarks[key]!.since).toBe(watermarkOf(now));

    // A minute later: the 3 changes of that minute, and an item changed in the second before the
    // watermark (the boundary), which the previous file already held.
    const seen = new Map(invoices().map((i) => [i.id, i.updatedAt]));
    world.clock.advance(MINUTE);
    const again = await runInProcess(world, dir, sync('inc2.ndjson'));
    expect(again.code).toBe(0);
    const second = idsOfNdjson(dir.read('inc2.ndjson').toString());
    const latest = invoices().filter((i) => seen.get(i.id) !== i.updatedAt);
    expect(latest.length).toBeGreaterThan(0);
    for (const item of latest) expect(second).toContain(item.id);
    const latestIds = new Set(latest.map((i) => i.id));
    const others = invoices().filter((i) => second.includes(i.id) && !latestIds.has(i.id));
    for (const item of others) expect(Date.parse(item.updatedAt)).toBeGreaterThanOrEqual(now - 1000);
    expect(others.length).toBeLessThanOrEqual(1);
  });

  it('--lookback starts that long before the stored watermark and reads again what changed in that margin; it stores the same watermark', async () => {
    const key = `invoices ${world.taxpayer}`;
    expect((await runInProcess(world, dir, sync('full.ndjson'))).code).toBe(0);
    world.clock.advance(10 * MINUTE);
    const now = world.clock.now();
    expect((await runInProcess(world, dir, sync('inc.ndjson'))).code).toBe(0);
    const seen = new Map(invoices().map((i) => [i.id, i.updatedAt]));
    world.clock.advance(MINUTE);
    const back = await runInProcess(world, dir, sync('back.ndjson', ['--lookback', '90']));
    expect(back.code).toBe(0);
    expect(back.requests[0]!.url).toContain(`updatedAt%5Bafter%5D=${encodeURIComponent(watermarkOf(now - 90_000))}`);
    // The delete events are read from the same earlier start.
    expect(back.requests.at(-1)!.url).toContain(encodeURIComponent(watermarkOf(now - 90_000)));
    const written = new Set(idsOfNdjson(dir.read('back.ndjson').toString()));
    const margin = invoices().filter((i) => seen.get(i.id) === i.updatedAt && Date.parse(i.updatedAt) >= now - 91_000);
    expect(margin.length).toBeGreaterThan(0);
    for (const item of margin) expect(written).toContain(item.id);
    expect(state().watermarks[key]!.since).toBe(watermarkOf(now + MINUTE));
  });

  it('refuses --lookback without a stored watermark to move (with --since, or alone) before any request', async () => {
    for (const extra of [['--since', '2024-04-01'], []]) {
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--lookback', '60', ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--lookback goes with --state or --incremental');
      expect(r.requests).toHaveLength(0);
    }
  });

  it('leaves the state as it was when interrupted; --resume completes with the original watermark', async () => {
    expect((await runInProcess(world, dir, sync('full.ndjson'))).code).toBe(0);
    world.clock.advance(10 * MINUTE);
    const started = world.clock.now();
    const stateBefore = dir.read('state.json');

    const cut = await runInProcess(world, dir, sync('inc.ndjson'), interruptAt(3));
    expect(cut.code).toBe(130);
    expect(dir.read('state.json').equals(stateBefore)).toBe(true);
    const checkpoint = JSON.parse(dir.read('inc.ndjson.checkpoint.json').toString()) as { watermark?: string };
    expect(checkpoint.watermark).toBe(watermarkOf(started));

    world.clock.advance(5 * MINUTE);
    const resumed = await runInProcess(world, dir, sync('inc.ndjson', ['--resume']));
    expect(resumed.code).toBe(0);
    expect(state().watermarks[`invoices ${world.taxpayer}`]!.since).toBe(watermarkOf(started));
    expect(dir.has('inc.ndjson.checkpoint.json')).toBe(false);
  });

  it('leaves the state as it was after a --max-items export, and keeps the entries of other keys', async () => {
    writeFileSync(
      dir.file('state.json'),
      JSON.stringify({ version: 1, watermarks: { entities: { since: '2024-01-01T00:00:00+00:00', updatedAt: 'x' } } }),
    );
    const limited = await runInProcess(
      world,
      dir,
      sync('part.ndjson', ['--max-items', '7']).filter((a) => a !== '-q'),
    );
    expect(limited.code).toBe(0);
    expect(limited.stderr).toContain('--max-items stopped the export');
    expect(Object.keys(state().watermarks)).toEqual(['entities']);

    expect((await runInProcess(world, dir, sync('all.ndjson'))).code).toBe(0);
    expect(Object.keys(state().watermarks).sort()).toEqual(['entities', `invoices ${world.taxpayer}`]);
  });

  it('refuses a corrupt state file (exit 2) before any request', async () => {
    writeFileSync(dir.file('state.json'), '{"version":1,"watermarks":');
    const r = await runInProcess(world, dir, sync('x.ndjson'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('state file');
    expect(r.requests).toHaveLength(0);
    expect(readFileSync(dir.file('state.json'), 'utf8')).toBe('{"version":1,"watermarks":');
  });

  it("makes the state file's missing folders before the first request, and stores the watermark there", async () => {
    const args = sync('x.ndjson').map((a) => (a === 'state.json' ? 'nodir/deeper/state.json' : a));
    const r = await runInProcess(world, dir, args);
    expect(r.code).toBe(0);
    expect(Object.keys((JSON.parse(dir.read('nodir/deeper/state.json').toString()) as { watermarks: object }).watermarks)).toEqual([
      `invoices ${world.taxpayer}`,
    ]);
  });

  it.each([
    [
      'a file on its path',
      (d: TempDir) => (writeFileSync(d.file('blocker'), ''), 'blocker/state.json'),
      'a part of the path is not a folder (ENOTDIR)',
    ],
    ['a folder', (d: TempDir) => (mkdirSync(d.file('folder')), 'folder'), 'it is a folder'],
  ])('a state file with %s is exit 7 with the cause in words, before the first request; nothing is written', async (_name, make, words) => {
    const args = sync('x.ndjson').map((a) => (a === 'state.json' ? make(dir) : a));
    const r = await runInProcess(world, dir, args);
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(new RegExp(`^collections: cannot \\w+ the state file \\S+: ${words.replace(/[()]/g, '\\$&')}$`))]);
    expect(r.requests).toHaveLength(0);
    expect(dir.has('x.ndjson')).toBe(false);
  });

  it.skipIf(!existsSync('/proc/self'))('a state file in /proc (which takes no file, even from root) is exit 7 before the first request', async () => {
    const args = sync('x.ndjson').map((a) => (a === 'state.json' ? '/proc/collections-state.json' : a));
    const r = await runInProcess(world, dir, args);
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: cannot write \/proc\/collections-state\.json: /)]);
    expect(r.requests).toHaveLength(0);
    expect(dir.has('x.ndjson')).toBe(false);
  });
});

describe('--since', () => {
  it('sends createdAt[after] on events, a date alone as 00:00 UTC', async () => {
    const r = await runInProcess(world, dir, ['events', '--since', '2024-04-16', '-q']);
    expect(r.code).toBe(0);
    expect(r.requests[0]!.url).toContain('createdAt%5Bafter%5D=2024-04-16T00%3A00%3A00%2B00%3A00');
  });

  it('converts an offset to UTC on invoices', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--since', '2024-04-16T08:30:00-06:00', '-q']);
    expect(r.code).toBe(0);
    expect(r.requests[0]!.url).toContain('updatedAt%5Bafter%5D=2024-04-16T14%3A30%3A00%2B00%3A00');
  });

  it('is a usage error on payments and line items, which document no date filter', async () => {
    for (const args of [
      ['payments', '--taxpayer', world.taxpayer],
      ['line-items', '--taxpayer', world.taxpayer],
    ]) {
      const r = await runInProcess(world, dir, [...args, '--since', '2024-04-01']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('the API documents no date filter');
      expect(r.requests).toHaveLength(0);
    }
  });

  it('is a usage error with a --param that sets the same filter, or when it is not a date', async () => {
    const clash = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--since',
      '2024-04-01',
      '--param',
      'updatedAt[after]=2024-01-01',
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('set the same filter');
    const bad = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--since', '2024-02-30']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not an ISO 8601 date');
  });
});

describe('an incremental export and an output already there (docs/nightly-sync.md, "Running twice")', () => {
  /** Every file of the temp folder but the config, with its bytes. */
  const files = (): Record<string, string> =>
    Object.fromEntries(
      readdirSync(dir.path)
        .filter((f) => f !== 'config')
        .sort()
        .map((f) => [f, dir.read(f).toString('latin1')]),
    );

  it.each(['x.ndjson', 'x.csv', 'x.json.gz'])(
    "%s: a second --state run to the first one's file stops before any request (exit 2); every file kept",
    async (out) => {
      expect((await runInProcess(world, dir, sync(out))).code).toBe(0);
      const kept = files();
      world.clock.advance(10 * MINUTE);
      const r = await runInProcess(world, dir, sync(out));
      expect(r.code).toBe(2);
      expect(r.requests).toHaveLength(0);
      expect(r.lines).toEqual([
        `collections: ${dir.file(out)} holds a full export (its manifest says so); this export asks only for what changed since ${watermarkOf(START)}, so replacing it would lose the items before; move it away once it is consumed, or write each run to its own path (e.g. a folder per run)`,
      ]);
      expect(files()).toEqual(kept);
    },
  );

  it('--since: a later start is refused; the same start, an earlier one or a full export replaces the file', async () => {
    const since = (t: string | undefined): string[] => [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--out',
      'x.ndjson',
      '-q',
      ...(t ? ['--since', t] : []),
    ];
    const run = async (t: string | undefined): Promise<number> => (await runInProcess(world, dir, since(t))).code;
    expect(await run('2024-04-16T17:00:00Z')).toBe(0);
    const later = await runInProcess(world, dir, since('2024-04-16T17:30:00Z'));
    expect(later.code).toBe(2);
    expect(later.stderr).toContain('holds what changed since 2024-04-16T17:00:00+00:00 (its manifest says so)');
    expect(await run('2024-04-16T17:00:00Z')).toBe(0);
    expect(await run('2024-04-16T16:00:00+00:00')).toBe(0);
    expect(await run(undefined)).toBe(0);
    expect(idsOfNdjson(dir.read('x.ndjson').toString())).toHaveLength(60);
    expect(await run('2024-04-16T16:00:00Z')).toBe(2);
  });

  it('an output that no manifest describes (none, or one of another size) holds unknown items: refused', async () => {
    writeFileSync(dir.file('x.ndjson'), 'yesterday\n');
    const none = await runInProcess(world, dir, [...sync('x.ndjson'), '--since', '2024-04-16']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`${dir.file('x.ndjson')} has no manifest that describes it, so what it holds is unknown`);
    expect(none.requests).toHaveLength(0);

    expect((await runInProcess(world, dir, [...sync('y.ndjson'), '--since', '2024-04-16'])).code).toBe(0);
    writeFileSync(dir.file('y.ndjson'), `${dir.read('y.ndjson').toString()}{"id":"planted"}\n`);
    const changed = await runInProcess(world, dir, [...sync('y.ndjson'), '--since', '2024-04-16']);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('has no manifest that describes it');
  });

  it('with --manifest FILE, the entry of that manifest is the one read', async () => {
    const args = (t: string): string[] => [...sync('x.ndjson'), '--since', t, '--manifest', 'runs/m.json'];
    expect((await runInProcess(world, dir, args('2024-04-16T12:00:00Z'))).code).toBe(0);
    expect(dir.has('x.ndjson.manifest.json')).toBe(false);
    expect((await runInProcess(world, dir, args('2024-04-16T12:00:00Z'))).code).toBe(0);
    const r = await runInProcess(world, dir, args('2024-04-16T13:00:00Z'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds what changed since 2024-04-16T12:00:00+00:00');
  });
});
