/**
 * `--dry-run` into a database connects read-only and runs the checks the real run makes before its
 * first request (docs/progress.md, "Dry run"; docs/databases.md, "Errors"): the login, the DuckDB
 * file, the lock of the table and source, the table's shape and the stored checkpoint with its
 * options. Each case runs the dry run against a real PostgreSQL server and a real DuckDB file,
 * checks it created nothing, then runs the real export and compares exit codes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { createRateBudget } from '../../src/rate/budget.js';
import { interruptAt, removeTempDirs, runInProcess, useTempDir, useWorld } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

/** A group (one transaction) per page, so an interruption leaves a checkpoint a few pages in. */
const ENV = { COLLECTIONS_CHECKPOINT_MS: '0' };

const world = useWorld();
const dir = useTempDir();

const exportTo = (out: string, ...extra: string[]): string[] => [
  'invoices',
  '--taxpayer',
  world.taxpayer,
  '--items-per-page',
  '10',
  '--out',
  out,
  '--no-progress',
  '--concurrency',
  '1',
  ...extra,
];
const run = (args: string[], options: Parameters<typeof runInProcess>[3] = {}) =>
  runInProcess(world, dir, args, { ...options, env: { ...ENV, ...options.env } });
const dryRun = (args: string[], options: Parameters<typeof runInProcess>[3] = {}) => run([...args, '--dry-run'], options);

const STOPS = /^dry run: the export would stop before its first request \(exit (\d)\); nothing was sent or written\n$/;

