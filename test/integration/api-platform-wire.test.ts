/**
 * API Platform 4's wire (docs/rate-limits.md, "Links"; README, "Exit codes"; docs/security.md, "A hostile or broken server"), from whole
 * in-process exports against responses built as API Platform writes them (test/fixtures/api-platform.ts):
 * a cursor chain that never ends by itself (4.3.5+: the last page and every empty page link on),
 * 422 for invalid query parameters, and next links padded so that no two URLs are alike.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { constraintViolation422, cursorPage, LD_JSON, partialPage, phpJson, PROBLEM_JSON, type CursorCollection } from '../fixtures/api-platform.js';
import { canaryFree, idsOfNdjson, runInProcess, type RunOutcome, useTempDir, useWorld } from '../helpers/world.js';

const TAXPAYER = 'AAA010101AAA';
const PATH = `/taxpayers/${TAXPAYER}/invoices`;
const INVOICES = ['invoices', '--taxpayer', TAXPAYER, '--quiet'];

/** One scripted answer. */
interface Reply {
  status?: number;
  body: string;
  type?: string;
}

/** A server scripted by `route`, answering every request in process; `log` holds each request's path and query. */
function scripted(route: (url: URL, headers: Headers) => Reply): { log: string[]; wrapFetch: () => FetchLike } {
  const log: string[] = [];
  const fetch: FetchLike = (input, init) => {
    const url = new URL(String(input));
    log.push(url.pathname + url.search);
    const r = route(url, new Headers(init?.headers));
    const headers = { 'Content-Type': r.type ?? LD_JSON, 'X-Request-ID': `req-${log.length}`, Date: new Date(world.clock.now()).toUTCString() };
    return Promise.resolve(new Response(r.body, { status: r.status ?? 200, headers }));
  };
  return { log, wrapFetch: () => fetch };
}

/** API Platform 4.3.5's cursor collection of `size` items, `X-Pagination-Enable-Partial: 0` honoured. */
function cursorApi(size: number, announced = size): ReturnType<typeof scripted> {
  const c: CursorCollection = { path: PATH, size };
  return scripted((url, h) => ({ body: cursorPage(c, url, h.get('x-pagination-enable-partial') === '0', announced) }));
}

const dir = useTempDir();
const world = useWorld();

/** The files of the temp folder, config aside. */
const files = (): string[] =>
  readdirSync(dir.path)
    .filter((n) => n !== 'config')
    .sort();
/** `n` down to 1, as the NDJSON ids of a newest-first cursor export. */
const idsDown = (n: number): string[] => Array.from({ length: n }, (_, i) => String(n - i));

function run(args: string[], api: ReturnType<typeof scripted>): Promise<RunOutcome> {
  return runInProcess(world, dir, [...INVOICES, ...args], { wrapFetch: api.wrapFetch });
}

