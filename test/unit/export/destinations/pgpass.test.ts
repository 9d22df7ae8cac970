/** The libpq password file: `findPassword` and `pgpassLookup`. */
import { chmodSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/world.js';
import { findPassword, pgpassLookup } from '../../../../src/export/destinations/pgpass.js';

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
