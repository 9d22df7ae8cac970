import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RATELIMIT_HELP } from '../../../../src/commands/ratelimit/ratelimit-command.js';
import { runRatelimit, selectProbeEndpoints, type RatelimitCommandOptions, type RatelimitRow } from '../../../../src/commands/ratelimit/ratelimit.js';
import type { FetchLike } from '../../../../src/context.js';
import { createLastSeenCache, type LastSeenCache } from '../../../../src/rate/store-file.js';
import { HttpError, UsageError } from '../../../../src/errors.js';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/app.js';
import { createSandboxFetch } from '../../../../src/sandbox/fetch.js';
import type { VirtualClock } from '../../../helpers/virtual-clock.js';
import { createTestContext, type TestContext, type TestContextOptions, createWorld, tempDir, type TempDir } from '../../../helpers/world.js';

const CANARY = 'canary-KEY-0000-do-not-print';
const BASE = 'http://127.0.0.1:8080';
const START = Date.UTC(2024, 3, 16, 18, 0, 0);

let dir: TempDir;
let cache: LastSeenCache;
let clock: VirtualClock;
let sandbox: Sandbox;
let taxpayer: string;
let invoice: string;

beforeEach(() => {
  dir = tempDir('collections-ratelimit-');
  // The file the command's own cache reads and writes: the context's config folder is `dir`.
  cache = createLastSeenCache({ cacheDir: dir.path });
  ({ clock, sandbox, taxpayer } = createWorld({
    start: START,
    base: BASE,
    apiKey: CANARY,
    limit: 3,
    windowSeconds: 60,
    sizes: { taxpayers: 2, invoicesPerTaxpayer: 2 },
  }));
  invoice = sandbox.invoiceIds(taxpayer)[0]!;
});
afterEach(() => dir.remove());

function context(options: TestContextOptions = {}): TestContext {
  return createTestContext({ configDir: dir.path, clock, fetch: createSandboxFetch(sandbox), ...options });
}

const NO_FLAGS = { apiKey: undefined, baseUrl: undefined };

