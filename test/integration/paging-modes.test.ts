/**
 * The mode the API really pages in (docs/choices.md, "Cursor-only endpoints and honest mode"), from
 * whole in-process exports: a cursor-only endpoint (its 400 for `page`, or cursor links on the
 * first page) is exported in cursor mode with one note unless `--page` pins offset pages; `--cursor`
 * answered with offset pages is exported by offset and said so; the manifest, the summary, the
 * events and the checkpoint record the mode used; pages without `view` are whole collections.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { cursorPage, LD_JSON } from '../fixtures/api-platform.js';
import { createWorld, idsOfNdjson, interruptAt, runInProcess, type SandboxWorld, type WorldOptions, useTempDir } from '../helpers/world.js';

const ONLY_CURSOR = 'Only cursor pagination is available for this endpoint.';

const dir = useTempDir();

/** A world of 45 invoices and its invoices' path and ids, newest first. */
function setUp(options: WorldOptions = {}): { world: SandboxWorld; ids: string[]; args: string[] } {
  const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 45 }, ...options });
  const ids = world.sandbox.invoiceIds(world.taxpayer);
  return { world, ids, args: ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '10'] };
}

const manifestOf = (name: string): { outputs: Array<{ mode: string; items: number }> } =>
  JSON.parse(dir.read(`${name}.manifest.json`).toString()) as { outputs: Array<{ mode: string; items: number }> };
const pageParams = (urls: string[]): Array<string | null> => urls.map((u) => new URL(u, 'http://x').searchParams.get('page'));
const events = (stderr: string): Array<Record<string, unknown>> =>
  stderr
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('cursor-only endpoint (sandbox cursorOnly)', () => {
  it.each([['1'], ['4'], ['8']])(
    'default export, --concurrency %s: no page sent, cursor mode with one note, every item once, manifest and summary say cursor',
    async (concurrency) => {
      const { world, ids, args } = setUp({ cursorOnly: true });
      const r = await runInProcess(world, dir, [...args, '--concurrency', concurrency, '--out', 'inv.ndjson']);
      expect(r.code).toBe(0);
      expect(r.lines[0]).toBe('collections: the API answered with cursor pages (links with a cursor, no page numbers); continuing in cursor mode');
      expect(r.lines[1]).toMatch(/^collections: 45 items to .*inv\.ndjson in .*; the API paged by cursor\)$/);
      expect(r.lines).toHaveLength(2);
      expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(ids);
      // Every request a 200, none with a page number: 5 pages and the empty one that ends the chain.
      expect(r.requests.map((q) => q.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(pageParams(r.requests.map((q) => q.url))).toEqual([null, null, null, null, null, null]);
      expect(manifestOf('inv.ndjson').outputs[0]).toMatchObject({ mode: 'cursor', items: 45 });
    },
  );

  it('--cursor: no note, cursor mode as asked', async () => {
    const { world, ids, args } = setUp({ cursorOnly: true });
    const r = await runInProcess(world, dir, [...args, '--cursor', '--out', 'inv.ndjson']);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/no rate-limit waits\)$/);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(ids);
    expect(manifestOf('inv.ndjson').outputs[0]!.mode).toBe('cursor');
  });

  it('--page 2: exit 2 before anything is written, with the API message and the hint to drop --page', async () => {
    const { world, args } = setUp({ cursorOnly: true });
    const r = await runInProcess(world, dir, [...args, '--page', '2', '--out', 'inv.ndjson']);
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(`HTTP 400): ${ONLY_CURSOR}`);
    expect(r.lines[0]).toMatch(/; drop --page: without it the export starts at the API's first page and follows its cursor links, as --cursor does$/);
    expect(r.requests).toHaveLength(1);
    expect(dir.has('inv.ndjson')).toBe(false);
    expect(dir.has('inv.ndjson.part')).toBe(false);
  });

  it('--max-items 15: cursor mode requests only the two pages that hold them', async () => {
    const { world, ids, args } = setUp({ cursorOnly: true });
    const r = await runInProcess(world, dir, [...args, '--max-items', '15']);
    expect(r.code).toBe(0);
    expect(idsOfNdjson(r.stdout)).toEqual(ids.slice(0, 15));
    expect(r.requests).toHaveLength(2);
  });

  it('--log-format json: one mode event, and the summary says cursor', async () => {
    const { world, args } = setUp({ cursorOnly: true });
    const r = await runInProcess(world, dir, [...args, '--log-format', 'json', '--out', 'inv.ndjson']);
    expect(r.code).toBe(0);
    const all = events(r.stderr);
    expect(all.filter((e) => e.event === 'mode')).toEqual([expect.objectContaining({ mode: 'cursor', asked: 'offset' })]);
    expect(all.at(-1)).toMatchObject({ event: 'summary', items: 45, mode: 'cursor' });
  });

  it('--resume continues in the mode recorded in the checkpoint, without another note', async () => {
    const { world, ids, args } = setUp({ cursorOnly: true });
    const first = await runInProcess(world, dir, [...args, '--out', 'inv.ndjson'], interruptAt(3));
    expect(first.code).toBe(130);
    const checkpoint = JSON.parse(dir.read('inv.ndjson.checkpoint.json').toString()) as { mode: string; next: string; items: number };
    expect(checkpoint).toMatchObject({ mode: 'cursor', items: 20 });
    expect(checkpoint.next).toMatch(/id%5Blt%5D=/);
    const resumed = await runInProcess(world, dir, [...args, '--out', 'inv.ndjson', '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.lines.filter((l) => l.includes('continuing in'))).toEqual([]);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(ids);
    expect(pageParams(resumed.requests.map((q) => q.url)).every((p) => p === null)).toBe(true);
    expect(manifestOf('inv.ndjson').outputs[0]!.mode).toBe('cursor');
  });
});

describe('the cursor-only 400 on a request without page', () => {
  it('goes on in cursor mode from the first page, with the API message in the note', async () => {
    const world = createWorld();
    const path = '/taxpayers/AAA010101AAA/invoices';
    const log: string[] = [];
    // A server that pages by cursor only and wants to be asked for cursor pages.
    const fetch: FetchLike = (input, init) => {
      const url = new URL(String(input));
      const cursor = new Headers(init?.headers).get('x-pagination-style') === 'cursor';
      log.push(`${cursor ? 'cursor' : 'plain'} ${url.pathname}${url.search}`);
      const headers = { 'Content-Type': cursor ? LD_JSON : 'application/json', Date: new Date(world.clock.now()).toUTCString() };
      const body = cursor ? cursorPage({ path, size: 25 }, url) : JSON.stringify({ message: ONLY_CURSOR });
      return Promise.resolve(new Response(body, { status: cursor ? 200 : 400, headers }));
    };
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', 'AAA010101AAA', '--items-per-page', '10', '--out', 'inv.ndjson'], {
      wrapFetch: () => fetch,
    });
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe(`collections: the API pages this endpoint by cursor only (HTTP 400: ${ONLY_CURSOR}); continuing in cursor mode`);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(Array.from({ length: 25 }, (_, i) => String(25 - i)));
    expect(log).toEqual([
      `plain ${path}?itemsPerPage=10`,
      `cursor ${path}?itemsPerPage=10`,
      `cursor ${path}?itemsPerPage=10&id%5Blt%5D=16`,
      `cursor ${path}?itemsPerPage=10&id%5Blt%5D=6`,
      `cursor ${path}?itemsPerPage=10&id%5Blt%5D=1`,
    ]);
    expect(manifestOf('inv.ndjson').outputs[0]!.mode).toBe('cursor');
  });
});

