/**
 * Every endpoint in both of its modes, through the whole CLI in process (main → program → export →
 * client → in-process sandbox), compared with the sandbox's own item list: none missing, none twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/app.js';
import { createWorld, idsOfNdjson as ids, removeTempDirs, runInProcess, tempDir, WRONG_KEY, type WorldOptions } from '../helpers/world.js';

afterAll(removeTempDirs);

/** The outcome of one run: the CLI's, plus the requests the sandbox answered meanwhile. */
interface EndpointRun {
  code: number;
  stdout: string;
  stderr: string;
  requests: number;
  statuses: number[];
}

/**
 * An in-process world (seed 7, 4 requests per 3 s window, small collections; a loopback origin, so
 * no plain-http warning) whose runs take the key and base URL from the environment.
 */
function setup(options: WorldOptions = {}): { sandbox: Sandbox; run: (argv: string[], env?: Record<string, string>) => Promise<EndpointRun> } {
  const world = createWorld({
    seed: 7,
    limit: 4,
    windowSeconds: 3,
    sizes: { entities: 23, events: 31, taxpayers: 2, invoicesPerTaxpayer: 37, lineItemsPerInvoice: 3, paymentsPerTaxpayer: 29 },
    strictOrigin: true,
    ...options,
  });
  const dir = tempDir('collections-it-');
  const run = async (argv: string[], env: Record<string, string> = {}): Promise<EndpointRun> => {
    const r = await runInProcess(world, dir, argv, { connectVia: 'env', env });
    return { code: r.code, stdout: r.stdout, stderr: r.stderr, requests: r.requests.length, statuses: r.requests.map((e) => e.status) };
  };
  return { sandbox: world.sandbox, run };
}

describe('every endpoint exports every item exactly once', () => {
  const { sandbox, run } = setup();
  const tp = sandbox.taxpayers()[1]!;
  const invoice = sandbox.invoiceIds(tp)[3]!;
  const enc = encodeURIComponent;

  const rows: Array<[string, string[], string, boolean]> = [
    ['entities', [], '/entities', false],
    ['events', [], '/events', false],
    ['invoices', ['--taxpayer', tp], `/taxpayers/${enc(tp)}/invoices`, true],
    ['line-items', ['--taxpayer', tp], `/taxpayers/${enc(tp)}/invoices/line-items`, true],
    ['line-items', ['--taxpayer', tp, '--invoice', invoice], `/taxpayers/${enc(tp)}/invoices/${invoice}/line-items`, true],
    ['line-items', ['--invoice', invoice], `/invoices/${invoice}/line-items`, true],
    ['payments', ['--taxpayer', tp], `/taxpayers/${enc(tp)}/invoices/payments`, true],
  ];

  const cases = rows.flatMap(([command, args, path, cursor]) => [
    { command, args, path, mode: 'offset' as const },
    ...(cursor ? [{ command, args, path, mode: 'cursor' as const }] : []),
  ]);

  it.each(cases)('$command $args ($mode)', async ({ command, args, path, mode }) => {
    const expected = (sandbox.items(path) as Array<{ id: string }>).map((i) => i.id);
    expect(expected.length).toBeGreaterThan(0);
    // Small pages so every collection spans several pages and several rate-limit windows.
    const argv = [command, ...args, '--items-per-page', '5', '-q', ...(mode === 'cursor' ? ['--cursor'] : [])];
    const r = await run(argv);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const got = ids(r.stdout);
    expect(new Set(got).size).toBe(got.length);
    expect(got).toEqual(expected);
    // Pacing on Remaining: 0 — once the client has seen the quota, it never spends a request on a
    // 429. (Only its very first request may meet a window an earlier run exhausted.)
    expect(r.statuses.slice(1)).not.toContain(429);
    // A cursor chain (API Platform ≥ 4.3.5, the sandbox's default) links on from the last item's
    // page: one request more, the empty page that ends the export.
    const pages = Math.ceil(expected.length / 5) + (mode === 'cursor' ? 1 : 0);
    expect(r.requests).toBe(r.statuses[0] === 429 ? pages + 1 : pages);
  });
});

describe('cursor mode while items are inserted and deleted', () => {
  it('loses nothing present throughout and duplicates nothing', async () => {
    const { sandbox, run } = setup({ limit: 0 });
    const tp = sandbox.taxpayers()[0]!;
    const path = `/taxpayers/${encodeURIComponent(tp)}/invoices`;
    const before = (sandbox.items(path) as Array<{ id: string }>).map((i) => i.id);
    // Mutate between pages: every request inserts two new invoices and deletes one old one.
    let n = 0;
    const removed = new Set<string>();
    const origReply = sandbox.reply.bind(sandbox);
    sandbox.reply = async (req, signal) => {
      const reply = await origReply(req, signal);
      n++;
      sandbox.insert(path, 2);
      const victim = before[before.length - n * 2];
      if (victim && sandbox.remove(path, victim)) removed.add(victim);
      return reply;
    };
    const r = await run(['invoices', '--taxpayer', tp, '--cursor', '--items-per-page', '4', '-q']);
    expect(r.code).toBe(0);
    const got = ids(r.stdout);
    expect(new Set(got).size).toBe(got.length);
    const survivors = before.filter((id) => !removed.has(id));
    expect(removed.size).toBeGreaterThan(0);
    for (const id of survivors) expect(got).toContain(id);
  });
});

describe('errors through the whole CLI', () => {
  const { run } = setup();

  it.each([
    [['invoices', '--taxpayer', ''], /--taxpayer must not be empty/],
    [['invoices', '--taxpayer', '..'], /not a valid id/],
    [['invoices'], /--taxpayer/],
    [['entities', '--cursor'], /--cursor is not supported/],
    [['entities', '--items-per-page', '0'], /from 1 to 1000/],
    [['entities', '--items-per-page', '1.5'], /from 1 to 1000/],
    [['entities', '--format', 'xml'], /xml/],
    [['entities', '--param', 'page=2'], /--page/],
  ])('%j → exit 2, one line, zero requests', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.requests).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.startsWith('collections: ')).toBe(true);
  });

  it('404 for an unknown taxpayer → exit 4 with the server message and X-Request-ID', async () => {
    const r = await run(['invoices', '--taxpayer', 'XAXX010101000', '-q']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^collections: not found .*HTTP 404.*Not Found.*X-Request-ID: Root=1-/);
    expect(r.stdout).toBe('');
  });

  it('401 for a wrong key → exit 3, and the key is never printed', async () => {
    const r = await run(['entities', '-v'], { COLLECTIONS_API_KEY: WRONG_KEY });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/API key was rejected/);
    expect(r.stderr + r.stdout).not.toContain(WRONG_KEY);
  });
});
