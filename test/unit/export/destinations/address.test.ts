/** `--out` as a database address (`databaseAddress`), and a URL's password kept out of the "resume with" hint (`maskUrlPassword`). */
import { describe, expect, it } from 'vitest';
import { databaseAddress, maskUrlPassword } from '../../../../src/export/destinations/address.js';
import { UsageError } from '../../../../src/errors.js';

describe('databaseAddress', () => {
  it.each([
    ['postgres://me@db.example:5433/mirror', { kind: 'postgres', shown: 'postgres://me@db.example:5433/mirror', password: undefined }],
    [
      'postgresql://me:s%3Acret@db/mirror?sslmode=require',
      { kind: 'postgres', shown: 'postgresql://me@db/mirror?sslmode=require', password: 's:cret' },
    ],
    ['POSTGRES://me:pw@db/m', { kind: 'postgres', password: 'pw' }],
    ['out/invoices.duckdb', { kind: 'duckdb', path: '/work/out/invoices.duckdb', shown: 'out/invoices.duckdb' }],
    ['invoices.PARQUET', { kind: 'parquet', path: '/work/invoices.PARQUET' }],
  ])('%s', (out, expected) => {
    expect(databaseAddress(out, '/work')).toMatchObject(expected);
  });

  it.each(['invoices.ndjson', 'invoices.duckdb.gz', '-', undefined])('%s is a file export (or stdout)', (out) => {
    expect(databaseAddress(out, '/work')).toBeUndefined();
  });

  it('refuses a URL that does not parse without showing it (it may hold a password)', () => {
    const refuse = () => databaseAddress('postgres://me:hunter2@[db/x', '/work');
    expect(refuse).toThrow(UsageError);
    expect(refuse).toThrow(/^--out is not a valid PostgreSQL URL$/);
    expect(() => databaseAddress('postgres://me:%zz@db/x', '/work')).toThrow(
      /--out postgres:\/\/me@db\/x: the password is not valid percent-encoding/,
    );
  });
});

describe('maskUrlPassword', () => {
  it.each([
    ['pg://etl:PW@h/db', 'pg://etl:[REDACTED]@h/db'],
    ['postgres:/etl:PW@h/db', 'postgres:/etl:[REDACTED]@h/db'],
    ['s3://etl:p/w?x@y@bucket/k', 's3://etl:[REDACTED]@bucket/k'],
    ['mysql://etl@h/db', 'mysql://etl@h/db'],
    ['s3://bucket/a@b', 's3://bucket/a@b'],
    ['pg://:PW@h', 'pg://:[REDACTED]@h'],
    ['pg://etl:@h', 'pg://etl:@h'],
  ])('%s → %s', (out, shown) => {
    expect(maskUrlPassword(out)).toBe(shown);
  });
});
