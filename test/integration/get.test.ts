/**
 * `collections get <path>` through the whole CLI in process against the sandbox: every path of
 * the current family and the organisation-wide payments, offset and cursor, compared with the
 * sandbox's own item list; `--resume` after a kill; `verify` of its manifest; the path refused
 * before any request; the state, template, rate-limit cache and 404 hint of a path.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_ENTITY_ID } from '../../src/commands/help-text.js';
import { SAMPLE_ENTITY_IDS } from '../../src/sandbox/records/entities.js';
import { createWorld, idsOfNdjson as ids, interruptAt, removeTempDirs, runInProcess, tempDir, type WorldOptions } from '../helpers/world.js';

afterAll(removeTempDirs);

const [E0, E1] = SAMPLE_ENTITY_IDS;

/** A world of small collections over several pages and rate-limit windows, its runs keyed by the environment. */
function setup(options: WorldOptions = {}) {
  const world = createWorld({
    seed: 7,
    limit: 4,
    windowSeconds: 3,
    sizes: { entities: 23, events: 31, taxpayers: 2, invoicesPerTaxpayer: 37, lineItemsPerInvoice: 3, paymentsPerTaxpayer: 13 },
    strictOrigin: true,
    ...options,
  });
  const dir = tempDir('collections-get-');
  const run = (argv: string[], env: Record<string, string> = {}, extra: Parameters<typeof runInProcess>[3] = {}) =>
    runInProcess(world, dir, argv, { connectVia: 'env', env, ...extra });
  return { world, sandbox: world.sandbox, dir, run };
}

const itemIds = (items: unknown[]): string[] => (items as Array<{ id: string }>).map((i) => i.id);

describe('get on the current path family, exact against the sandbox', () => {
  const { sandbox, run } = setup();
  const [tp0, tp1] = sandbox.taxpayers() as [string, string];
  const paths = [
    `/entities/${E0}/invoices`,
    `/entities/${E1}/invoices/line-items`,
    `/entities/${E0}/invoices/payments`,
    `/entities/${E1}/events`,
    '/invoices/payments',
  ];

  it('serves an entity the collections of its taxpayer (entity i is taxpayer i)', () => {
    expect(SAMPLE_ENTITY_ID).toBe(E0);
    expect(itemIds(sandbox.items(`/entities/${E0}/invoices`))).toEqual(itemIds(sandbox.items(`/taxpayers/${tp0}/invoices`)));
    expect(itemIds(sandbox.items(`/entities/${E1}/invoices/line-items`))).toEqual(itemIds(sandbox.items(`/taxpayers/${tp1}/invoices/line-items`)));
    const events = sandbox.items(`/entities/${E1}/events`) as Array<{ taxpayer: { id: string } }>;
    expect(events.length).toBe(15);
    expect(new Set(events.map((e) => e.taxpayer.id))).toEqual(new Set([tp1]));
    const all = itemIds(sandbox.items('/invoices/payments'));
    const each = [tp0, tp1].flatMap((tp) => itemIds(sandbox.items(`/taxpayers/${tp}/invoices/payments`)));
    expect([...all].sort()).toEqual([...each].sort());
    // Newest first: ids descending, as every collection of the API.
    expect(all).toEqual([...all].sort().reverse());
  });

  it.each(
    paths.flatMap((path) => [
      { path, mode: 'offset' },
      { path, mode: 'cursor' },
    ]),
  )('$path ($mode)', async ({ path, mode }) => {
    const expected = itemIds(sandbox.items(path));
    expect(expected.length).toBeGreaterThan(5);
    const r = await run(['get', path, '--items-per-page', '5', '-q', ...(mode === 'cursor' ? ['--cursor'] : [])]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ids(r.stdout)).toEqual(expected);
    const sent = r.requests.filter((q) => q.status !== 429);
    expect(sent.every((q) => q.url.startsWith(path))).toBe(true);
    // Cursor mode asks for no page, and the cursor chain ends at its first empty page.
    if (mode === 'cursor') expect(sent[0]!.url).toBe(`${path}?itemsPerPage=5`);
    expect(sent.length).toBe(Math.ceil(expected.length / 5) + (mode === 'cursor' ? 1 : 0));
  });

  it('sends the query of the path as written, before its own parameters, and the server filters on it', async () => {
    const path = `/entities/${E0}/invoices`;
    const r = await run(['get', `${path}?status=VIGENTE&type=I`, '-q']);
    expect(r.code).toBe(0);
    expect(r.requests[0]!.url).toBe(`${path}?status=VIGENTE&type=I&itemsPerPage=1000`);
    const items = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; type: string });
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.status === 'VIGENTE' && i.type === 'I')).toBe(true);
  });

  it('takes --cursor on a path that pages by number only: the server decides (the sandbox answers offset pages)', async () => {
    const r = await run(['get', 'entities', '--cursor', '-q']);
    expect(r.code).toBe(0);
    expect(ids(r.stdout)).toEqual(itemIds(sandbox.items('/entities')));
  });
});

