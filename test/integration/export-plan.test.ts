/**
 * From argv to the planned export, for every export command and endpoint variant, without any
 * server: the program runs with an injected export runner that stops at the plan.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readCommandLine } from '../../src/cli/argv.js';
import { runProgram } from '../../src/cli/program.js';
import type { RunCommand } from '../../src/commands/commander.js';
import { planCommand, withoutPassword } from '../../src/commands/export/export.js';
import { EXPORT_DEFAULTS, sourceOf } from '../../src/export/plan/parts.js';
import type { ExportCommandOptions } from '../../src/commands/flags.js';
import type { GetCommandOptions } from '../../src/commands/flags.js';
import { createConfigStore, loadConfFor } from '../../src/config/store.js';
import type { ConfigKey } from '../../src/config/flags.js';
import { ENDPOINTS } from '../../src/endpoints.js';
import { UsageError } from '../../src/errors.js';
import type { ExportPlan } from '../../src/export/run/plan.js';
import type { Secrets } from '../../src/secrets.js';
import { createTestContext } from '../helpers/world.js';

const BASE = 'https://api.example.com/v1';
const KEY = 'plan-test-key-0000';
const CWD = resolve('/srv/exports');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'collections-plan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Planned {
  code: number;
  plans: ExportPlan[];
  error?: unknown;
  stderr: string;
  fetched: string[];
  secrets: Secrets;
}

/** Runs `argv` through the commander program with a runner that only plans; `profile` is stored first. */
async function planFrom(argv: string[], profile: Partial<Record<ConfigKey, string>> = {}): Promise<Planned> {
  const store = createConfigStore({ configDir: dir });
  for (const [key, value] of Object.entries(profile)) store.set('default', key as ConfigKey, value);
  const t = createTestContext({ configDir: dir, cwd: CWD, env: { COLLECTIONS_BASE_URL: BASE, COLLECTIONS_API_KEY: KEY } });
  const plans: ExportPlan[] = [];
  const runner: RunCommand<ExportCommandOptions> = async (ctx, { command, flags, argv: resumeArgv }) => {
    plans.push(await planCommand(command, flags, resumeArgv, ctx));
    return 0;
  };
  let code: number;
  let error: unknown;
  try {
    const get: RunCommand<GetCommandOptions> = (ctx, { path, flags, argv: resumeArgv }) =>
      runner(ctx, { command: 'get', flags: { ...flags, path }, argv: resumeArgv });
    code = await runProgram(readCommandLine(argv), t.ctx, { export: runner, get });
  } catch (err) {
    error = err;
    code = -1;
  }
  return { code, plans, error, stderr: t.stderr.text(), fetched: t.fetched, secrets: t.ctx.secrets };
}

/** What the table checks of a plan. */
interface Expected {
  endpoint: string;
  /** Path and query of the first request. */
  start: string;
  headers?: Record<string, string>;
  format: string;
  /** `--out` relative to {@link CWD}; undefined for stdout. */
  out?: string;
  concurrency?: number;
  retries?: number;
  timeoutMs?: number;
  maxWaitMs?: number;
  maxItems?: number;
}

const T = 'D&M750624V8Z';
const T_PATH = 'D%26M750624V8Z';
const I = '0b3e5a2c-7d1f-4e8a-9c6b-1a2b3c4d5e6f';