describe('cursor mode: the first empty page is the end of the collection (API Platform 4.3.5+)', () => {
  it.each([
    ['the last page partly full', 25, 4],
    ['the last page full', 30, 4],
    ['a single page', 7, 2],
    ['an empty collection', 0, 1],
  ])('%s: exit 0, file, state and manifest in place, one request past the last item', async (_name, size, requests) => {
    const api = cursorApi(size);
    const r = await run(['--cursor', '--items-per-page', '10', '--out', 'inv.ndjson', '--state', 'state.json'], api);
    expect(r.lines).toEqual([]);
    expect(r.code).toBe(0);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(idsDown(size));
    expect(files()).toEqual(['inv.ndjson', 'inv.ndjson.manifest.json', 'state.json']);
    expect(api.log).toHaveLength(requests);
    // The last request is the empty page the last one linked to; its own next link is not followed.
    expect(api.log.at(-1)).toBe(size === 0 ? `${PATH}?itemsPerPage=10` : `${PATH}?itemsPerPage=10&id%5Blt%5D=1`);
    const manifest = JSON.parse(dir.read('inv.ndjson.manifest.json').toString()) as { outputs: Array<{ items: number; pages: number }> };
    expect(manifest.outputs[0]).toMatchObject({ items: size, pages: requests });
  });

  it('--resume of a checkpoint whose next link is the empty page completes with exit 0 and one request', async () => {
    const route = (url: URL, h: Headers): Reply => ({
      body: cursorPage({ path: PATH, size: 25 }, url, h.get('x-pagination-enable-partial') === '0'),
    });
    // The first run stops at the empty page (a 503 that outlasts the retries), after the 3 pages that hold every item.
    const failing = scripted((url, h) => (url.search.endsWith('id%5Blt%5D=1') ? { status: 503, body: '' } : route(url, h)));
    const api = scripted(route);
    const args = ['--cursor', '--items-per-page', '10', '--out', 'inv.ndjson', '--retries', '0'];
    const first = await run(args, failing);
    expect(first.code).toBe(6);
    expect(idsOfNdjson(dir.read('inv.ndjson.part').toString())).toEqual(idsDown(25));
    const resumed = await run([...args, '--resume'], api);
    expect(resumed.code).toBe(0);
    expect(api.log).toEqual([`${PATH}?itemsPerPage=10&id%5Blt%5D=1`]);
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(idsDown(25));
    expect(files()).toEqual(['inv.ndjson', 'inv.ndjson.manifest.json']);
  });

  it('--total with fewer items than announced: exit 0 and one line saying so', async () => {
    const api = cursorApi(25, 27);
    const r = await runInProcess(
      world,
      dir,
      ['invoices', '--taxpayer', TAXPAYER, '--cursor', '--total', '--items-per-page', '10', '--out', 'inv.ndjson'],
      {
        wrapFetch: api.wrapFetch,
      },
    );
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe('collections: the API announced 27 items (hydra:totalItems) but the collection ended after 25');
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(idsDown(25));
    expect(api.log).toHaveLength(4);
  });

  it('--total with as many items as announced says nothing more', async () => {
    const r = await run(['--cursor', '--total', '--items-per-page', '10', '--out', 'inv.ndjson'], cursorApi(25));
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([]);
  });
});

describe('offset mode keeps the bound on empty pages that link on', () => {
  it.each(['1', '4'])('partial pagination, --concurrency %s: exit 6 after 4 empty pages in a row, nothing placed', async (concurrency) => {
    const api = scripted((url) => ({ body: partialPage(PATH, Number(url.searchParams.get('page') ?? '1'), []) }));
    const r = await run(['--concurrency', concurrency, '--out', 'inv.ndjson'], api);
    expect(r.code).toBe(6);
    expect(r.lines[0]).toMatch(/^collections: the API sent 4 empty pages in a row that each link to a next one/);
    // With --concurrency 4 the first page is read apart (is it a page range?) and counted too.
    expect(api.log).toHaveLength(4);
    expect(files()).not.toContain('inv.ndjson');
  });
});

describe('422 from API Platform 4 parameter validation is a usage error', () => {
  it.each([
    [
      'ConstraintViolation problem+json',
      PROBLEM_JSON,
      constraintViolation422([
        { propertyPath: 'status', message: 'The value you selected is not a valid choice.' },
        { propertyPath: 'issuedAt[after]', message: 'This value is not a valid datetime.' },
      ]),
      'status: The value you selected is not a valid choice.; issuedAt[after]: This value is not a valid datetime.',
    ],
    [
      'a detail only',
      PROBLEM_JSON,
      phpJson({ title: 'An error occurred', detail: 'maximum: This value should be less than or equal to 10.' }),
      'maximum: This value should be less than or equal to 10.',
    ],
    [
      'a hydra error',
      LD_JSON,
      phpJson({ '@type': 'hydra:Error', 'hydra:title': 'An error occurred', 'hydra:description': 'status: bad' }),
      'status: bad',
    ],
  ])('%s: exit 2, one line with the reason, the request id and the --param hint; never retried', async (_name, type, body, reason) => {
    const api = scripted(() => ({ status: 422, body, type }));
    const r = await run(['--param', 'status=bogus', '--out', 'inv.ndjson'], api);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      `collections: the API rejected the parameters (GET ${PATH}?status=bogus&itemsPerPage=1000: HTTP 422): ${reason} [X-Request-ID: req-1]; check --param values`,
    ]);
    expect(api.log).toHaveLength(1);
    expect(files()).toEqual([]);
  });

  it("the server's text is inert and bounded: no escape sequence reaches stderr, the line stays short", async () => {
    const evil = `\u001b]8;;http://evil/\u0007click\u001b]8;;\u0007 \u001b[2J\u202e${'x'.repeat(5000)}`;
    const api = scripted(() => ({ status: 422, body: constraintViolation422([{ propertyPath: 'status', message: evil }]), type: PROBLEM_JSON }));
    const r = await run(['--out', 'inv.ndjson'], api);
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    // No control (C0, C1, ESC) nor format character (bidi overrides) but the line's end.
    expect(/[\p{Cc}\p{Cf}]/u.test(r.stderr.replace(/\n$/, ''))).toBe(false);
    expect(r.lines[0]!.length).toBeLessThan(600);
    expect(canaryFree(r.stderr)).toBe(true);
  });
});

