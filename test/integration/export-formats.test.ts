/**
 * What real in-process exports of the sandbox write: CSV that a spreadsheet opens (RFC 4180, header,
 * dot paths, arrays as JSON, later keys named once), the table fitted and capped, `--max-items`
 * exact across pages and a resume, and `--resume` refusing or restarting sensibly.
 */
import { writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { literalItems } from '../helpers/literals.js';
import { runInProcess, interruptAt, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld();

type Item = Record<string, unknown> & { id: string };
const invoices = (): Item[] => world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`) as Item[];
const get = (item: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | null)?.[k], item);

/** The CSV cell expected for a value: empty for null and absent, scalars as text, arrays (and objects) as JSON. */
const cellText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};

/** Adds `extra: { note }` to every item of the pages after the first (a key the header never saw). */
const laterKeys =
  (inner: FetchLike): FetchLike =>
  async (input, init) => {
    const res = await inner(input, init);
    if (!String(input).includes('id%5Blt%5D')) return res;
    const body = (await res.json()) as Record<string, unknown>;
    for (const m of body['hydra:member'] as Array<Record<string, unknown>>) m.extra = { note: 'later' };
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  };

describe('CSV from a real export', () => {
  it('opens cleanly: header from the first page, RFC 4180, dot paths, arrays as JSON, null empty', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '25', '--out', 'x.csv']);
    expect(r.code).toBe(0);
    const rows = parse(dir.read('x.csv'), { relax_column_count: false });
    const [header, ...data] = rows;
    // satFolio (64-bit) and exchangeRate (1.0) as the server wrote them: JSON.parse would change both.
    const items = await literalItems(world.sandbox, `/taxpayers/${world.taxpayer}/invoices`);
    expect(data).toHaveLength(items.length);
    expect(header).toContain('issuer.rfc');
    expect(header).not.toContain('issuer');
    expect(new Set(header).size).toBe(header!.length);
    data.forEach((row, i) => {
      const item = items[i]!;
      header!.forEach((column, c) => {
        const value = get(item, column);
        const expected = cellText(value);
        expect(row[c], `${column} of row ${i}`).toBe(expected);
      });
    });
    expect(r.lines).toHaveLength(1);
  });

  it('--fields picks and orders the columns', async () => {
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--fields',
      'id,issuer.rfc,total,nope.missing',
      '--out',
      'x.csv',
    ]);
    expect(r.code).toBe(0);
    const rows = parse(dir.read('x.csv'));
    expect(rows[0]).toEqual(['id', 'issuer.rfc', 'total', 'nope.missing']);
    const items = invoices();
    expect(rows.slice(1)).toEqual(items.map((it) => [it.id, String(get(it, 'issuer.rfc')), String(it.total), '']));
  });

  it('keys first seen after the first page are named once on stderr and not added to the header', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', 'x.csv'], {
      wrapFetch: laterKeys,
    });
    expect(r.code).toBe(0);
    const notes = r.lines.filter((l) => l.includes('extra.note'));
    expect(notes).toEqual([expect.stringMatching(/^collections: csv: new field 'extra\.note' not in the header; use --fields to include it$/)]);
    const rows = parse(dir.read('x.csv'));
    expect(rows[0]).not.toContain('extra.note');
    expect(rows.every((row) => row.length === rows[0]!.length)).toBe(true);
  });

  it('a later key named before an interruption is not named again after --resume', async () => {
    const args = ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', 'x.csv'];
    const first = await runInProcess(world, dir, args, { wrapFetch: laterKeys, ...interruptAt(4) });
    expect(first.code).toBe(130);
    expect(first.lines.filter((l) => l.includes('extra.note'))).toHaveLength(1);
    const resumed = await runInProcess(world, dir, [...args, '--resume'], { wrapFetch: laterKeys });
    expect(resumed.code).toBe(0);
    expect(resumed.lines.filter((l) => l.includes('extra.note'))).toEqual([]);
  });
});

describe('--fields that no item of the first page has', () => {
  const args = (format: string): string[] => ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '10', '--format', format];
  const fields = ['--fields', 'ID,total,issuer.nope,issuer.rfc'];
  const NAMED = [
    "collections: --fields: no item of the first page has 'ID'; did you mean 'id'?",
    "collections: --fields: no item of the first page has 'issuer.nope'; check the name (keys are case-sensitive, nested keys are dot paths such as issuer.rfc)",
  ];

  it.each(['csv', 'table', 'json', 'ndjson'])('%s: each is named once on stderr, over six pages, and the export completes', async (format) => {
    const r = await runInProcess(world, dir, [...args(format), ...fields], { columns: 200 });
    expect(r.code).toBe(0);
    expect(r.lines.filter((l) => l.includes('--fields'))).toEqual(NAMED);
  });

  it('with --log-format json: one warning event each', async () => {
    const r = await runInProcess(world, dir, [...args('csv'), ...fields, '--log-format', 'json']);
    expect(r.code).toBe(0);
    const warnings = r.lines.map((l) => JSON.parse(l) as { event: string; message?: string }).filter((e) => e.event === 'warning');
    expect(warnings.map((e) => `collections: ${e.message!}`)).toEqual(NAMED);
  });

  it('fields every item has, and an export of no items, name nothing', async () => {
    const all = await runInProcess(world, dir, [...args('csv'), '--fields', 'id,issuer.rfc,relations']);
    expect(all.code).toBe(0);
    expect(all.lines.filter((l) => l.includes('--fields'))).toEqual([]);
    world.recreate({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 0 } });
    const none = await runInProcess(world, dir, [...args('csv'), ...fields]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('ID,total,issuer.nope,issuer.rfc\r\n');
    expect(none.lines.filter((l) => l.includes('--fields'))).toEqual([]);
  });
});

describe('table', () => {
  it('fits the terminal width', async () => {
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--format', 'table'], { columns: 60, stdoutIsTTY: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(60);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(60);
  });

  it('is capped at 1000 rows and says so', async () => {
    world.recreate({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 1003 } });
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--format', 'table', '--fields', 'id,total'], {
      columns: 100,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('… 3 more rows not shown; use --format csv');
    expect(lines.filter((l) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(l))).toHaveLength(1000);
  });
});

describe('--max-items', () => {
  it.each([
    [23, 10, 3],
    [20, 10, 2],
    [1, 10, 1],
    [60, 25, 3],
  ])('%i items with pages of %i: exactly that many, %i requests', async (max, per, requests) => {
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--cursor',
      '--items-per-page',
      String(per),
      '--max-items',
      String(max),
      '--out',
      'x.ndjson',
    ]);
    expect(r.code).toBe(0);
    const ids = dir
      .read('x.ndjson')
      .toString()
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as Item).id);
    expect(ids).toEqual(
      invoices()
        .slice(0, max)
        .map((i) => i.id),
    );
    expect(world.sandbox.requests()).toHaveLength(requests);
  });

  it('is exact across a resume, and the result is byte-identical to a clean run', async () => {
    const args = ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--max-items', '23', '--out', 'x.json'];
    const clean = await runInProcess(world, dir, [...args.slice(0, -1), 'clean.json']);
    expect(clean.code).toBe(0);
    const first = await runInProcess(world, dir, args, interruptAt(2));
    expect(first.code).toBe(130);
    const resumed = await runInProcess(world, dir, [...args, '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.lines[0]).toBe('collections: resuming after 10 items (1 pages)');
    expect(dir.read('x.json').equals(dir.read('clean.json'))).toBe(true);
    expect((JSON.parse(dir.read('x.json').toString()) as unknown[]).length).toBe(23);
  });
});

describe('--resume', () => {
  const args = () => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', 'x.csv'];

  it('with different options than the interrupted export: exit 2, nothing touched, nothing sent', async () => {
    expect((await runInProcess(world, dir, args(), interruptAt(3))).code).toBe(130);
    const part = dir.read('x.csv.part');
    const checkpoint = dir.read('x.csv.checkpoint.json');
    const sent = world.sandbox.requests().length;
    const r = await runInProcess(world, dir, [...args(), '--fields', 'id,total', '--resume']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      expect.stringMatching(
        /^collections: --resume with different options than the interrupted export \(its ≠ this run's\): --fields not given ≠ id,total; repeat its options, or run with --restart instead of --resume to discard \S+x\.csv\.checkpoint\.json and the \.part file and start afresh$/,
      ),
    ]);
    expect(dir.read('x.csv.part').equals(part)).toBe(true);
    expect(dir.read('x.csv.checkpoint.json').equals(checkpoint)).toBe(true);
    expect(world.sandbox.requests()).toHaveLength(sent);
  });

  it('with another --items-per-page: names it with both values and hints --restart, which leaves no .part behind', async () => {
    const offset = ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson'];
    expect((await runInProcess(world, dir, [...offset, '--items-per-page', '10'], interruptAt(3))).code).toBe(130);
    const r = await runInProcess(world, dir, [...offset, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(its ≠ this run's): --items-per-page 10 ≠ 1000; repeat its options, or run with --restart");
    const restarted = await runInProcess(world, dir, [...offset, '--restart']);
    expect(restarted.code).toBe(0);
    expect([dir.has('x.ndjson.part'), dir.has('x.ndjson.checkpoint.json'), dir.has('x.ndjson')]).toEqual([false, false, true]);
  });

  it('with a corrupt checkpoint: exit 2, nothing sent', async () => {
    expect((await runInProcess(world, dir, args(), interruptAt(3))).code).toBe(130);
    writeFileSync(dir.file('x.csv.checkpoint.json'), '{"version":1,"next":');
    const sent = world.sandbox.requests().length;
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      expect.stringMatching(
        /^collections: the checkpoint \S+ is corrupt; run with --restart instead of --resume to discard it and the \.part file and start afresh$/,
      ),
    ]);
    expect(world.sandbox.requests()).toHaveLength(sent);
    expect(dir.has('x.csv.part')).toBe(true);
  });

  it('with a checkpoint but no partial file: exit 2', async () => {
    expect((await runInProcess(world, dir, args(), interruptAt(3))).code).toBe(130);
    dir.recreate();
    const r0 = await runInProcess(world, dir, args(), interruptAt(3));
    expect(r0.code).toBe(130);
    const { rmSync } = await import('node:fs');
    rmSync(dir.file('x.csv.part'));
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      expect.stringMatching(/^collections: checkpoint does not match the partial file: \S+x\.csv\.part is missing; start over with --restart$/),
    ]);
  });

  it('a fresh run (no --resume) refuses the old checkpoint; --restart drops it first, so a later --resume cannot splice two exports', async () => {
    expect((await runInProcess(world, dir, args(), interruptAt(4))).code).toBe(130);
    const kept = [dir.read('x.csv.checkpoint.json'), dir.read('x.csv.part')];
    const refused = await runInProcess(world, dir, args());
    expect(refused.code).toBe(2);
    expect(refused.lines).toEqual([
      expect.stringMatching(
        /^collections: an interrupted export of \S+x\.csv has a checkpoint \(\S+\); use --resume to continue it, or --restart to start over$/,
      ),
    ]);
    expect(refused.requests).toHaveLength(0);
    expect([dir.read('x.csv.checkpoint.json'), dir.read('x.csv.part')]).toEqual(kept);
    world.sandbox.setFaults([{ kind: 'status', status: 503 }]);
    // What a SIGKILL during the first request of the fresh run would leave behind:
    const leftAtFirstRequest: boolean[] = [];
    const failed = await runInProcess(world, dir, [...args(), '--restart', '--retries', '0'], {
      wrapFetch: (inner) => (input, init) => {
        leftAtFirstRequest.push(dir.has('x.csv.checkpoint.json'));
        return inner(input, init);
      },
    });
    expect(failed.code).toBe(6);
    expect(leftAtFirstRequest).toEqual([false]);
    expect(dir.has('x.csv.checkpoint.json') || dir.has('x.csv.part')).toBe(false);
    world.sandbox.setFaults([]);
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toMatch(/no checkpoint for .*starting afresh/);
    expect(parse(dir.read('x.csv')).length).toBe(61);
  });

  it('after a completed export (no checkpoint): starts afresh with a note and writes the same file', async () => {
    expect((await runInProcess(world, dir, args())).code).toBe(0);
    const done = dir.read('x.csv');
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toMatch(/^collections: no checkpoint for \S+x\.csv; starting afresh$/);
    expect(dir.read('x.csv').equals(done)).toBe(true);
  });
});