const ROWS: Array<[string, string[], Partial<Record<ConfigKey, string>>, Expected]> = [
  ['entities, offset, all defaults', ['entities'], {}, { endpoint: 'entities', start: '/v1/entities?itemsPerPage=1000', format: 'ndjson' }],
  [
    'events, offset, page size, first page, params, max items',
    ['events', '--items-per-page', '50', '--page', '3', '--param', 'type=invoice.created', '--param', 'q=a=b', '--max-items', '120'],
    {},
    { endpoint: 'events', start: '/v1/events?type=invoice.created&q=a%3Db&itemsPerPage=50&page=3', format: 'ndjson', maxItems: 120 },
  ],
  [
    'invoices, offset, concurrency',
    ['invoices', '--taxpayer', T, '--concurrency', '8'],
    {},
    { endpoint: 'invoices', start: `/v1/taxpayers/${T_PATH}/invoices?itemsPerPage=1000`, format: 'ndjson', concurrency: 8 },
  ],
  [
    'invoices, cursor (concurrency is 1 whatever the flag)',
    ['invoices', '--taxpayer', T, '--cursor', '--concurrency', '8'],
    {},
    {
      endpoint: 'invoices',
      start: `/v1/taxpayers/${T_PATH}/invoices?itemsPerPage=1000`,
      headers: { 'X-Pagination-Style': 'cursor' },
      format: 'ndjson',
      concurrency: 1,
    },
  ],
  [
    'invoices, cursor with total',
    ['invoices', '--taxpayer', T, '--cursor', '--total'],
    {},
    {
      endpoint: 'invoices',
      start: `/v1/taxpayers/${T_PATH}/invoices?itemsPerPage=1000`,
      headers: { 'X-Pagination-Style': 'cursor', 'X-Pagination-Enable-Partial': '0' },
      format: 'ndjson',
      concurrency: 1,
    },
  ],
  [
    "line-items of a taxpayer's invoices, offset",
    ['line-items', '--taxpayer', T],
    {},
    { endpoint: 'taxpayer-line-items', start: `/v1/taxpayers/${T_PATH}/invoices/line-items?itemsPerPage=1000`, format: 'ndjson' },
  ],
  [
    "line-items of one of a taxpayer's invoices, cursor",
    ['line-items', '--invoice', I, '--taxpayer', T, '--cursor'],
    {},
    {
      endpoint: 'taxpayer-invoice-line-items',
      start: `/v1/taxpayers/${T_PATH}/invoices/${I}/line-items?itemsPerPage=1000`,
      headers: { 'X-Pagination-Style': 'cursor' },
      format: 'ndjson',
      concurrency: 1,
    },
  ],
  [
    'line-items of one invoice, offset, format from the flag',
    ['line-items', '--invoice', I, '-f', 'table'],
    {},
    { endpoint: 'invoice-line-items', start: `/v1/invoices/${I}/line-items?itemsPerPage=1000`, format: 'table' },
  ],
  [
    'line-items of one invoice, cursor, file (format from the extension)',
    ['line-items', '--invoice', I, '--cursor', '--out', 'items.jsonl'],
    {},
    {
      endpoint: 'invoice-line-items',
      start: `/v1/invoices/${I}/line-items?itemsPerPage=1000`,
      headers: { 'X-Pagination-Style': 'cursor' },
      format: 'ndjson',
      out: 'items.jsonl',
      concurrency: 1,
    },
  ],
  [
    'payments, offset, file (format from the extension), limits from flags',
    ['payments', '--taxpayer', T, '-o', 'out/payments.csv', '--retries', '0', '--timeout', '2.5', '--max-wait', '90'],
    {},
    {
      endpoint: 'payments',
      start: `/v1/taxpayers/${T_PATH}/invoices/payments?itemsPerPage=1000`,
      format: 'csv',
      out: 'out/payments.csv',
      retries: 0,
      timeoutMs: 2500,
      maxWaitMs: 90_000,
    },
  ],
  [
    'payments, cursor, the format flag wins over the extension',
    ['payments', '--taxpayer', T, '--cursor', '--out', 'payments.json', '--format', 'csv'],
    {},
    {
      endpoint: 'payments',
      start: `/v1/taxpayers/${T_PATH}/invoices/payments?itemsPerPage=1000`,
      headers: { 'X-Pagination-Style': 'cursor' },
      format: 'csv',
      out: 'payments.json',
      concurrency: 1,
    },
  ],
  [
    'entities, every default from the profile',
    ['entities'],
    { format: 'csv', 'items-per-page': '200', concurrency: '2', 'max-wait': '30', retries: '3', timeout: '1.5' },
    {
      endpoint: 'entities',
      start: '/v1/entities?itemsPerPage=200',
      format: 'csv',
      concurrency: 2,
      retries: 3,
      timeoutMs: 1500,
      maxWaitMs: 30_000,
    },
  ],
  [
    'events, flags win over the profile; the --out extension wins over the profile format',
    ['events', '--out', 'events.json', '--items-per-page', '10', '--concurrency', '1', '--max-wait', '0', '--retries', '7', '--timeout', '5'],
    { format: 'csv', 'items-per-page': '200', concurrency: '2', 'max-wait': '30', retries: '3', timeout: '1.5' },
    {
      endpoint: 'events',
      start: '/v1/events?itemsPerPage=10',
      format: 'json',
      out: 'events.json',
      concurrency: 1,
      retries: 7,
      timeoutMs: 5000,
      maxWaitMs: 0,
    },
  ],
  ['`--out -` is stdout', ['entities', '--out', '-'], {}, { endpoint: 'entities', start: '/v1/entities?itemsPerPage=1000', format: 'ndjson' }],
  // --max-items below the page size asks for that many items a page, unless the page size was given or --page depends on it.
  [
    '--max-items 2 asks for pages of 2',
    ['entities', '--max-items', '2'],
    {},
    { endpoint: 'entities', start: '/v1/entities?itemsPerPage=2', format: 'ndjson', maxItems: 2 },
  ],
  [
    '--max-items under the profile page size lowers it; over it keeps it',
    ['events', '--max-items', '150'],
    { 'items-per-page': '200' },
    { endpoint: 'events', start: '/v1/events?itemsPerPage=150', format: 'ndjson', maxItems: 150 },
  ],
  [
    '--max-items over the page size keeps the default',
    ['entities', '--max-items', '1500'],
    {},
    { endpoint: 'entities', start: '/v1/entities?itemsPerPage=1000', format: 'ndjson', maxItems: 1500 },
  ],
  [
    '--max-items with --items-per-page keeps the given page size',
    ['entities', '--max-items', '2', '--items-per-page', '50'],
    {},
    { endpoint: 'entities', start: '/v1/entities?itemsPerPage=50', format: 'ndjson', maxItems: 2 },
  ],
  [
    '--max-items with --page keeps the page size the page number means',
    ['entities', '--max-items', '2', '--page', '3'],
    {},
    { endpoint: 'entities', start: '/v1/entities?itemsPerPage=1000&page=3', format: 'ndjson', maxItems: 2 },
  ],
];

