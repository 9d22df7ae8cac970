/**
 * The pure parts of database destinations: which destination `--out` names, default and given
 * table names, the source of a table's rows, the password file, and a URL's password kept out of
 * the "resume with" hint.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/world.js';
import { databaseAddress, maskUrlPassword } from '../../../../src/export/destinations/address.js';
import { findPassword, pgpassLookup } from '../../../../src/export/destinations/pgpass.js';
import { defaultTableName, parseTableName, quoteTable } from '../../../../src/export/destinations/table-name.js';
import { sourceOf, withoutPassword } from '../../../../src/export/plan/parts.js';
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

describe('table names', () => {
  it.each([
    ['invoices', 'invoices'],
    ['taxpayer-line-items', 'line_items'],
    ['invoice-line-items', 'line_items'],
    ['taxpayer-invoice-line-items', 'line_items'],
    ['payments', 'payments'],
    ['entities', 'entities'],
    ['/entities/E1/invoices?status=VIGENTE', 'invoices'],
    ['/invoices/payments', 'payments'],
    ['/invoices/A1/line-items', 'line_items'],
    ['/Taxpayers/X/Invoices/', 'invoices'],
    ['/things/%C3%A9t%C3%A9', '_t_'],
    ['/things/2024', 'items'],
    ['/', 'items'],
  ])('the default of %s is %s', (keyOrPath, name) => {
    expect(defaultTableName(keyOrPath)).toBe(name);
  });

  it('parses and quotes --table, schema-qualified or not', () => {
    expect(quoteTable(parseTableName('invoices'))).toBe('"invoices"');
    expect(quoteTable(parseTableName('analytics.Invoices_2024'))).toBe('"analytics"."Invoices_2024"');
  });

  it.each(['', 'a.b.c', '1abc', 'in voices', 'x"; DROP TABLE y; --', 'a-b', 'a'.repeat(64), 'ñ'])('refuses %j', (text) => {
    expect(() => parseTableName(text)).toThrow(UsageError);
  });

  it.each(['pg_catalog.pg_class', 'PG_CATALOG.invoices', 'pg_toast.t', 'information_schema.tables'])(
    'refuses %s in a system schema, in words that fit',
    (text) => {
      expect(() => parseTableName(text)).toThrow(/is a system schema of the database, not one collections writes into$/);
    },
  );

  it.each(['pg_class', 'public.pg_things', 'analytics.invoices'])('takes %s (a pg_ name in a schema of the user)', (text) => {
    expect(() => parseTableName(text)).not.toThrow();
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

describe('findPassword (libpq password file)', () => {
  const file = [
    '# comment',
    '',
    'db.example:5432:*:me:first',
    '*:*:mirror:me:second',
    'h\\:x:5432:d:u:esc\\:aped\\\\',
    'localhost:5432:*:*:socket',
  ].join('\n');
  it.each([
    [{ host: 'db.example', port: 5432, database: 'any', user: 'me' }, 'first'],
    [{ host: 'other', port: 5433, database: 'mirror', user: 'me' }, 'second'],
    [{ host: 'h:x', port: '5432', database: 'd', user: 'u' }, 'esc:aped\\'],
    [{ host: '/var/run/postgresql', port: 5432, database: 'x', user: 'y' }, 'socket'],
    [{ host: 'other', port: 5432, database: 'x', user: 'me' }, undefined],
  ])('%j → %s', (query, password) => {
    expect(findPassword(file, query)).toBe(password);
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

describe('pgpassLookup', () => {
  const query = { host: 'db', port: 5432, database: 'm', user: 'etl' };
  it.runIf(process.platform !== 'win32')('gives the password of a 0600 file, and says why a file others can read is ignored', async () => {
    const dir = tempDir();
    const file = dir.file('pgpass');
    writeFileSync(file, 'db:5432:m:etl:s3cret\n');
    chmodSync(file, 0o600);
    expect(await pgpassLookup(query, { PGPASSFILE: file })).toEqual({ password: 's3cret' });
    chmodSync(file, 0o644);
    expect(await pgpassLookup(query, { PGPASSFILE: file })).toEqual({
      ignored: `password file "${file}" has group or world access; permissions should be u=rw (0600) or less`,
    });
    expect(await pgpassLookup(query, { PGPASSFILE: dir.file('none') })).toEqual({});
    dir.remove();
  });
});
