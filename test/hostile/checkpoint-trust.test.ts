/**
 * Issue 11, item 7: a checkpoint is checked before it is trusted (schema, options, next link on the
 * configured origin and the command's path, byte offset on a record boundary): anything else is
 * exit 2 (`E_CHECKPOINT`) naming what did not match, with nothing sent and nothing touched. Without
 * `--resume`, an existing checkpoint is never silently discarded; `--restart` discards it.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHostile } from '../faults/harness.js';
import type { Checkpoint } from '../../src/export/files/checkpoint.js';
import { idsOfNdjson, removeTempDirs, runInProcess, interruptAt, useTempDir, useWorld } from '../helpers/world.js';
import { snapshot } from './snapshot.js';

const world = useWorld({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 60 } });
const dir = useTempDir('collections-hostile-checkpoint-');

afterAll(removeTempDirs);

const args = (out = 'out.ndjson') => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', out];

/** Interrupts an export to `out` after 3 responses and returns its checkpoint. */
async function interrupted(out = 'out.ndjson'): Promise<Checkpoint> {
  const r = await runInProcess(world, dir, args(out), interruptAt(3));
  expect(r.code).toBe(130);
  return JSON.parse(dir.read(`${out}.checkpoint.json`).toString()) as Checkpoint;
}

/** Rewrites the checkpoint of `out`, resumes, and expects exit 2 with `message`, nothing sent or touched. */
async function expectRefused(out: string, tamper: (cp: Record<string, unknown>) => unknown, message: RegExp): Promise<void> {
  const cp = (await interrupted(out)) as unknown as Record<string, unknown>;
  writeFileSync(dir.file(`${out}.checkpoint.json`), JSON.stringify(tamper(cp)));
  const before = snapshot(dir.path);
  const r = await runInProcess(world, dir, [...args(out), '--resume']);
  recordHostile({
    exit: r.code,
    message: r.lines.join(' / '),
    files: JSON.stringify(snapshot(dir.path)) === JSON.stringify(before) ? 'untouched' : 'changed',
    output: `kept as it was; ${r.requests.length} requests`,
  });
  expect(r.code).toBe(2);
  expect(r.lines).toEqual([expect.stringMatching(message)]);
  expect(r.requests).toHaveLength(0);
  expect(snapshot(dir.path)).toEqual(before);
}

const NOT_MATCHING = (what: string) =>
  new RegExp(
    `^collections: the checkpoint \\S+out\\.ndjson\\.checkpoint\\.json does not match this export: ${what}; run with --restart instead of --resume to discard it and the \\.part file and start afresh$`,
  );
const CORRUPT = (what: string) =>
  new RegExp(
    `^collections: the checkpoint \\S+\\.checkpoint\\.json is corrupt or from another version \\(${what}\\); run with --restart instead of --resume to discard it and the \\.part file and start afresh$`,
  );

describe('a tampered checkpoint is refused before anything is sent', () => {
  it('a next link to another origin', () =>
    expectRefused(
      'out.ndjson',
      (cp) => ({ ...cp, next: 'https://evil.example/api/taxpayers/X/invoices?cursor=1' }),
      NOT_MATCHING('its next link is not on http://127\\.0\\.0\\.1:9'),
    ));

  it('a next link to another taxpayer', () =>
    expectRefused(
      'out.ndjson',
      (cp) => ({ ...cp, next: String(cp.next).replace(world.taxpayer, world.sandbox.taxpayers()[1]!) }),
      NOT_MATCHING('its next link is not on the path /\\S+'),
    ));

  it('a next link that is not a URL', () =>
    expectRefused('out.ndjson', (cp) => ({ ...cp, next: 'http://[::1' }), NOT_MATCHING('its next link is not a URL')));

  it('a next link with credentials', () =>
    expectRefused(
      'out.ndjson',
      (cp) => ({ ...cp, next: String(cp.next).replace('http://', 'http://user:pw@') }),
      NOT_MATCHING('its next link carries credentials or a fragment'),
    ));

  it.each([
    ['items negative', { items: -1 }, 'items is not a non-negative integer'],
    ['pages fractional', { pages: 1.5 }, 'pages is not a non-negative integer'],
    ['bytes a string', { bytes: '10' }, 'bytes is not a non-negative integer'],
    ['formatter an array', { formatter: [] }, 'formatter is not an object'],
    ['next a number', { next: 7 }, 'next is neither null nor a string'],
    ['totalItems negative', { totalItems: -5 }, 'totalItems is not a non-negative integer'],
    ['updatedAt not a date', { updatedAt: 'yesterday' }, 'updatedAt is not a date'],
    ['another version', { version: 2 }, 'version is not 1'],
  ])('%s', (_name, patch, what) => expectRefused('out.ndjson', (cp) => ({ ...cp, ...patch }), CORRUPT(what)));

  it('other options (the fingerprint names them)', () =>
    expectRefused(
      'out.ndjson',
      (cp) => ({ ...cp, fingerprint: { ...(cp.fingerprint as object), request: '/other' } }),
      /^collections: --resume with different options than the interrupted export \(its ≠ this run's\): the path \/other ≠ \S+ \(the ids\), --items-per-page not given ≠ \d+; repeat its options, or run with --restart instead of --resume to discard \S+ and the \.part file and start afresh$/,
    ));

  it.each([
    ['out.ndjson', 'ndjson'],
    ['out.csv', 'csv'],
    ['out.json', 'json'],
  ])('an offset in the middle of a record (%s)', (out, format) =>
    expectRefused(
      out,
      (cp) => ({ ...cp, bytes: (cp.bytes as number) - 3 }),
      new RegExp(
        `^collections: checkpoint does not match the partial file: byte \\d+ of \\S+ is not the end of a ${format} record; start over with --restart$`,
      ),
    ),
  );

  it.each(['out.ndjson', 'out.csv', 'out.json'])('an untouched checkpoint (%s) is resumed to a complete file', async (out) => {
    await interrupted(out);
    const r = await runInProcess(world, dir, [...args(out), '--resume']);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toMatch(/^collections: resuming after \d+ items/);
    expect(dir.has(`${out}.checkpoint.json`) || dir.has(`${out}.part`)).toBe(false);
  });
});

describe('an existing checkpoint is never silently discarded', () => {
  it('without --resume: exit 2 with the hint, nothing sent, nothing touched', async () => {
    await interrupted();
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, args());
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      expect.stringMatching(
        /^collections: an interrupted export of \S+out\.ndjson has a checkpoint \(\S+out\.ndjson\.checkpoint\.json\); use --resume to continue it, or --restart to start over$/,
      ),
    ]);
    expect(r.requests).toHaveLength(0);
    expect(snapshot(dir.path)).toEqual(before);
  });

  it('--restart discards it and the partial file and exports afresh', async () => {
    await interrupted();
    const r = await runInProcess(world, dir, [...args(), '--restart']);
    expect(r.code).toBe(0);
    const ids = idsOfNdjson(dir.read('out.ndjson').toString());
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    expect(Object.keys(snapshot(dir.path))).toEqual(['out.ndjson', 'out.ndjson.manifest.json']);
  });

  it('--resume --restart together is a usage error (exit 2), nothing sent or touched', async () => {
    await interrupted();
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, [...args(), '--resume', '--restart']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: --resume and --restart exclude each other/)]);
    expect(r.requests).toHaveLength(0);
    expect(snapshot(dir.path)).toEqual(before);
  });
});