// What the CLI does before a command (createProgram's preAction).
beforeAll(() => loadConfFor({}, true));

describe('argv → planned export, for every export command and endpoint', () => {
  it.each(ROWS)('%s', async (_name, argv, profile, expected) => {
    const r = await planFrom(argv, profile);
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.fetched).toEqual([]);
    expect(r.plans).toHaveLength(1);
    const plan = r.plans[0]!;
    expect(plan.endpoint.key).toBe(expected.endpoint);
    expect(plan.pages.start.origin).toBe('https://api.example.com');
    expect(plan.pages.start.pathname + plan.pages.start.search).toBe(expected.start);
    expect(plan.http.baseUrl.href).toBe(BASE);
    expect(plan.pages.headers).toEqual(expected.headers ?? {});
    expect(plan.pages.mode).toBe(expected.headers?.['X-Pagination-Style'] === 'cursor' ? 'cursor' : 'offset');
    expect(plan.output.format).toBe(expected.format);
    const target = expected.out === undefined ? undefined : join(CWD, expected.out);
    expect(plan.output.files).toEqual(
      target === undefined ? undefined : { target, sidecar: `${target}.part`, checkpoint: `${target}.checkpoint.json` },
    );
    expect(plan.pages.concurrency).toBe(expected.concurrency ?? EXPORT_DEFAULTS.concurrency);
    expect(plan.http.retries).toBe(expected.retries ?? EXPORT_DEFAULTS.retries);
    expect(plan.http.timeoutMs).toBe(expected.timeoutMs ?? 60_000);
    expect(plan.http.maxWaitMs).toBe(expected.maxWaitMs ?? Number.POSITIVE_INFINITY);
    expect(plan.pages.maxItems).toBe(expected.maxItems);
    expect(plan.http.apiKey).toBe(KEY);
    expect(r.secrets.redact(KEY)).not.toContain(KEY);
    expect(plan.resume.command).not.toContain(KEY);
  });

  it('covers every endpoint of the table', () => {
    expect(new Set(ROWS.map((row) => row[3].endpoint))).toEqual(new Set(ENDPOINTS.map((e) => e.key)));
  });

  it('the built-in defaults are those of the README', () => {
    expect(EXPORT_DEFAULTS).toEqual({
      itemsPerPage: 1000,
      concurrency: 4,
      retries: 5,
      timeoutMs: 60_000,
      maxWaitMs: Number.POSITIVE_INFINITY,
      maxBodyBytes: 256 * 1024 * 1024,
      format: 'ndjson',
    });
  });

  it('the resume hint repeats the command line without the key and --resume', async () => {
    const r = await planFrom(['--api-key', 'flag-key-0000', 'invoices', '--taxpayer', T, '--out', 'a b.csv', '--resume']);
    expect(r.code).toBe(0);
    expect(r.plans[0]!.resume.command).toBe(`collections invoices --taxpayer 'D&M750624V8Z' --out 'a b.csv'`);
    expect(r.plans[0]!.resume.resume).toBe(true);
    expect(r.plans[0]!.http.apiKey).toBe('flag-key-0000');
  });
});

