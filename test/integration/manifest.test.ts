/**
 * The manifest beside each file export and `collections verify` (docs/files.md, "Manifests and
 * `verify`"), in process against the sandbox on the virtual clock: the manifest's fields after an
 * export and after an interruption and `--resume`; verify passing on whole files and failing, one
 * line per mismatch and exit 8, on a changed byte, a truncated file and a missing one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { publicBaseUrl, type Manifest } from '../../src/export/manifest/manifest.js';
import type { FetchLike } from '../../src/context.js';
import { canaryFree, interruptAt, runInProcess, START, type InProcessOptions, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld();

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const readManifest = (name: string): Manifest => JSON.parse(dir.read(name).toString()) as Manifest;

/** Exports the world's taxpayer's invoices (60, 10 a page) to `out` with `extra` flags. */
function exportInvoices(out: string, extra: string[] = [], options: InProcessOptions = {}) {
  return runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '10', '--out', out, '--quiet', ...extra], options);
}

const verify = (...manifests: string[]) => runInProcess(world, dir, ['verify', ...manifests], { connectVia: 'none' });

describe('the manifest of a file export', () => {
  it('describes the file: request, clocks, counts, bytes, SHA-256, request ids; never the key', async () => {
    const ids: string[] = [];
    const wrapFetch =
      (inner: FetchLike): FetchLike =>
      async (url, init) => {
        const res = await inner(url, init);
        ids.push(res.headers.get('x-request-id')!);
        return res;
      };
    const r = await exportInvoices('inv.ndjson', ['--cursor', '--total', '--param', 'status=CANCELADO', '--param', 'currency=MXN'], { wrapFetch });
    expect(r.code, r.stderr).toBe(0);
    const file = dir.read('inv.ndjson');
    const text = dir.read('inv.ndjson.manifest.json').toString();
    const m = JSON.parse(text) as Manifest;
    expect(m).toMatchObject({ manifestVersion: 1, tool: 'collections', toolVersion: r.t.ctx.version });
    expect(m.outputs).toHaveLength(1);
    const o = m.outputs[0]!;
    const items = file.toString().split('\n').filter(Boolean).length;
    expect(o).toMatchObject({
      file: 'inv.ndjson',
      baseUrl: world.base,
      endpoint: { key: 'invoices', template: '/taxpayers/{taxpayerId}/invoices', path: `/taxpayers/${world.taxpayer}/invoices` },
      ids: { taxpayerId: world.taxpayer },
      filters: {
        params: [
          ['status', 'CANCELADO'],
          ['currency', 'MXN'],
        ],
        since: null,
      },
      watermark: { before: null, after: null },
      mode: 'cursor',
      format: 'ndjson',
      resumed: false,
      items,
      totalItems: items,
      bytes: file.length,
      sha256: sha256(file),
      rateLimitWaits: { count: 0, ms: 0 },
    });
    // The pages of 10 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on) (the only page when nothing matches).
    expect(o.pages).toBe(Math.ceil(items / 10) + 1);
    expect(ids.length).toBe(o.pages);
    expect(o.requestIds).toEqual({ first: ids[0], last: ids.at(-1) });
    // The virtual clock starts at START; the server's Date has whole seconds.
    expect(o.started.local).toBe(new Date(START).toISOString());
    expect(o.started.server).toBe(new Date(START).toISOString());
    expect(Date.parse(o.finished.local)).toBeGreaterThanOrEqual(Date.parse(o.started.local));
    expect(o.finished.server).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(canaryFree(text)).toBe(true);
    expect(readdirSync(dir.path).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('counts the rate-limit waits; the base URL keeps its path prefix without the trailing slash', async () => {
    world.recreate({ limit: 2, windowSeconds: 60 });
    const args = ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '20', '--out', 'inv.csv', '--quiet'];
    const r = await runInProcess(world, dir, [...args, '--base-url', `${world.base}/`, '--api-key', world.key], { connectVia: 'none' });
    expect(r.code, r.stderr).toBe(0);
    const o = readManifest('inv.csv.manifest.json').outputs[0]!;
    expect(o.baseUrl).toBe(world.base);
    expect(o.format).toBe('csv');
    expect(o.rateLimitWaits.count).toBeGreaterThan(0);
    expect(o.rateLimitWaits.ms).toBeGreaterThan(0);
  });

  it('publicBaseUrl drops userinfo, query and fragment (a key could hide there)', () => {
    expect(publicBaseUrl(new URL('https://user:secret@api.example.com/v1/?k=secret#x'))).toBe('https://api.example.com/v1');
    expect(publicBaseUrl(new URL('https://api.example.com'))).toBe('https://api.example.com');
  });

  it('after an interruption and --resume, the hash covers the whole file and resumed is true', async () => {
    world.recreate({ limit: 2, windowSeconds: 3600 });
    const first = await exportInvoices('inv.json', ['--cursor', '--max-wait', '30']);
    expect(first.code).toBe(5);
    expect(existsSync(dir.file('inv.json.manifest.json'))).toBe(false);
    const done = await exportInvoices('inv.json', ['--cursor', '--resume']);
    expect(done.code, done.stderr).toBe(0);
    const file = dir.read('inv.json');
    const o = readManifest('inv.json.manifest.json').outputs[0]!;
    expect(o).toMatchObject({ resumed: true, bytes: file.length, sha256: sha256(file), items: (JSON.parse(file.toString()) as unknown[]).length });
    expect((await verify('inv.json.manifest.json')).code).toBe(0);
  });

  it('--manifest FILE puts it elsewhere, naming the output relative to it; nothing beside the output', async () => {
    mkdirSync(dir.file('meta'));
    const r = await exportInvoices('inv.ndjson', ['--manifest', 'meta/run.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(dir.file('inv.ndjson.manifest.json'))).toBe(false);
    expect(readManifest('meta/run.json').outputs[0]!.file).toBe('../inv.ndjson');
    const v = await verify('meta/run.json');
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^ok inv\.ndjson: \d+ items, \d+ bytes, sha256 [0-9a-f]{64}\n$/);
  });

  it('--manifest without --out, or naming a file of the export, is a usage error (exit 2)', async () => {
    const stdout = await runInProcess(world, dir, ['entities', '--manifest', 'm.json']);
    expect(stdout.code).toBe(2);
    expect(stdout.lines).toEqual(['collections: --manifest needs --out FILE (a manifest describes a file)']);
    const clash = await exportInvoices('inv.ndjson', ['--manifest', 'inv.ndjson.part']);
    expect(clash.code).toBe(2);
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual([]);
  });

  it('stdout exports write no manifest', async () => {
    const r = await runInProcess(world, dir, ['entities', '--quiet']);
    expect(r.code).toBe(0);
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual([]);
  });
});

describe('collections verify', () => {
  it('passes on fresh ndjson, json and csv files, one ok line each, exit 0', async () => {
    for (const out of ['a.ndjson', 'a.json', 'a.csv']) expect((await exportInvoices(out)).code).toBe(0);
    const v = await verify('a.ndjson.manifest.json', 'a.json.manifest.json', 'a.csv.manifest.json');
    expect(v.code, v.stderr).toBe(0);
    expect(v.stderr).toBe('');
    expect(
      v.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]),
    ).toEqual(['ok a.ndjson', 'ok a.json', 'ok a.csv']);
  });

  it('fails on a changed byte (hash), a truncated file (size, hash, items) and a missing file: one line each, exit 8', async () => {
    for (const out of ['changed.ndjson', 'cut.csv', 'gone.json', 'fine.ndjson']) expect((await exportInvoices(out)).code).toBe(0);
    const changed = dir.read('changed.ndjson');
    changed[5] = changed[5] === 0x41 ? 0x42 : 0x41;
    writeFileSync(dir.file('changed.ndjson'), changed);
    const cut = dir.read('cut.csv');
    truncateSync(dir.file('cut.csv'), cut.length >> 1);
    unlinkSync(dir.file('gone.json'));
    const manifests = ['changed', 'cut', 'gone', 'fine'].map((n) =>
      readdirSync(dir.path).find((f) => f.startsWith(`${n}.`) && f.endsWith('.manifest.json'))!,
    );
    const v = await verify(...manifests);
    expect(v.code).toBe(8);
    expect(v.stdout).toMatch(/^ok fine\.ndjson: /);
    expect(v.lines).toEqual([
      expect.stringMatching(/^collections: changed\.ndjson: SHA-256 is [0-9a-f]{64}, the manifest says [0-9a-f]{64}$/),
      `collections: cut.csv: size is ${cut.length >> 1} bytes, the manifest says ${cut.length}`,
      expect.stringMatching(/^collections: cut\.csv: SHA-256 is /),
      expect.stringMatching(/^collections: cut\.csv: holds \d+ items, the manifest says \d+$/),
      'collections: gone.json: missing',
      'collections: verification failed: 5 mismatches in 3 of 4 files; run the export again (with --resume if it was interrupted)',
    ]);
  });

  it('a missing or foreign manifest fails too (exit 8)', async () => {
    writeFileSync(dir.file('other.json'), '{"hello":1}');
    const v = await verify('nope.manifest.json', 'other.json');
    expect(v.code).toBe(8);
    expect(v.lines.slice(0, 2)).toEqual([
      'collections: nope.manifest.json: manifest missing',
      'collections: other.json: not a collections manifest (manifestVersion is not 1)',
    ]);
  });

  it('counts the items of a .gz on its decompressed bytes, across gzip members', async () => {
    expect((await exportInvoices('g.ndjson')).code).toBe(0);
    const plain = dir.read('g.ndjson');
    const half = plain.indexOf(0x0a, plain.length >> 1) + 1;
    const gz = Buffer.concat([gzipSync(plain.subarray(0, half)), gzipSync(plain.subarray(half))]);
    writeFileSync(dir.file('g.ndjson.gz'), gz);
    const m = readManifest('g.ndjson.manifest.json');
    const o = { ...m.outputs[0]!, file: 'g.ndjson.gz', bytes: gz.length, sha256: sha256(gz) };
    writeFileSync(dir.file('g.gz.manifest.json'), JSON.stringify({ ...m, outputs: [o] }));
    expect((await verify('g.gz.manifest.json')).code).toBe(0);
    writeFileSync(dir.file('g.gz.manifest.json'), JSON.stringify({ ...m, outputs: [{ ...o, items: o.items + 1 }] }));
    const v = await verify('g.gz.manifest.json');
    expect(v.code).toBe(8);
    expect(v.lines[0]).toBe(`collections: g.ndjson.gz: holds ${o.items} items, the manifest says ${o.items + 1}`);
  });

  it.each([
    ['--out F.ndjson.gz', 'z.ndjson.gz', [] as string[], 'ndjson'],
    ['--out F.csv.gz', 'z.csv.gz', [] as string[], 'csv'],
    ['--compress gzip with a name without .gz', 'z.json', ['--compress', 'gzip'], 'json'],
  ])(
    '%s gets a manifest (size and SHA-256 as written, items counted through gunzip); verify passes, then fails on a changed file',
    async (_name, out, extra, format) => {
      expect((await exportInvoices(`plain.${format}`)).code).toBe(0);
      const r = await exportInvoices(out, ['--cursor', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      const gz = dir.read(out);
      expect(gunzipSync(gz).equals(dir.read(`plain.${format}`))).toBe(true);
      const o = readManifest(`${out}.manifest.json`).outputs[0]!;
      expect(o).toMatchObject({ file: out, format, compression: 'gzip', items: 60, bytes: gz.length, sha256: sha256(gz) });
      const ok = await verify(`${out}.manifest.json`);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toBe(`ok ${out}: 60 items, ${gz.length} bytes, sha256 ${sha256(gz)}\n`);
      // The same items recompressed: another size and hash, the same count through gunzip.
      const other = gzipSync(gunzipSync(gz), { level: 1 });
      writeFileSync(dir.file(out), other);
      const v = await verify(`${out}.manifest.json`);
      expect(v.code).toBe(8);
      expect(v.lines.slice(0, 2)).toEqual([
        `collections: ${out}: size is ${other.length} bytes, the manifest says ${gz.length}`,
        `collections: ${out}: SHA-256 is ${sha256(other)}, the manifest says ${sha256(gz)}`,
      ]);
    },
  );

  it('a gzip export completed by --resume gets the manifest of the whole file', async () => {
    const first = await exportInvoices('r.ndjson.gz', ['--cursor'], {
      env: { COLLECTIONS_CHECKPOINT_MS: '0' },
      ...interruptAt(3),
    });
    expect(first.code).toBe(130);
    expect(dir.has('r.ndjson.gz.manifest.json')).toBe(false);
    const r = await exportInvoices('r.ndjson.gz', ['--cursor', '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const gz = dir.read('r.ndjson.gz');
    const o = readManifest('r.ndjson.gz.manifest.json').outputs[0]!;
    expect(o).toMatchObject({ resumed: true, compression: 'gzip', items: 60, bytes: gz.length, sha256: sha256(gz) });
    expect((await verify('r.ndjson.gz.manifest.json')).code).toBe(0);
  });

  it('a plain output says compression null', async () => {
    expect((await exportInvoices('p.ndjson')).code).toBe(0);
    expect(readManifest('p.ndjson.manifest.json').outputs[0]!.compression).toBeNull();
  });

  it('a manifest moved with its output still verifies (paths are relative)', async () => {
    expect((await exportInvoices('m.ndjson')).code).toBe(0);
    mkdirSync(dir.file('moved'));
    renameSync(dir.file('m.ndjson'), dir.file('moved/m.ndjson'));
    renameSync(dir.file('m.ndjson.manifest.json'), dir.file('moved/m.ndjson.manifest.json'));
    expect((await verify('moved/m.ndjson.manifest.json')).code).toBe(0);
  });
});