/** Everything the database holds that a run could have created or changed: its tables and their rows. */
async function contents(db: TestDatabase): Promise<string> {
  if (db.kind === 'duckdb') {
    try {
      return readFileSync(db.out).toString('base64');
    } catch {
      return 'no file';
    }
  }
  const tables = await db.rows("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
  const rows = [];
  for (const { t } of tables) rows.push(t, ...(await db.rows(`SELECT * FROM "${t}"`)).map((r) => JSON.stringify(r)));
  return JSON.stringify(rows);
}

describe.each(['postgres', 'duckdb'] as const)('--dry-run --out %s', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });

  it('on a fresh database: exit 0, says what the run would create, creates nothing (no file, table or run)', async () => {
    const before = await contents(db);
    const dry = await dryRun(exportTo(db.out));
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      kind === 'postgres' ? /upserted by id \(else @id\) \(would be created\)/ : /\(the file and the table would be created\)/,
    );
    expect(dry.stdout).toMatch(/lock: +(a PostgreSQL advisory lock on the table and source|DuckDB's lock on the file) \(free\)/);
    expect(dry.requests).toHaveLength(1);
    expect(await contents(db)).toBe(before);
    if (kind === 'duckdb') expect(dir.has('mirror.duckdb') || dir.has('mirror.duckdb.wal')).toBe(false);
    expect(dry.stdout + dry.stderr).not.toContain(PG_PASSWORD);
  });

  it('--resume: the plan continues from the stored checkpoint (the pages left, not all of them) and the run fetches those', async () => {
    expect((await run(exportTo(db.out), interruptAt(4))).code).toBe(130);
    const [kept] = await db.rows('SELECT items, pages FROM collections_runs');
    const pages = Number(kept!.pages);
    expect(pages).toBeGreaterThanOrEqual(2);
    const before = await contents(db);
    const dry = await dryRun(exportTo(db.out, '--resume'));
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`(--resume continues after ${kept!.items} items, ${pages} pages)`);
    expect(dry.stdout).toMatch(new RegExp(`pages: +${6 - pages} of 10 items to go`));
    expect(dry.stdout).toMatch(/items: +60 \(\d+ written before\)/);
    expect(await contents(db)).toBe(before);
    const real = await run(exportTo(db.out, '--resume'));
    expect(real.code, real.stderr).toBe(0);
    expect(real.requests).toHaveLength(6 - pages);
  });

  it('--incremental: the plan starts from the watermark stored with the table, as the run does', async () => {
    world.recreate({ churn: 6 });
    expect((await run(exportTo(db.out, '--incremental'))).code).toBe(0);
    const [stored] = await db.rows("SELECT watermark FROM collections_runs WHERE status = 'complete'");
    world.clock.advance(60_000); // churn: six items inserted or updated
    const before = await contents(db);
    const dry = await dryRun(exportTo(db.out, '--incremental'));
    expect(dry.code, dry.stderr).toBe(0);
    const planned = /request: +GET (\S+)/.exec(dry.stdout)![1]!;
    expect(decodeURIComponent(planned)).toContain(`updatedAt[after]=${stored!.watermark}`);
    expect(await contents(db)).toBe(before);
    const real = await run(exportTo(db.out, '--incremental'));
    expect(real.code, real.stderr).toBe(0);
    expect(new URL(planned).pathname + new URL(planned).search).toBe(real.requests[0]!.url);
  });

  it('--resume --prune on an unfinished run without --prune: exit 2 before any request, as the run; nothing written', async () => {
    expect((await run(exportTo(db.out), interruptAt(3))).code).toBe(130);
    const before = await contents(db);
    const dry = await dryRun(exportTo(db.out, '--resume', '--prune'));
    expect(dry.code).toBe(2);
    expect(dry.stdout).toMatch(STOPS);
    expect(dry.stderr).toContain('--resume with different options than the interrupted export (prune)');
    expect(dry.requests).toHaveLength(0);
    expect(await contents(db)).toBe(before);
    const real = await run(exportTo(db.out, '--resume', '--prune'));
    expect(real.code).toBe(2);
  });

  it.each([
    [
      "a column of the user's own that is NOT NULL without a default",
      'note TEXT NOT NULL',
      /note is NOT NULL without a default, and the export does not fill it/,
    ],
    ['another type of a column of ours', 'extra TEXT', null],
  ])('a table with %s: exit 2 before any request, in the dry run and the run (zero requests)', async (_what, column, message) => {
    const types =
      kind === 'postgres'
        ? 'id text PRIMARY KEY, item jsonb NOT NULL, taxpayer text, source text NOT NULL, updated_at timestamptz, synced_at timestamptz NOT NULL'
        : 'id VARCHAR PRIMARY KEY, item JSON NOT NULL, taxpayer VARCHAR, source VARCHAR NOT NULL, updated_at TIMESTAMPTZ, synced_at TIMESTAMPTZ NOT NULL';
    // The second case: `synced_at` of another type, beside a nullable column of the user's own.
    const shape = message === null ? types.replace(/synced_at timestamptz NOT NULL/i, 'synced_at text') : types;
    await db.run(`CREATE TABLE invoices (${shape}, ${column})`);
    const before = await contents(db);
    const dry = await dryRun(exportTo(db.out));
    expect(dry.code).toBe(2);
    expect(dry.stdout).toMatch(STOPS);
    expect(dry.stderr).toMatch(message ?? /synced_at is (text|VARCHAR), not timestamp with time zone/i);
    expect(dry.requests).toHaveLength(0);
    const real = await run(exportTo(db.out));
    expect(real.code, real.stderr).toBe(2);
    expect(real.stderr).toContain('exists with another shape');
    expect(real.requests).toHaveLength(0);
    expect(await contents(db)).toBe(before);
  });

  it("--table in a schema that does not exist: exit 7 with the run's own error line, before any request", async () => {
    const errorLine = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('collections: '));
    const dry = await dryRun(exportTo(db.out, '--table', 'nosuch.invoices'));
    expect(dry.code).toBe(7);
    expect(dry.stdout).toMatch(STOPS);
    expect(dry.requests).toHaveLength(0);
    const real = await run(exportTo(db.out, '--table', 'nosuch.invoices'));
    expect(real.code).toBe(7);
    expect(errorLine(dry.stderr)).toBe(errorLine(real.stderr));
    expect(errorLine(dry.stderr)).toMatch(
      /could not prepare the tables \(nosuch\.invoices in .*(schema "nosuch" does not exist|Schema with name nosuch does not exist)/,
    );
    // Now the DuckDB file exists (the run made it before it failed): the same again, from the file.
    const again = await dryRun(exportTo(db.out, '--table', 'nosuch.invoices'));
    expect([again.code, errorLine(again.stderr)]).toEqual([7, errorLine(real.stderr)]);
  });

  it("a column of the user's own that is NOT NULL with a default is fine", async () => {
    const types =
      kind === 'postgres'
        ? "id text PRIMARY KEY, item jsonb NOT NULL, taxpayer text, source text NOT NULL, updated_at timestamptz, synced_at timestamptz NOT NULL, note text NOT NULL DEFAULT 'x'"
        : "id VARCHAR PRIMARY KEY, item JSON NOT NULL, taxpayer VARCHAR, source VARCHAR NOT NULL, updated_at TIMESTAMPTZ, synced_at TIMESTAMPTZ NOT NULL, note VARCHAR NOT NULL DEFAULT 'x'";
    await db.run(`CREATE TABLE invoices (${types})`);
    expect((await dryRun(exportTo(db.out))).code).toBe(0);
    const real = await run(exportTo(db.out));
    expect(real.code, real.stderr).toBe(0);
    expect(await db.rows("SELECT count(*) AS n FROM invoices WHERE note = 'x'")).toEqual([{ n: '60' }]);
  });
});