describe('argv → usage error before anything is sent or written', () => {
  it.each<[string[], RegExp]>([
    [['entities', '--cursor'], /--cursor is not supported by \/entities/],
    [['invoices', '--taxpayer', T, '--total'], /--total goes with --cursor/],
    [['invoices', '--taxpayer', T, '--cursor', '--page', '2'], /--page is for offset mode/],
    [['invoices', '--taxpayer', T, '--resume'], /--resume needs --out FILE/],
    [['invoices', '--taxpayer', T, '--resume', '--out', 'x.csv', '--format', 'table'], /--resume does not work with --format table/],
    [['invoices'], /'invoices' takes --taxpayer \(got none\)/],
    [['line-items'], /'line-items' takes --taxpayer, or --taxpayer --invoice, or --invoice \(got none\)/],
    [['line-items', '--invoice', 'a/b'], /--invoice must not contain '\/'/],
    [['payments', '--taxpayer', '..'], /--taxpayer '\.\.' is not a valid id/],
    [['events', '--fields', 'a,,b'], /--fields: empty field name/],
  ])('%j', async (argv, message) => {
    const r = await planFrom(argv);
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as UsageError).exitCode).toBe(2);
    expect((r.error as Error).message).toMatch(message);
    expect(r.plans).toEqual([]);
    expect(r.fetched).toEqual([]);
  });

  it.each<[string[], string]>([
    [['entities', '--taxpayer', T], "unknown option '--taxpayer'"],
    [['payments', '--taxpayer', T, '--invoice', I], "unknown option '--invoice'"],
    [
      ['events', '--items-per-page', '0'],
      "option '--items-per-page <n>' argument '0' is invalid. --items-per-page must be a whole number from 1 to 1000 (got '0')",
    ],
    [['events', '--format', 'xml'], "option '-f, --format <format>' argument 'xml' is invalid. Allowed choices are json, ndjson, csv, table."],
    [['events', '--param', 'page=2'], "option '--param <key=value>' argument 'page=2' is invalid. --param page is set by --page"],
    [
      ['events', '--timeout', '0'],
      "option '--timeout <seconds>' argument '0' is invalid. --timeout must be a number of seconds of at least 0.001 (got '0')",
    ],
  ])('commander refuses %j with exit 2', async (argv, message) => {
    const r = await planFrom(argv);
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`collections: ${message}\n`);
    expect(r.plans).toEqual([]);
  });
});

