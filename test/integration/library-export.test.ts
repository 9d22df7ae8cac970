/**
 * The library's `exportCollection()` (src/index.ts): the export command's engine behind options.
 * The file it writes is the command's byte for byte; an abort keeps the checkpoint and
 * `resume: true` continues it; failures are the command line's typed errors; nothing is printed
 * unless a log stream is given.
 */
import { describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { AbortError, CollectionsError, exportCollection, HttpError, UsageError, type ExportCollectionOptions } from '../../src/index.js';
import { createSandboxFetch } from '../../src/sandbox/fetch.js';
import { SAMPLE_ENTITY_IDS } from '../../src/sandbox/records/entities.js';
import { duckdbDatabase } from '../helpers/databases.js';
import { CANARY, runInProcess, WRONG_KEY, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld();

/** Options wired to the world, in the temp folder; `onRequest` sees each request as it starts. */
function options(extra: Partial<ExportCollectionOptions>, onRequest?: (n: number) => void): ExportCollectionOptions {
  const inner = createSandboxFetch(world.sandbox, { origin: world.base });
  let n = 0;
  return {
    path: `/taxpayers/${world.taxpayer}/invoices`,
    out: 'lib.ndjson',
    baseUrl: world.base,
    apiKey: world.key,
    fetch: (input, init) => {
      onRequest?.(++n);
      return inner(input, init);
    },
    clock: world.clock,
    cwd: dir.path,
    itemsPerPage: 7,
    ...extra,
  };
}

describe('exportCollection()', () => {
  it('writes the file the export command writes, byte for byte, with its manifest, and returns the summary', async () => {
    const cli = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '7', '--out', 'cli.ndjson']);
    expect(cli.code).toBe(0);
    const summary = await exportCollection(options({}));
    expect(dir.read('lib.ndjson').equals(dir.read('cli.ndjson'))).toBe(true);
    expect(summary).toMatchObject({ items: 60, pages: 9, retries: 0, waits: 0, brokenPipe: false, file: dir.file('lib.ndjson') });
    expect(summary.manifest).toBe(dir.file('lib.ndjson.manifest.json'));
    expect(dir.has('lib.ndjson.manifest.json')).toBe(true);
  });

  it('writes gzip when the file ends in .gz, and CSV when asked', async () => {
    await exportCollection(options({}));
    await exportCollection(options({ out: 'lib.ndjson.gz' }));
    expect(gunzipSync(dir.read('lib.ndjson.gz')).equals(dir.read('lib.ndjson'))).toBe(true);
    await exportCollection(options({ out: 'lib.csv', fields: ['id', 'issuer.rfc'] }));
    expect(dir.read('lib.csv').toString().split('\r\n')[0]).toBe('id,issuer.rfc');
  });

  it('writes to a stream without ending it', async () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    const summary = await exportCollection(options({ out: stream }));
    expect(Buffer.concat(chunks).toString().trim().split('\n')).toHaveLength(60);
    expect(stream.writableEnded).toBe(false);
    expect(summary).toMatchObject({ file: undefined, manifest: undefined, items: 60 });
  });

  it('keeps the checkpoint when aborted, and resume: true finishes the same file', async () => {
    await exportCollection(options({ out: 'full.ndjson' }));
    const controller = new AbortController();
    const abortAt4 = (n: number): void => {
      if (n === 4) controller.abort('stop');
    };
    const err: unknown = await exportCollection(options({ signal: controller.signal, concurrency: 1 }, abortAt4)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ message: 'aborted; checkpoint kept', hint: 'run it again with resume: true', exitCode: 130, cause: 'stop' });
    expect(dir.has('lib.ndjson')).toBe(false);
    expect(dir.has('lib.ndjson.part')).toBe(true);
    const summary = await exportCollection(options({ resume: true, concurrency: 1 }));
    expect(summary.items).toBe(60);
    expect(dir.read('lib.ndjson').equals(dir.read('full.ndjson'))).toBe(true);
  });

  it('prints nothing without a log stream, and the command line’s lines with one', async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    const stdout = vi.spyOn(process.stdout, 'write');
    await exportCollection(options({}));
    expect(stderr).not.toHaveBeenCalled();
    expect(stdout).not.toHaveBeenCalled();
    stderr.mockRestore();
    stdout.mockRestore();
    const log = new PassThrough();
    let text = '';
    log.on('data', (c: Buffer) => (text += c.toString()));
    await exportCollection(options({ out: 'again.ndjson', log }));
    expect(text).toMatch(/^collections: 60 items to .*again\.ndjson/m);
  });
});

describe('exportCollection() on any path get takes', () => {
  it("writes get's file for a path of the current family, with pinned headers and since on its date field", async () => {
    const path = `/entities/${SAMPLE_ENTITY_IDS[0]}/invoices`;
    const since = '2024-03-01T00:00:00+00:00';
    const headers = ['-H', 'Accept-Version: 2024-01', '-H', `X-Client-Token: ${CANARY}`];
    const cli = await runInProcess(world, dir, ['get', path, ...headers, '--since', since, '--items-per-page', '7', '--out', 'cli.ndjson', '-q']);
    expect(cli.code, cli.stderr).toBe(0);
    const sent: Array<{ url: string; headers: Headers }> = [];
    const base = options({ path, since, headers: { 'Accept-Version': '2024-01', 'X-Client-Token': CANARY } });
    const summary = await exportCollection({
      ...base,
      fetch: (input, init) => (sent.push({ url: String(input), headers: new Headers(init?.headers) }), base.fetch!(input, init)),
    });
    expect(dir.read('lib.ndjson').equals(dir.read('cli.ndjson'))).toBe(true);
    expect(summary.items).toBeGreaterThan(0);
    expect(decodeURIComponent(sent[0]!.url)).toContain(`updatedAt[after]=${since}`);
    expect(sent.every((r) => r.headers.get('accept-version') === '2024-01')).toBe(true);
    const manifest = dir.read('lib.ndjson.manifest.json').toString();
    expect(manifest).toContain('Accept-Version');
    expect(manifest).not.toContain(CANARY);
  });

  it('names its options, not flags, in what it refuses', async () => {
    const err: unknown = await exportCollection(options({ total: true })).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'total goes with cursor (offset mode always reports the total)' });
    const field: unknown = await exportCollection(options({ path: '/reports', since: '2024-01-01' })).catch((e: unknown) => e);
    expect(field).toMatchObject({ hint: "name it with sinceField (e.g. sinceField: 'updatedAt', sent as updatedAt[after])" });
    expect(world.sandbox.requests()).toEqual([]);
  });
});