describe('--dry-run --out postgres://', () => {
  it('a wrong password: exit 7 with the server reason, as the run; no password shown', async () => {
    const name = await server.createDatabase();
    const out = server.url(name, { password: 'wrong-canary-PW-77aa' });
    const dry = await dryRun(exportTo(out));
    expect(dry.code).toBe(7);
    expect(dry.stdout).toMatch(STOPS);
    expect(dry.stderr).toMatch(/cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/t\w+: password authentication failed/);
    expect(dry.requests).toHaveLength(0);
    expect(dry.stdout + dry.stderr).not.toContain('wrong-canary-PW-77aa');
    expect((await run(exportTo(out))).code).toBe(7);
  });

  it('with the right password in the URL or PGPASSWORD: it connects, and the password is in no output', async () => {
    const name = await server.createDatabase();
    const inUrl = await dryRun([...exportTo(server.url(name)), '--verbose']);
    expect(inUrl.code, inUrl.stderr).toBe(0);
    const fromEnv = await dryRun(exportTo(server.url(name, { password: false })), { env: { PGPASSWORD: PG_PASSWORD } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    for (const r of [inUrl, fromEnv]) {
      expect(r.stdout).toContain('(would be created)');
      expect(r.stdout + r.stderr).not.toContain(PG_PASSWORD);
    }
    expect(await server.query(name, "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([{ n: 0 }]);
  });

  it("a role without CREATE in the table's schema: exit 7 with the run's own error line; allowed once granted", async () => {
    const name = await server.createDatabase();
    const role = `etl_${name}`;
    await server.query(name, `CREATE ROLE ${role} LOGIN PASSWORD 'etl-canary-PW'`);
    await server.query(name, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    const out = `postgres://${role}:etl-canary-PW@127.0.0.1:${server.port}/${name}`;
    const dry = await dryRun(exportTo(out));
    expect(dry.code).toBe(7);
    expect(dry.stdout).toMatch(STOPS);
    const line = `collections: PostgreSQL could not prepare the tables (invoices in postgres://${role}@127.0.0.1:${server.port}/${name}): permission denied for schema public (42501)\n`;
    expect(dry.stderr).toBe(line);
    expect(dry.requests).toHaveLength(0);
    const real = await run(exportTo(out));
    expect(real.code).toBe(7);
    expect(real.stderr).toBe(line);
    await server.query(name, `GRANT CREATE ON SCHEMA public TO ${role}`);
    const allowed = await dryRun(exportTo(out));
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout + allowed.stderr).not.toContain('etl-canary-PW');
  });

  it('another run holding the table and source: exit 7 naming it, no request; the first run completes', async () => {
    const name = await server.createDatabase();
    const out = server.url(name);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = run(exportTo(out), {
      wrapFetch: (inner) => async (input, init) => {
        started();
        await gate;
        return inner(input, init);
      },
    });
    await running;
    const dry = await dryRun(exportTo(out), { rateBudget: createRateBudget() });
    expect(dry.code).toBe(7);
    expect(dry.stdout).toMatch(STOPS);
    expect(dry.stderr).toMatch(/another export is writing invoices for \/taxpayers\/.+\/invoices \(PostgreSQL backend \d+ holds its lock\)/);
    expect(dry.requests).toHaveLength(0);
    const other = await dryRun(exportTo(out, '--param', 'status=VIGENTE'), { rateBudget: createRateBudget() });
    expect(other.code, 'another source of the table is another lock').toBe(0);
    release();
    expect((await first).code).toBe(0);
  });
});

describe('--dry-run --out F.duckdb', () => {
  it('a text file in place of the DuckDB file: exit 7, as the run; the file untouched', async () => {
    writeFileSync(dir.file('notes.duckdb'), 'not a database\n');
    const dry = await dryRun(exportTo('notes.duckdb'));
    expect(dry.code).toBe(7);
    expect(dry.stdout).toMatch(STOPS);
    expect(dry.stderr).toMatch(/cannot open the DuckDB file notes\.duckdb: .*not a valid DuckDB database file/);
    expect(dry.requests).toHaveLength(0);
    expect((await run(exportTo('notes.duckdb'))).code).toBe(7);
    expect(dir.read('notes.duckdb').toString()).toBe('not a database\n');
  });

  it('a file another process writes: exit 7 naming its PID, no request', async () => {
    const db = duckdbDatabase(dir);
    expect((await run(exportTo(db.out))).code).toBe(0);
    const holder = await holdDuckDb(db.out);
    try {
      const dry = await dryRun(exportTo(db.out));
      expect(dry.code).toBe(7);
      expect(dry.stderr).toMatch(new RegExp(`another process \\(PID ${holder.pid}\\) holds the DuckDB file`));
      expect(dry.requests).toHaveLength(0);
    } finally {
      holder.kill();
    }
  });
});

/** A child process that opens `path` for writing with DuckDB (and so holds its lock) until killed. */
function holdDuckDb(path: string): Promise<ChildProcess> {
  const script =
    "const { DuckDBInstance } = await import('@duckdb/node-api');" +
    // Referenced from globalThis: an instance the garbage collector takes releases its lock.
    'globalThis.held = await DuckDBInstance.create(process.argv[1]); await globalThis.held.connect();' +
    "process.stdout.write('held\\n'); setInterval(() => {}, 1000);";
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the holder exited (${String(code)})`)));
    child.stdout.once('data', () => resolve(child));
  });
}

describe('--dry-run with several taxpayers into one table', () => {
  it('checks each taxpayer against the database: a fresh table, then one of another shape (exit 2 for each, as the run)', async () => {
    world.recreate({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 20 } });
    const db = await postgresDatabase(server);
    const args = ['invoices', '--taxpayer', world.sandbox.taxpayers().join(','), '--items-per-page', '10', '--out', db.out];
    const fresh = await dryRun(args);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/total: +40 items, 4 pages/);
    await db.run('CREATE TABLE invoices (id integer PRIMARY KEY)');
    const dry = await dryRun(args);
    expect(dry.code).toBe(2);
    expect(dry.stdout.match(/would fail, exit 2: the table invoices exists with another shape/g)).toHaveLength(2);
    expect(dry.requests).toHaveLength(0);
    expect(dry.stdout + dry.stderr).not.toContain(PG_PASSWORD);
    const real = await run(args);
    expect(real.code).toBe(2);
    expect(real.requests).toHaveLength(0);
  });
});