describe('the plan is frozen once built', () => {
  it('neither the plan nor its groups can be changed afterwards', async () => {
    const r = await planFrom(['invoices', '--taxpayer', T, '--cursor', '--out', 'x.ndjson', '--fields', 'id,total']);
    const plan = r.plans[0]!;
    for (const part of [
      plan,
      plan.http,
      plan.pages,
      plan.pages.headers,
      plan.output,
      plan.output.formatter,
      plan.output.formatter.fields,
      plan.output.files,
      plan.progress,
      plan.resume,
      plan.resume.fingerprint,
      plan.manifest,
      plan.manifest?.output,
    ])
      expect(Object.isFrozen(part)).toBe(true);
    expect(() => Object.assign(plan.progress, { quiet: false })).toThrow(TypeError);
  });
});

describe('argv → planned export: get and request headers', () => {
  it('get: the endpoint of the path (its key the path), its query first, --cursor on any path', async () => {
    const r = await planFrom(['get', 'reports/monthly?kind=a%20b&x[y]=1', '--cursor', '--param', 'z=1', '--out', 'r.ndjson']);
    expect(r.error).toBeUndefined();
    const plan = r.plans[0]!;
    expect([plan.endpoint.key, plan.endpoint.path, plan.endpoint.command]).toEqual(['/reports/monthly', '/reports/monthly', 'get']);
    expect(plan.pages.start.pathname + plan.pages.start.search).toBe('/v1/reports/monthly?kind=a%20b&x[y]=1&z=1&itemsPerPage=1000');
    expect(plan.pages.headers).toEqual({ 'X-Pagination-Style': 'cursor' });
    expect(plan.manifest?.output.endpoint).toEqual({
      key: '/reports/monthly',
      template: '/reports/monthly',
      path: '/reports/monthly?kind=a%20b&x[y]=1',
    });
    expect(plan.resume.fingerprint.request).toBe('/v1/reports/monthly?kind=a%20b&x[y]=1&z=1&itemsPerPage=1000');
  });

  it("headers: the profile's, replaced by name by the flags; in the checkpoint a credential by name only; in the manifest masked", async () => {
    const r = await planFrom(
      ['get', '/entities', '--out', 'e.ndjson', '-H', 'accept-version: 2020-06-28', '-H', 'Authorization: Bearer tok-123456789'],
      {
        header: 'Accept-Version: 2019-01-01',
      },
    );
    expect(r.error).toBeUndefined();
    const plan = r.plans[0]!;
    expect(plan.http.headers).toEqual({ 'accept-version': '2020-06-28', Authorization: 'Bearer tok-123456789' });
    expect(plan.resume.fingerprint.headers).toEqual({ 'accept-version': '2020-06-28', Authorization: '(credential)' });
    expect(plan.manifest?.output.headers).toEqual({ 'accept-version': '2020-06-28', Authorization: 'Bearer ****789' });
    expect(r.secrets.redact('x Bearer tok-123456789 y')).toBe('x [REDACTED] y');
  });

  it('without headers, a plan has none, and neither have its checkpoint and manifest', async () => {
    const r = await planFrom(['entities', '--out', 'e.ndjson']);
    const plan = r.plans[0]!;
    expect(plan.http.headers).toBeUndefined();
    expect('headers' in plan.resume.fingerprint).toBe(false);
    expect(plan.manifest && 'headers' in plan.manifest.output).toBe(false);
  });
});

describe('sourceOf', () => {
  it('is the path, with the --param filters as its query', () => {
    expect(sourceOf('/taxpayers/X/invoices', [])).toBe('/taxpayers/X/invoices');
    expect(
      sourceOf('/taxpayers/X/invoices', [
        ['status', 'VIGENTE'],
        ['type', 'I E'],
      ]),
    ).toBe('/taxpayers/X/invoices?status=VIGENTE&type=I+E');
  });
});

describe('withoutPassword', () => {
  it.each([
    ['postgres://me:hunter2@db:5432/x', 'postgres://me@db:5432/x'],
    ['postgres://me@db/x', 'postgres://me@db/x'],
    ['invoices.duckdb', 'invoices.duckdb'],
    ['--out', '--out'],
  ])('%s', (word, shown) => {
    expect(withoutPassword(word)).toBe(shown);
  });
});