describe('exportCollection(): errors', () => {
  it.each([
    ['an unknown taxpayer', { path: '/taxpayers/XAXX010101000/invoices' }, 'E_NOT_FOUND', 4, HttpError],
    ['a rejected key', { apiKey: WRONG_KEY }, 'E_AUTH', 3, HttpError],
  ] as const)('throws the typed error of %s, writing no file', async (_name, bad, code, exitCode, type) => {
    const err: unknown = await exportCollection(options(bad)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect(err).toMatchObject({ code, exitCode });
    expect((err as Error).message).not.toContain(WRONG_KEY);
    expect(dir.has('lib.ndjson')).toBe(false);
    expect(dir.has('lib.ndjson.part')).toBe(false);
  });

  it('makes the missing folders of out as the command does, and removes them again when the export fails', async () => {
    const err: unknown = await exportCollection(options({ out: 'runs/today/lib.ndjson', apiKey: WRONG_KEY })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(dir.has('runs')).toBe(false);
    const summary = await exportCollection(options({ out: 'runs/today/lib.ndjson' }));
    expect(summary.file).toBe(dir.file('runs/today/lib.ndjson'));
  });

  it.each([
    ['itemsPerPage 0', { itemsPerPage: 0 }, 'E_USAGE'],
    ['resume to a stream', { out: new PassThrough(), resume: true }, 'E_USAGE'],
    ['a .zip file', { out: 'x.zip' }, 'E_USAGE'],
    ["'-' for stdout", { out: '-' }, 'E_USAGE'],
    ['a page in the path', { path: '/reports?page=2' }, 'E_USAGE'],
    ['no base URL', { baseUrl: undefined as unknown as string }, 'E_CONFIG'],
    ['lookbackMs without a watermark to move', { lookbackMs: 60_000 }, 'E_USAGE'],
    ['lookbackMs over a day', { state: 'state.json', lookbackMs: 86_400_001 }, 'E_USAGE'],
  ] as const)('refuses %s before any request or file', async (_name, bad, code) => {
    const err: unknown = await exportCollection(options(bad as Partial<ExportCollectionOptions>)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as CollectionsError).code).toBe(code);
    expect((err as CollectionsError).exitCode).toBe(2);
    expect((err as Error).message).not.toContain(CANARY);
    expect(world.sandbox.requests()).toEqual([]);
    expect(dir.has('lib.ndjson.part')).toBe(false);
  });
});

describe('exportCollection() into a database', () => {
  it('DuckDB: a table named by the option, and incremental runs that start from the watermark stored with it', async () => {
    world.recreate({ churn: 6 });
    const db = duckdbDatabase(dir, 'lib.duckdb');
    const urls: string[] = [];
    const withUrls = (extra: Partial<ExportCollectionOptions>): ExportCollectionOptions => {
      const base = options(extra);
      return { ...base, fetch: (input, init) => (urls.push(String(input)), base.fetch!(input, init)) };
    };
    const first = await exportCollection(withUrls({ out: 'lib.duckdb', table: 'mirror_invoices', incremental: true }));
    expect(first).toMatchObject({ items: 60, file: undefined, manifest: undefined, table: 'mirror_invoices in lib.duckdb' });
    expect(urls[0]).not.toContain('updatedAt');
    const [stored] = await db.rows("SELECT watermark FROM collections_runs WHERE status = 'complete'");
    world.clock.advance(60_000);
    urls.length = 0;
    const second = await exportCollection(withUrls({ out: 'lib.duckdb', table: 'mirror_invoices', incremental: true }));
    expect(decodeURIComponent(urls[0]!)).toContain(`updatedAt[after]=${stored!.watermark}`);
    expect(second.items).toBe(6);
    const [moved] = await db.rows("SELECT watermark FROM collections_runs WHERE status = 'complete' ORDER BY watermark DESC LIMIT 1");
    urls.length = 0;
    await exportCollection(withUrls({ out: 'lib.duckdb', table: 'mirror_invoices', incremental: true, lookbackMs: 120_000 }));
    const back = new Date(Date.parse(String(moved!.watermark)) - 120_000).toISOString().replace('.000Z', '+00:00');
    expect(decodeURIComponent(urls[0]!)).toContain(`updatedAt[after]=${back}`);
    const [count] = await db.rows('SELECT count(*) AS n FROM mirror_invoices');
    expect(Number(count!.n)).toBe(world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`).length);
  });

  it('refuses an option a database cannot take before any request, as the command does', async () => {
    let sent = 0;
    await expect(exportCollection(options({ out: 'lib.duckdb', prune: true, incremental: true }, () => sent++))).rejects.toThrow(
      /^prune needs a complete, full run: with incremental the run/,
    );
    expect(sent).toBe(0);
    expect(dir.has('lib.duckdb')).toBe(false);
  });
});
