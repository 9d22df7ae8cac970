/**
 * Hostile server: text from outside (the server's error message, `X-Request-ID`,
 * field names first seen on a later page, table cells, a tampered rate-limit cache) reaches the
 * terminal without escape sequences, controls or bidi overrides; data files stay byte-exact.
 * Responses are injected in process (a real HTTP server could not even send ESC in a header).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { canaryFree, createWorld, removeTempDirs, runInProcess, tempDir, filesBelow } from '../helpers/world.js';

afterAll(removeTempDirs);

/** Everything a terminal would act on: C0/C1 controls (line breaks aside), DEL, bidi controls. */
// eslint-disable-next-line no-control-regex -- the test looks for control characters on purpose
const TERMINAL_ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** A title change, a screen clear, an 8-bit CSI colour, a right-to-left override and a CR. */
const UGLY = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e\r';
/** What a header value can carry of it (a ByteString: no CR, nothing above U+00FF), plus a BEL. */
const UGLY_HEADER = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u0007';

/** A JSON response with the given status and headers. */
function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/ld+json', ...headers } });
}

/** Wraps the sandbox's fetch so that each answer passes through `edit` (parsed body, headers). */
function editPages(edit: (page: Record<string, unknown>, url: URL, headers: Headers) => void): (inner: FetchLike) => FetchLike {
  return (inner) => async (input, init) => {
    const res = await inner(input, init);
    const page = (await res.json()) as Record<string, unknown>;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    edit(page, new URL(String(input)), headers);
    return new Response(JSON.stringify(page), { status: res.status, headers });
  };
}

/** The members of a Hydra page (either key style). */
function members(page: Record<string, unknown>): Array<Record<string, unknown>> {
  return (page['hydra:member'] ?? page.member) as Array<Record<string, unknown>>;
}

describe('terminal text is inert', () => {
  it('a 404 whose message and X-Request-ID carry escapes: exit 4, one inert line, no output file', async () => {
    const world = createWorld();
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson'], {
      wrapFetch: () => () => Promise.resolve(json(404, { message: `no such ${UGLY}taxpayer` }, { 'x-request-id': `r1${UGLY_HEADER}end` })),
    });
    expect(r.code).toBe(4);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^collections: not found \(GET \/taxpayers\/[^ ]+: HTTP 404\): no such {2}taxpayer \[X-Request-ID: r1end\]; check/);
    expect(r.stderr).not.toMatch(TERMINAL_ACTIVE);
    expect(filesBelow(dir)).toEqual([]);
    expect(canaryFree(r.stdout, r.stderr)).toBe(true);
  });

  it('--verbose lines with a hostile X-Request-ID on every page: exit 0, inert lines, output complete', async () => {
    const world = createWorld();
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '20', '--verbose', '--out', 'x.ndjson'], {
      wrapFetch: editPages((_page, _url, headers) => headers.set('x-request-id', `id${UGLY_HEADER}`)),
    });
    expect(r.code).toBe(0);
    const requestLines = r.lines.filter((l) => l.startsWith('GET '));
    expect(requestLines).toHaveLength(3);
    for (const line of requestLines) expect(line).toMatch(/ 200 \d+ms.* X-Request-ID=id$/);
    expect(r.stderr).not.toMatch(TERMINAL_ACTIVE);
    expect(filesBelow(dir)).toEqual(['x.ndjson', 'x.ndjson.manifest.json']);
    expect(dir.read('x.ndjson').toString().trim().split('\n')).toHaveLength(60);
  });

  it('csv: a field name with escapes first seen on a later page is named inertly; the data file keeps the bytes', async () => {
    const world = createWorld();
    const dir = tempDir();
    const evilKey = `note${UGLY}x`;
    const evilValue = `value${UGLY}`;
    const r = await runInProcess(
      world,
      dir,
      ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '20', '--concurrency', '1', '--out', 'x.csv'],
      {
        wrapFetch: editPages((page, url) => {
          const first = members(page)[0];
          if (first === undefined) return;
          if (url.searchParams.get('page') === '2') first[evilKey] = 'later';
          first.series = evilValue;
        }),
      },
    );
    expect(r.code).toBe(0);
    const warnings = r.lines.filter((l) => l.includes('new field'));
    expect(warnings).toEqual(["collections: csv: new field 'note x' not in the header; use --fields to include it"]);
    expect(r.stderr).not.toMatch(TERMINAL_ACTIVE);
    expect(filesBelow(dir)).toEqual(['x.csv', 'x.csv.manifest.json']);
    const csv = dir.read('x.csv').toString();
    expect(csv).toContain(evilValue);
    expect(csv.split('\n').filter((l) => /^\S/.test(l)).length).toBeGreaterThanOrEqual(61);
  });

  it('table: cells and headings from the server are inert on stdout', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 5 } });
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--format', 'table', '--fields', 'id,evil\u001b[2J'], {
      wrapFetch: editPages((page) => {
        for (const item of members(page)) item['evil\u001b[2J'] = `cell${UGLY}text`;
      }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cell text');
    expect(r.stdout).toContain('evil');
    expect(r.stdout).not.toMatch(TERMINAL_ACTIVE);
    expect(r.stderr).not.toMatch(TERMINAL_ACTIVE);
    expect(r.stdout.split('\n').filter((l) => l.includes('cell text'))).toHaveLength(5);
    expect(filesBelow(dir)).toEqual([]);
  });
});

describe('ratelimit tables are inert', () => {
  it('ratelimit --cached with a tampered cache: exit 0, origin and endpoint names inert on stdout and stderr', async () => {
    const world = createWorld();
    const dir = tempDir();
    mkdirSync(dir.file('config'), { mode: 0o700 });
    const origin = `https://api${UGLY}.example`;
    const entry = { origin, endpoint: `inv\u001b[2Joices`, limit: 60, remaining: 7, observedAt: world.clock.now() - 5000 };
    writeFileSync(dir.file('config/rate-budget.json'), JSON.stringify({ version: 1, apis: {}, lastSeen: { [`${origin} invoices`]: entry } }), {
      mode: 0o600,
    });
    const r = await runInProcess(world, dir, ['ratelimit', '--cached'], { connectVia: 'none' });
    expect(r.code).toBe(0);
    // Numbers are aligned right.
    expect(r.stdout).toMatch(/│ https:\/\/api \.example │ invoices │ +60 │ +7 │/);
    expect(r.stdout).not.toMatch(TERMINAL_ACTIVE);
    expect(r.stderr).toBe('');
    expect(filesBelow(dir)).toEqual([]);
  });
});
