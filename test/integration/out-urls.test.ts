/**
 * An `--out` that looks like a URL (`scheme:` then `/`) and is not one collections writes: exit 2
 * before anything is sent or created, naming the scheme, its password masked wherever it would
 * show (the error line, a JSON event, a dry run, a many-taxpayer run, the library's error).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportCollection, UsageError } from '../../src/index.js';
import { createSandboxFetch } from '../../src/sandbox/fetch.js';
import { runInProcess, useTempDir, useWorld } from '../helpers/world.js';

const PASSWORD = 'pw-canary-9d41';

const dir = useTempDir();
const world = useWorld({ sizes: { taxpayers: 3, invoicesPerTaxpayer: 5 } });

/** The temp folder's entries but the config folder, which settings may make before any check. */
const created = (): string[] => readdirSync(dir.path).filter((name) => name !== 'config');

const SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  [`postgress://etl:${PASSWORD}@127.0.0.1:55432/mirror`, 'postgress:'],
  [`pg://etl:${PASSWORD}@h/db`, 'pg:'],
  [`postgres:/etl:${PASSWORD}@h/db`, 'postgres:'],
  [`mysql://etl:${PASSWORD}@h/db`, 'mysql:'],
  [`s3://etl:${PASSWORD}@bucket/invoices.ndjson`, 's3:'],
  // A password holding `/` and `@` unencoded is masked whole (up to the last `@`).
  [`PG://etl:${PASSWORD}/x@y@h/db`, 'PG:'],
];

describe('--out with a URL collections does not write', () => {
  it.each(SPELLINGS)('%s: exit 2, no request, nothing created, the scheme named, no password', async (out, scheme) => {
    for (const extra of [[], ['--log-format', 'json'], ['--dry-run']]) {
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', out, ...extra]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`is a URL of scheme ${scheme}, not a destination collections writes`);
      expect(r.requests).toHaveLength(0);
      expect(created()).toEqual([]);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
      expect(r.stderr).toContain('[REDACTED]');
    }
  });

  it('a many-taxpayer template is refused the same way, before any taxpayer runs', async () => {
    const [a, b] = world.sandbox.taxpayers();
    for (const extra of [[], ['--log-format', 'json'], ['--dry-run']]) {
      const out = `pg://etl:${PASSWORD}@h/{taxpayer}.ndjson`;
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', `${a},${b}`, '--out', out, '--parallel', '2', ...extra]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('scheme pg:');
      expect(r.requests).toHaveLength(0);
      expect(created()).toEqual([]);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    }
  });

  it('verify names the URL without its password (exit 2, not a missing manifest)', async () => {
    const r = await runInProcess(world, dir, ['verify', `mysql://etl:${PASSWORD}@h/db`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `collections: verify mysql://etl:[REDACTED]@h/db is a URL of scheme mysql:, not a destination collections writes; collections writes a file path, - (stdout), postgres://user@host:5432/database, F.duckdb or F.parquet\n`,
    );
  });

  it('a file path with a colon, a Windows-like drive and file names stay files', async () => {
    for (const out of ['a:b.ndjson', 'C:/x.ndjson']) {
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', out, '-q']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(dir.has('a:b.ndjson')).toBe(true);
    expect(dir.has('C:/x.ndjson')).toBe(true);
  });

  it('exportCollection({ out }) throws the same UsageError, before any request', async () => {
    let requests = 0;
    const inner = createSandboxFetch(world.sandbox);
    const run = exportCollection({
      path: `/taxpayers/${world.taxpayer}/invoices`,
      out: `postgress://etl:${PASSWORD}@127.0.0.1:55432/mirror`,
      baseUrl: world.base,
      apiKey: world.key,
      clock: world.clock,
      cwd: dir.path,
      fetch: (input, init) => {
        requests++;
        return inner(input, init);
      },
    });
    const err: unknown = await run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toBe(
      '--out postgress://etl:[REDACTED]@127.0.0.1:55432/mirror is a URL of scheme postgress:, not a destination collections writes',
    );
    expect(requests).toBe(0);
    expect(created()).toEqual([]);
  });
});