describe('get with files: --resume after a kill, verify, state, template', () => {
  it('resumes an interrupted cursor export to the bytes of an uninterrupted one, and verify accepts its manifest', async () => {
    const { run, dir } = setup({ limit: 0 });
    const path = `/entities/${E0}/invoices`;
    const argv = ['get', path, '--cursor', '--items-per-page', '4', '--out', 'inv.ndjson', '-q'];
    const whole = await run([...argv.slice(0, -3), '--out', 'whole.ndjson', '-q']);
    expect(whole.code).toBe(0);
    const killed = await run(argv, {}, interruptAt(4));
    expect(killed.code).toBe(130);
    expect(dir.has('inv.ndjson')).toBe(false);
    expect(killed.stderr).toContain(`--resume`);
    const resumed = await run([...argv, '--resume']);
    expect(resumed.code).toBe(0);
    expect(dir.read('inv.ndjson').equals(dir.read('whole.ndjson'))).toBe(true);
    // The resumed run starts after the checkpoint: the first pages are not asked for again.
    expect(resumed.requests.length).toBeLessThan(whole.requests.length);
    const manifest = JSON.parse(dir.read('inv.ndjson.manifest.json').toString()) as { outputs: Array<Record<string, unknown>> };
    expect(manifest.outputs[0]).toMatchObject({
      endpoint: { key: path, template: '/entities/{entityId}/invoices', path },
      ids: {},
      mode: 'cursor',
      resumed: true,
    });
    const verified = await run(['verify', 'inv.ndjson.manifest.json']);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^ok /);
  });

  it('keeps a watermark per path in --state (the field of a known path, or --since-field)', async () => {
    const { run, dir } = setup({ limit: 0 });
    const events = `/entities/${E1}/events`;
    const first = await run(['get', events, '--state', 'state.json', '--out', 'events.ndjson', '-q']);
    expect(first.code).toBe(0);
    const state = JSON.parse(dir.read('state.json').toString()) as { watermarks: Record<string, { since: string }> };
    expect(Object.keys(state.watermarks)).toEqual([events]);
    const second = await run(['get', events, '--state', 'state.json', '--out', 'events2.ndjson', '-q']);
    expect(second.requests[0]!.url).toContain(`createdAt%5Bafter%5D=${encodeURIComponent(state.watermarks[events]!.since)}`);
    // A path without a known date field needs --since-field.
    const refused = await run(['get', '/invoices/payments', '--since', '2024-01-01']);
    expect(refused.code).toBe(2);
    expect(refused.requests).toHaveLength(0);
    expect(refused.stderr).toMatch(/needs the date field.*--since-field/);
    const named = await run(['get', '/invoices/payments', '--since', '2024-01-01', '--since-field', 'updatedAt', '-q']);
    expect(named.code).toBe(0);
    expect(named.requests[0]!.url).toContain('updatedAt%5Bafter%5D=2024-01-01T00%3A00%3A00%2B00%3A00');
  });

  it('fills {endpoint} of an --out template with the path as a file name', async () => {
    const { run, dir } = setup({ limit: 0 });
    const r = await run(['get', '/invoices/payments', '--out', 'out/{endpoint}.ndjson', '-q']);
    expect(r.code).toBe(0);
    expect(dir.has('out/invoices-payments.ndjson')).toBe(true);
  });
});

describe('get refuses a bad path before any request', () => {
  const { run } = setup();
  it.each([
    ['https://evil.example/entities', /is a URL/],
    ['//evil.example/entities', /is a URL/],
    ['/entities/../taxpayers', /'\.\.' segment/],
    ['/entities/%2e%2E/x', /'\.\.' segment/],
    ['/entities/./x', /'\.' segment/],
    ['/entities#frag', /fragment/],
    ['/entities?page=2', /sets page, which --page sets/],
    ['/entities?ItemsPerPage=5', /sets ItemsPerPage, which --items-per-page sets/],
    ['/entities/{entityId}/invoices', /placeholder/],
    ['/entities//invoices', /empty segment/],
    ['/entities/a b', /white space/],
    ['/entities/%zz', /invalid percent-encoding/],
    ['', /needs a collection path/],
  ])('%j → exit 2, one line, zero requests', async (path, message) => {
    const r = await run(['get', path]);
    expect(r.code).toBe(2);
    expect(r.requests).toHaveLength(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it.each([
    [['--taxpayer', 'AAA010101AAA'], /unknown option '--taxpayer'/],
    [['--since-field', 'updatedAt'], /--since-field goes with --since, --state or --incremental/],
    [['--since', '2024-01-01', '--since-field', 'a[b]'], /is not a field name/],
  ])('get /entities %j → exit 2', async (flags, message) => {
    const r = await run(['get', '/entities', ...flags]);
    expect(r.code).toBe(2);
    expect(r.requests).toHaveLength(0);
    expect(r.stderr).toMatch(message);
  });

  it('a path the API does not have: exit 4, the hint names the path', async () => {
    const r = await run(['get', '/entities/not-an-entity/invoices', '-q']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/check the path \/entities\/not-an-entity\/invoices/);
  });
});

describe("a path's quota", () => {
  it('is cached per path for ratelimit --cached', async () => {
    const { run } = setup({ limit: 50, windowSeconds: 60 });
    expect((await run(['get', `/entities/${E0}/invoices`, '--max-items', '1', '-q'])).code).toBe(0);
    expect((await run(['get', `/entities/${E1}/invoices`, '--max-items', '1', '-q'])).code).toBe(0);
    const cached = await run(['ratelimit', '--cached', '--json']);
    const rows = JSON.parse(cached.stdout) as Array<{ endpoint: string; path: string; remaining: number }>;
    expect(rows.map((r) => [r.endpoint, r.path])).toEqual([
      [`/entities/${E0}/invoices`, `/entities/${E0}/invoices`],
      [`/entities/${E1}/invoices`, `/entities/${E1}/invoices`],
    ]);
  });
});
