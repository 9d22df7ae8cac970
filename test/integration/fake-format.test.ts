/**
 * Adding an output format takes one file and one line: the fake format (test/fixtures/fake-format.ts,
 * one complete definition) is registered here the way a real one is, by appending it to the registry
 * list (output/formats/index.ts) and its name to the names' leaf (src/format-names.ts, which
 * config/ reads without loading formatters), and then works end to end with nothing else touched:
 * `--format` and `--help`, the `--out` extension, stdout and files, gzip, `--resume` with its record
 * boundary, the manifest and `verify` with its item count. The last test shows that a definition
 * missing a rule does not compile (`npm run lint` type-checks this file).
 */
import { writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { FormatDefinition } from '../../src/output/formatter.js';
import { fake } from '../fixtures/fake-format.js';
import { interruptAt, runInProcess, useTempDir, useWorld } from '../helpers/world.js';

vi.mock('../../src/format-names.js', async (importOriginal) => {
  const names = await importOriginal<typeof import('../../src/format-names.js')>();
  return { ...names, OUTPUT_FORMATS: [...names.OUTPUT_FORMATS, 'fake'] };
});
vi.mock('../../src/output/formats/index.js', async (importOriginal) => {
  const registry = await importOriginal<typeof import('../../src/output/formats/index.js')>();
  return { FORMATS: [...registry.FORMATS, (await import('../fixtures/fake-format.js')).fake] };
});

const dir = useTempDir();
const world = useWorld();

const invoices = (...extra: string[]) => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--quiet', ...extra];

/** The fake text of the items of an NDJSON text (the items as the server wrote them, one a line). */
function fakeOf(ndjson: string): string {
  const lines = ndjson.split('\n').filter(Boolean);
  return `FAKE\n${lines.map((line) => `> ${line}\n`).join('')}END ${lines.length}\n`;
}

describe('a format added by one file and one line', () => {
  it('is a --format choice in help and completion, and writes its bytes to stdout', async () => {
    const help = await runInProcess(world, dir, ['invoices', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('(choices: "json", "ndjson", "csv", "table", "fake")');
    const bash = await runInProcess(world, dir, ['completion', 'bash'], { connectVia: 'none' });
    expect(bash.stdout).toContain('-f|--format) COMPREPLY=( $(compgen -W "json ndjson csv table fake" -- "$cur") )');
    const reference = await runInProcess(world, dir, invoices('--format', 'ndjson'));
    const r = await runInProcess(world, dir, invoices('--format', 'fake'));
    expect(r.code, r.stderr).toBe(0);
    expect(reference.stdout.split('\n').filter(Boolean)).toHaveLength(60);
    expect(r.stdout).toBe(fakeOf(reference.stdout));
  });

  it('is implied by its extension, and its file gets a manifest that verify counts with its rule', async () => {
    const r = await runInProcess(world, dir, invoices('--out', 'x.fake'));
    expect(r.code, r.stderr).toBe(0);
    const reference = await runInProcess(world, dir, invoices());
    expect(dir.read('x.fake').toString()).toBe(fakeOf(reference.stdout));
    const manifest = JSON.parse(dir.read('x.fake.manifest.json').toString()) as { outputs: Array<Record<string, unknown>> };
    expect(manifest.outputs[0]).toMatchObject({ file: 'x.fake', format: 'fake', items: 60, bytes: dir.read('x.fake').length });
    const ok = await runInProcess(world, dir, ['verify', 'x.fake.manifest.json'], { connectVia: 'none' });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok x\.fake: 60 items, /);
    // Same bytes, another count in the manifest: only the fake counter can tell (it counted 60).
    manifest.outputs[0]!.items = 59;
    writeFileSync(dir.file('x.fake.manifest.json'), JSON.stringify(manifest));
    const wrong = await runInProcess(world, dir, ['verify', 'x.fake.manifest.json'], { connectVia: 'none' });
    expect(wrong.code).toBe(8);
    expect(wrong.lines[0]).toBe('collections: x.fake: holds 60 items, the manifest says 59');
  });

  it('is compressed with gzip, as its definition allows, and verify counts the decompressed items', async () => {
    const r = await runInProcess(world, dir, invoices('--out', 'x.fake.gz'));
    expect(r.code, r.stderr).toBe(0);
    const reference = await runInProcess(world, dir, invoices());
    expect(gunzipSync(dir.read('x.fake.gz')).toString()).toBe(fakeOf(reference.stdout));
    expect((await runInProcess(world, dir, ['verify', 'x.fake.gz.manifest.json'], { connectVia: 'none' })).stdout).toMatch(
      /^ok x\.fake\.gz: 60 items, /,
    );
  });

  it('resumes after an interruption byte-identically, and its record boundary guards the checkpoint', async () => {
    const clean = await runInProcess(world, dir, invoices('--out', 'clean.fake'));
    expect(clean.code, clean.stderr).toBe(0);
    expect((await runInProcess(world, dir, invoices('--out', 'x.fake'), interruptAt(3))).code).toBe(130);
    const checkpoint = dir.read('x.fake.checkpoint.json').toString();
    const saved = JSON.parse(checkpoint) as { bytes: number; items: number };
    expect(saved.items).toBe(20);
    // An offset inside a record is refused by the fake format's boundary rule, before anything is sent.
    writeFileSync(dir.file('x.fake.checkpoint.json'), JSON.stringify({ ...saved, bytes: saved.bytes - 3 }));
    const sent = world.sandbox.requests().length;
    const refused = await runInProcess(world, dir, invoices('--out', 'x.fake', '--resume'));
    expect(refused.code).toBe(2);
    expect(refused.lines).toEqual([
      expect.stringMatching(
        /^collections: checkpoint does not match the partial file: byte \d+ of \S+ is not the end of a fake record; start over with --restart$/,
      ),
    ]);
    expect(world.sandbox.requests()).toHaveLength(sent);
    writeFileSync(dir.file('x.fake.checkpoint.json'), checkpoint);
    const resumed = await runInProcess(world, dir, invoices('--out', 'x.fake', '--resume'));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(dir.read('x.fake').equals(dir.read('clean.fake'))).toBe(true);
    expect(dir.read('x.fake').toString()).toMatch(/\nEND 60\n$/);
  });

  it('cannot leave out a rule: a definition without one does not compile', () => {
    const { countItems: _count, ...noCount } = fake;
    const { resume: _resume, ...noResume } = fake;
    const { compress: _compress, ...noCompress } = fake;
    const { prepare: _prepare, ...noPrepare } = fake;
    const { extensions: _extensions, ...noExtensions } = fake;
    // @ts-expect-error countItems is required: `verify` must be told how to count, or told null
    const a: FormatDefinition<'fake'> = noCount;
    // @ts-expect-error resume is required: a boundary rule, or the refusal of --resume
    const b: FormatDefinition<'fake'> = noResume;
    // @ts-expect-error compress is required: gzip allowed, or its refusal
    const c: FormatDefinition<'fake'> = noCompress;
    // @ts-expect-error prepare is required (null when there is nothing to load)
    const d: FormatDefinition<'fake'> = noPrepare;
    // @ts-expect-error extensions is required (empty when no --out name implies the format)
    const e: FormatDefinition<'fake'> = noExtensions;
    // @ts-expect-error a format that can resume must say where a record ends
    const f: FormatDefinition<'fake'> = { ...fake, resume: { resumable: true } };
    // @ts-expect-error a format that refuses gzip must say why, in the usage error's words
    const g: FormatDefinition<'fake'> = { ...fake, compress: { compressible: false } };
    for (const broken of [a, b, c, d, e]) expect(Object.keys(broken)).toHaveLength(Object.keys(fake).length - 1);
    expect([f.resume, g.compress]).toEqual([{ resumable: true }, { compressible: false }]);
  });
});