describe('honest mode: --cursor answered with offset pages (sandbox ignorePaginationStyle)', () => {
  it('follows the offset pages exactly, says so once, and records offset', async () => {
    const { world, ids, args } = setUp({ ignorePaginationStyle: true });
    const r = await runInProcess(world, dir, [...args, '--cursor', '--out', 'inv.ndjson']);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe('collections: the API answered --cursor with offset pages (it ignores X-Pagination-Style); continuing in offset mode');
    expect(r.lines[1]).toMatch(/; the API paged by offset\)$/);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(ids);
    expect(pageParams(r.requests.map((q) => q.url))).toEqual([null, '2', '3', '4', '5']);
    expect(manifestOf('inv.ndjson').outputs[0]!.mode).toBe('offset');
  });

  it('a default offset export of the same server says nothing', async () => {
    const { world, args } = setUp({ ignorePaginationStyle: true });
    const r = await runInProcess(world, dir, [...args, '--out', 'inv.ndjson']);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(manifestOf('inv.ndjson').outputs[0]!.mode).toBe('offset');
  });
});

describe('offset mode', () => {
  it('the first request carries no page; --concurrency asks for page 2 on only after it came back', async () => {
    const { world, ids, args } = setUp();
    const seen: string[] = [];
    const r = await runInProcess(world, dir, [...args, '--concurrency', '8', '--out', 'inv.ndjson'], {
      wrapFetch: (inner) => async (input, init) => {
        seen.push(`> ${new URL(String(input)).search}`);
        const res = await inner(input, init);
        seen.push(`< ${new URL(String(input)).search}`);
        return res;
      },
    });
    expect(r.code).toBe(0);
    expect(seen.slice(0, 3)).toEqual(['> ?itemsPerPage=10', '< ?itemsPerPage=10', '> ?itemsPerPage=10&page=2']);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(ids);
    expect(manifestOf('inv.ndjson').outputs[0]!.mode).toBe('offset');
  });

  it('--page 1 is sent as asked', async () => {
    const { world, args } = setUp();
    const r = await runInProcess(world, dir, [...args, '--page', '1', '--concurrency', '1']);
    expect(r.code).toBe(0);
    expect(pageParams(r.requests.map((q) => q.url))).toEqual(['1', '2', '3', '4', '5']);
  });

  it('a checkpoint of an offset export written before the first request lost its page is refused as other options', async () => {
    const { world, args } = setUp();
    const first = await runInProcess(world, dir, [...args, '--concurrency', '1', '--out', 'inv.ndjson'], interruptAt(3));
    expect(first.code).toBe(130);
    const path = dir.file('inv.ndjson.checkpoint.json');
    const checkpoint = JSON.parse(readFileSync(path, 'utf8')) as { fingerprint: { request: string }; mode?: string };
    checkpoint.fingerprint.request += '&page=1';
    delete checkpoint.mode;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, JSON.stringify(checkpoint));
    const resumed = await runInProcess(world, dir, [...args, '--concurrency', '1', '--out', 'inv.ndjson', '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.lines[0]).toMatch(/--resume with different options than the interrupted export .*: --page 1 ≠ not given; .*--restart/);
    expect(resumed.requests).toHaveLength(0);
  });
});

describe("pages without view (sandbox singlePage: 'no-view')", () => {
  const FORMATS = ['ndjson', 'json', 'csv', 'table'] as const;

  it.each(FORMATS.flatMap((format) => [0, 30].flatMap((size) => [false, true].map((cursor) => [format, size, cursor] as const))))(
    '%s, %i invoices, cursor %s: one page without view is the whole collection',
    async (format, size, cursor) => {
      const { world, ids } = setUp({ singlePage: 'no-view', cursorEnd: 'last-page', sizes: { taxpayers: 1, invoicesPerTaxpayer: size } });
      const page = await world.sandbox.handle(
        new Request(`${world.base}/taxpayers/${world.taxpayer}/invoices?itemsPerPage=50`, {
          headers: { 'X-Api-Key': world.key, ...(cursor ? { 'X-Pagination-Style': 'cursor' } : {}) },
        }),
      );
      const body = (await page.json()) as Record<string, unknown>;
      expect(body).not.toHaveProperty('hydra:view');
      const r = await runInProcess(world, dir, [
        'invoices',
        '--taxpayer',
        world.taxpayer,
        '--items-per-page',
        '50',
        ...(cursor ? ['--cursor'] : []),
        '--format',
        format,
        '--fields',
        'id,issuer.rfc',
        '--quiet',
      ]);
      expect(r.code).toBe(0);
      expect(r.requests).toHaveLength(1);
      const out = r.stdout;
      if (format === 'ndjson') expect(idsOfNdjson(out)).toEqual(ids);
      if (format === 'json') expect((JSON.parse(out) as Array<{ id: string }>).map((i) => i.id)).toEqual(ids);
      if (format === 'csv') expect(out.split('\r\n').filter(Boolean)).toHaveLength(size + 1);
      if (format === 'table') for (const id of ids) expect(out).toContain(id.slice(0, 8));
    },
  );

  it('CSV flattens the embedded batch payment of payments and the embedded invoice of line items', async () => {
    const { world } = setUp({
      singlePage: 'no-view',
      batchPayment: 'object',
      dates: 'naive',
      sizes: { taxpayers: 1, invoicesPerTaxpayer: 3, paymentsPerTaxpayer: 4 },
    });
    const payments = await runInProcess(world, dir, ['payments', '--taxpayer', world.taxpayer, '--format', 'csv', '--quiet']);
    expect(payments.code).toBe(0);
    const [header, ...rows] = payments.stdout.split('\r\n').filter(Boolean);
    expect(header!.split(',')).toEqual(
      expect.arrayContaining([
        'batchPayment.@id',
        'batchPayment.operationNumber',
        'batchPayment.payerBank.rfc',
        'batchPayment.payerBank.name',
        'createdAt',
      ]),
    );
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,/);
    const items = await runInProcess(world, dir, ['line-items', '--taxpayer', world.taxpayer, '--format', 'csv', '--quiet']);
    expect(items.code).toBe(0);
    expect(items.stdout.split('\r\n')[0]!.split(',')).toEqual(expect.arrayContaining(['invoice.id', 'invoice.uuid', 'invoice.total']));
  });
});
