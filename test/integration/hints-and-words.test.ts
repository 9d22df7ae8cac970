/**
 * The hints and words of issue 35's rows 12–18, each as a user meets it: the page-size hint names
 * the server's maximum, `--param` is named only when given, `verify` of an output names its
 * manifest, a repeated `-H` name is refused in words, a short credential is masked whole in the dry
 * run, a `--format` the file name contradicts is a note, and the small words of the database
 * destinations (one row, a URL in the many-taxpayer table, tables counted as tables).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { duckdbDatabase, postgresDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createWorld, removeTempDirs, runInProcess, tempDir, type InProcessOptions } from '../helpers/world.js';

afterAll(removeTempDirs);

/** Answers every request with a 422 whose violation is `message`, as API Platform writes it. */
const rejecting = (message: string) => (): FetchLike => () =>
  Promise.resolve(
    new Response(JSON.stringify({ title: 'An error occurred', detail: message, status: 422 }), {
      status: 422,
      headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-1' },
    }),
  );

async function run(args: string[], options: InProcessOptions = {}) {
  const world = createWorld();
  const r = await runInProcess(world, tempDir(), [...args, '--no-progress'], options);
  return { ...r, world };
}

describe('a 400/422 names what the user can change', () => {
  it('itemsPerPage above the maximum the message gives: the hint names that maximum', async () => {
    const r = await run(['entities', '--items-per-page', '60'], {
      wrapFetch: rejecting('itemsPerPage: This value should be less than or equal to 50.'),
    });
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      'collections: the API rejected the parameters (GET /entities?itemsPerPage=60: HTTP 422): itemsPerPage: This value should be less than or equal to 50. [X-Request-ID: req-1]; the API refuses this page size (itemsPerPage=60): give --items-per-page 50 or less',
    ]);
  });

  it('another violation: --param named only when given; a path of get names its query; else no flag', async () => {
    const wrapFetch = rejecting('status: The value you selected is not a valid choice.');
    const param = await run(['entities', '--param', 'status=bogus'], { wrapFetch });
    expect(param.code).toBe(2);
    expect(param.lines[0]).toMatch(/; check --param values$/);
    const path = await run(['get', '/entities?status=bogus'], { wrapFetch });
    expect(path.code).toBe(2);
    expect(path.lines[0]).toMatch(/not a valid choice\. \[X-Request-ID: req-1\]; check the query of the path \(\?status=bogus\)$/);
    const none = await run(['entities'], { wrapFetch });
    expect(none.code).toBe(2);
    expect(none.lines[0]).toMatch(/not a valid choice\. \[X-Request-ID: req-1\]$/);
  });
});

describe('request headers', () => {
  it('-H with one name twice, in any case: exit 2 before any request, both spellings named, no value', async () => {
    const r = await run(['entities', '-H', 'X-A: secret-one', '-H', 'x-a: secret-two']);
    expect(r.code).toBe(2);
    expect(r.requests).toHaveLength(0);
    expect(r.lines).toEqual([
      "collections: --header X-A is given twice (as X-A and x-a); each header name is sent once; give it once; a header that takes a list takes its values joined with ', ' (--header 'X-A: a, b')",
    ]);
    expect(r.stderr).not.toContain('secret-');
  });

  it("--dry-run masks the credential after the auth scheme by its own length: 'Bearer abcd' shows no character of it", async () => {
    const short = await run(['entities', '-H', 'Authorization: Bearer abcd', '--dry-run']);
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('Authorization: Bearer ****\n');
    expect(short.stdout).not.toContain('abcd');
    const long = await run(['entities', '-H', 'Authorization: Bearer abcdefghijklmnop', '--dry-run']);
    expect(long.stdout).toContain('Authorization: Bearer ****mnop\n');
  });
});

describe('--format and the file name', () => {
  it('--format json --out x.ndjson: written as asked, one note on stderr; none when they agree', async () => {
    const world = createWorld();
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['entities', '--format', 'json', '--out', 'x.ndjson', '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.lines.filter((l) => l.includes('note'))).toEqual(['collections: note: writing json into x.ndjson, whose suffix says ndjson']);
    expect(dir.read('x.ndjson').toString().startsWith('[')).toBe(true);
    const agree = await runInProcess(world, dir, ['entities', '--format', 'ndjson', '--out', 'y.jsonl', '--no-progress']);
    expect(agree.stderr).not.toContain('note');
  });
});

describe('verify given an output', () => {
  it('names the manifest beside it to give instead, and asks for manifests', async () => {
    const world = createWorld();
    const dir = tempDir();
    expect((await runInProcess(world, dir, ['entities', '--out', 'inv.ndjson', '-q'])).code).toBe(0);
    const r = await runInProcess(world, dir, ['verify', 'inv.ndjson']);
    expect(r.code).toBe(8);
    expect(r.lines).toEqual([
      'collections: inv.ndjson: an output, not its manifest; give inv.ndjson.manifest.json',
      "collections: verification failed: 1 mismatch in 1 of 1 file; give each export's manifest (F.manifest.json beside F), a DuckDB file or a PostgreSQL URL",
    ]);
  });
});

describe('database words', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server.stop());

  it('one row is "1 row inserted"', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 1 } });
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', duckdbDatabase(dir).out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('(1 row inserted, 0 updated)');
  });

  it('the many-taxpayer table shows the PostgreSQL URL with its two slashes and no password; verify counts tables', async () => {
    const world = createWorld({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 3 } });
    const dir = tempDir();
    const db = await postgresDatabase(server);
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.sandbox.taxpayers().join(','), '--out', db.out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const shown = db.out.replace(`:${PG_PASSWORD}@`, '@');
    expect(shown).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
    expect(r.stderr).toContain(` ${shown} `);
    expect(r.stderr).not.toContain(PG_PASSWORD);
    await db.run('DELETE FROM invoices WHERE ctid IN (SELECT ctid FROM invoices LIMIT 1)');
    const v = await runInProcess(world, dir, ['verify', db.out]);
    expect(v.code).toBe(8);
    expect(v.lines.at(-1)).toBe(
      'collections: verification failed: 1 mismatch in 1 of 1 table; run the export again (with --resume if it was interrupted)',
    );
  });

  it('--table in a system schema is refused in words that fit, before any request', async () => {
    const r = await run(['invoices', '--taxpayer', createWorld().taxpayer, '--out', 'x.duckdb', '--table', 'pg_catalog.pg_class']);
    expect(r.code).toBe(2);
    expect(r.requests).toHaveLength(0);
    expect(r.lines).toEqual([
      'collections: --table pg_catalog.pg_class: pg_catalog is a system schema of the database, not one collections writes into; give a table of your own schema, e.g. --table public.invoices or --table analytics.invoices',
    ]);
  });
});