describe('next links padded with a harmless parameter are a loop, in both modes', () => {
  /** The same page for any URL, linking to itself plus `pad`. */
  const padded = (pad: (n: number) => string, body: (next: string, url: URL) => string) =>
    scripted((url) => {
      const n = url.search.split('&').length;
      return { body: body(`${url.pathname}${url.search}${pad(n)}`, url) };
    });
  const pads: Array<[string, (n: number) => string]> = [
    ['&x=1 once more each time', () => '&x=1'],
    ['&x=1 and &x=2 in turn', (n) => `&x=${n % 2}`],
  ];

  it.each(pads)('cursor mode, %s: exit 6 on the second request, nothing placed, no item written twice', async (_name, pad) => {
    const api = padded(pad, (next) => phpJson({ 'hydra:member': [{ id: 3 }, { id: 2 }, { id: 1 }], 'hydra:view': { 'hydra:next': next } }));
    const r = await run(['--cursor', '--out', 'inv.ndjson'], api);
    expect(r.code).toBe(6);
    expect(r.lines[0]).toMatch(/^collections: the API answered a page already fetched again under another URL \(GET \S+&x=\d: the same 3 items\)/);
    // The second copy of the page is refused by its content before it is written.
    expect(api.log).toHaveLength(2);
    expect(files()).not.toContain('inv.ndjson');
    expect(idsOfNdjson(dir.read('inv.ndjson.part').toString())).toEqual(['3', '2', '1']);
  });

  it.each(pads)('offset mode, %s: exit 6 on the second request, nothing placed, no item written twice', async (_name, pad) => {
    const api = padded(pad, (next) =>
      phpJson({ 'hydra:member': [{ id: 1 }, { id: 2 }], 'hydra:totalItems': 1000, 'hydra:view': { 'hydra:next': next } }),
    );
    const r = await run(['--out', 'inv.ndjson'], api);
    expect(r.code).toBe(6);
    expect(r.lines[0]).toMatch(/^collections: the API answered a page already fetched again under another URL \(GET \S+&x=\d: the same 2 items\)/);
    expect(api.log).toHaveLength(2);
    expect(files()).not.toContain('inv.ndjson');
    expect(idsOfNdjson(dir.read('inv.ndjson.part').toString())).toEqual(['1', '2']);
  });

  it('offset mode, a server that ignores page= answers page 1 for every number: exit 6, no item written twice', async () => {
    const api = scripted(() => ({
      body: phpJson({
        'hydra:member': [{ id: 1 }, { id: 2 }],
        'hydra:totalItems': 2000,
        'hydra:view': { 'hydra:next': `${PATH}?itemsPerPage=2&page=2`, 'hydra:last': `${PATH}?itemsPerPage=2&page=1000` },
      }),
    }));
    const r = await run(['--items-per-page', '2', '--out', 'inv.ndjson'], api);
    expect(r.code).toBe(6);
    expect(r.lines[0]).toMatch(/^collections: the API answered a page already fetched again under another URL/);
    expect(api.log.length).toBeLessThanOrEqual(6);
    expect(files()).not.toContain('inv.ndjson');
    expect(idsOfNdjson(dir.read('inv.ndjson.part').toString())).toEqual(['1', '2']);
  });
});