/** Spends `n` requests of an endpoint's quota directly on the sandbox. */
async function spend(path: string, n: number): Promise<void> {
  const fetch = createSandboxFetch(sandbox);
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${BASE}${path}?itemsPerPage=1`, { headers: { 'X-Api-Key': CANARY, Accept: 'application/ld+json' } });
    await res.arrayBuffer();
  }
}

interface Outcome {
  code?: number;
  error?: unknown;
  out: string;
  err: string;
  t: TestContext;
}

async function run(options: Partial<RatelimitCommandOptions>, t: TestContext = context()): Promise<Outcome> {
  try {
    const code = await runRatelimit(t.ctx, { apiKey: CANARY, baseUrl: BASE, json: false, cached: false, ...options });
    return { code, out: t.stdout.text(), err: t.stderr.text(), t };
  } catch (error) {
    return { error, out: t.stdout.text(), err: t.stderr.text(), t };
  }
}

function expectNoCanary(o: Outcome): void {
  expect(o.out).not.toContain(CANARY);
  expect(o.err).not.toContain(CANARY);
  if (o.error instanceof Error) {
    expect(o.error.message).not.toContain(CANARY);
    expect(String(o.error.stack)).not.toContain(CANARY);
  }
}

describe('selectProbeEndpoints', () => {
  it.each([
    [{}, ['entities', 'events']],
    [{ taxpayerId: 'T' }, ['entities', 'events', 'invoices', 'taxpayer-line-items', 'payments']],
    [{ invoiceId: 'I' }, ['entities', 'events', 'invoice-line-items']],
    [
      { taxpayerId: 'T', invoiceId: 'I' },
      ['entities', 'events', 'invoices', 'taxpayer-line-items', 'taxpayer-invoice-line-items', 'invoice-line-items', 'payments'],
    ],
  ])('%j → %j', (ids, keys) => {
    expect(selectProbeEndpoints(ids).map((e) => e.key)).toEqual(keys);
  });
});

describe('ratelimit (live)', () => {
  it('--json: one row per endpoint, a 429 row for an exhausted endpoint, each snapshot cached', async () => {
    await spend('/entities', 3);
    await spend('/events', 1);
    const o = await run({ json: true, taxpayer: taxpayer });
    expect(o.code).toBe(0);
    const rows = JSON.parse(o.out) as RatelimitRow[];
    expect(rows.map((r) => r.endpoint)).toEqual(['entities', 'events', 'invoices', 'taxpayer-line-items', 'payments']);
    const byKey = new Map(rows.map((r) => [r.endpoint, r]));
    expect(byKey.get('entities')).toMatchObject({ status: 429, limit: 3, remaining: 0, path: '/entities' });
    expect(byKey.get('events')).toMatchObject({ status: 200, limit: 3, remaining: 1 });
    expect(byKey.get('invoices')).toMatchObject({ status: 200, limit: 3, remaining: 2, path: `/taxpayers/${encodeURIComponent(taxpayer)}/invoices` });
    for (const r of rows) {
      expect(r.reset).toBe(new Date(START + 60_000).toISOString());
      expect(r.resetInSeconds).toBe(60);
    }
    // One request per endpoint, itemsPerPage=1, and the 429 was not retried.
    expect(o.t.fetched).toHaveLength(5);
    for (const u of o.t.fetched) expect(new URL(u).searchParams.get('itemsPerPage')).toBe('1');

    const cached = cache.list(new URL(BASE).origin);
    expect(cached).toHaveLength(5);
    expect(cached.find((c) => c.endpoint === 'entities')).toMatchObject({ limit: 3, remaining: 0 });
    expect(cached.find((c) => c.endpoint === 'invoices')).toMatchObject({ limit: 3, remaining: 2 });
    expectNoCanary(o);
  });

  it('table: endpoint, status, limit, remaining, reset and time left, without ANSI codes off a terminal', async () => {
    await spend('/entities', 3);
    const o = await run({ invoice: invoice });
    expect(o.code).toBe(0);
    expect(o.out).not.toContain('\x1b[');
    const lines = o.out.split('\n');
    const header = lines.find((l) => l.includes('endpoint'))!;
    for (const h of ['status', 'limit', 'remaining', 'reset', 'time left']) expect(header).toContain(h);
    const entities = lines.find((l) => l.includes('entities'))!;
    expect(entities).toContain('429');
    expect(entities).toMatch(/\b0\b/);
    expect(entities).toMatch(/│ 1m +│/);
    expect(lines.some((l) => l.includes('invoice-line-items'))).toBe(true);
    expectNoCanary(o);
  });

  it('table: no status column when every answer was 200', async () => {
    const o = await run({});
    expect(o.out.split('\n').find((l) => l.includes('endpoint'))).not.toContain('status');
  });

  it('the table is plain text on a terminal too (no ANSI, whatever the environment), with its borders', async () => {
    const o = await run({}, context({ stdoutIsTTY: true }));
    expect(o.out).not.toContain('\x1b[');
    expect(o.out).toMatch(/┌.*┐/);
    expect(o.out).toContain('entities');
  });

  it('an unknown invoice shows 404 in its row; the other rows are still there', async () => {
    const o = await run({ json: true, invoice: 'no-such-invoice' });
    expect(o.code).toBe(0);
    const rows = JSON.parse(o.out) as RatelimitRow[];
    expect(rows.find((r) => r.endpoint === 'invoice-line-items')?.status).toBe(404);
    expect(rows.find((r) => r.endpoint === 'entities')?.status).toBe(200);
  });

  it('a rejected key is an auth failure (exit 3) that never shows the key', async () => {
    const wrong = createSandbox({ apiKey: 'the-right-key', clock });
    const o = await run({}, context({ fetch: createSandboxFetch(wrong) }));
    expect(o.error).toBeInstanceOf(HttpError);
    expect((o.error as HttpError).exitCode).toBe(3);
    expect(o.out).toBe('');
    expectNoCanary(o);
  });

  it.each([
    ['an empty --taxpayer', { taxpayer: '' }],
    ['a dot-dot --invoice', { invoice: '..' }],
  ])('%s: usage error, zero requests', async (_name, ids) => {
    const o = await run(ids);
    expect(o.error).toBeInstanceOf(UsageError);
    expect(o.t.fetched).toEqual([]);
  });

  it('no base URL or no key: usage error, zero requests', async () => {
    const noBase = await run({ baseUrl: undefined });
    expect(noBase.error).toBeInstanceOf(UsageError);
    expect((noBase.error as UsageError).hint).toContain('collections config set base-url URL');
    const noKey = await run({ apiKey: undefined });
    expect(noKey.error).toBeInstanceOf(UsageError);
    expect(noBase.t.fetched).toEqual([]);
    expect(noKey.t.fetched).toEqual([]);
    expectNoCanary(noBase);
  });

  it('plain http to a non-loopback host: the warning is on stderr before the first request', async () => {
    let stderrAtFirstRequest: string | undefined;
    const inner = createSandboxFetch(sandbox);
    const t = context();
    const fetch: FetchLike = (input, init) => {
      stderrAtFirstRequest ??= t.stderr.text();
      return inner(input, init);
    };
    t.ctx.fetch = fetch;
    const o = await run({ baseUrl: 'http://api.example.test' }, t);
    expect(o.code).toBe(0);
    expect(stderrAtFirstRequest).toMatch(/warning: .*plain http/);
    expectNoCanary(o);
  });

  it('a server without rate-limit headers gives dashes, not a failure', async () => {
    const bare: FetchLike = () =>
      Promise.resolve(new Response('{"hydra:member":[]}', { status: 200, headers: { 'Content-Type': 'application/ld+json' } }));
    const o = await run({}, context({ fetch: bare }));
    expect(o.code).toBe(0);
    expect(o.out.split('\n').find((l) => l.includes('entities'))).toMatch(/entities\s*│\s*-\s*│\s*-/);
    expect(cache.list()).toEqual([]);
  });

  it('the help says that each check spends one request of the quota', () => {
    expect(RATELIMIT_HELP).toMatch(/spends one\s+request of that endpoint's quota/);
  });
});

describe('ratelimit --cached', () => {
  it('shows the last values seen with their age and sends nothing', async () => {
    await spend('/entities', 3);
    await run({ json: true, taxpayer: taxpayer });
    clock.advance(30_000);
    const t = context({ fetch: async () => Promise.reject(new Error('must not fetch')) });
    const o = await run({ cached: true, json: true, ...NO_FLAGS }, t);
    expect(o.code).toBe(0);
    expect(t.fetched).toEqual([]);
    const rows = JSON.parse(o.out) as Array<{ endpoint: string; remaining: number; ageSeconds: number; resetInSeconds: number; origin: string }>;
    expect(rows.map((r) => r.endpoint)).toEqual(['entities', 'events', 'invoices', 'taxpayer-line-items', 'payments']);
    expect(rows[0]).toMatchObject({ endpoint: 'entities', remaining: 0, ageSeconds: 30, resetInSeconds: 30, origin: 'http://127.0.0.1:8080' });

    const table = await run({ cached: true, apiKey: undefined }, context({ fetch: async () => Promise.reject(new Error('no')) }));
    expect(table.t.fetched).toEqual([]);
    const line = table.out.split('\n').find((l) => l.includes('entities'))!;
    expect(line).toContain('30s ago');
    expect(line).toContain('30s');
    expect(table.out).not.toContain('\x1b[');
  });

  it('needs no key, and only shows the configured origin when one is known', async () => {
    cache.record('https://a.example', 'entities', { limit: 5, remaining: 4, resetAt: START + 10_000, observedAt: START });
    cache.record('https://b.example', 'entities', { limit: 9, remaining: 8, resetAt: START + 10_000, observedAt: START });
    const one = await run({ cached: true, json: true, ...NO_FLAGS, baseUrl: 'https://b.example' });
    expect((JSON.parse(one.out) as Array<{ origin: string }>).map((r) => r.origin)).toEqual(['https://b.example']);
    const all = await run({ cached: true, ...NO_FLAGS });
    expect(all.out).toContain('https://a.example');
    expect(all.out).toContain('https://b.example');
    expect(one.t.fetched).toEqual([]);
    expect(all.t.fetched).toEqual([]);
  });

  it('with nothing cached: an empty JSON array, or a note on stderr', async () => {
    const json = await run({ cached: true, json: true, ...NO_FLAGS });
    expect(JSON.parse(json.out)).toEqual([]);
    const table = await run({ cached: true, ...NO_FLAGS });
    expect(table.out).toBe('');
    expect(table.err).toMatch(/No rate-limit headers seen yet/);
  });
});
