/**
 * `--out F.parquet` keeps numbers exact (docs/databases.md, "Parquet"): integer columns stay
 * integers (BIGINT, or DECIMAL(38,0) once a value leaves 64 bits), decimal columns are DECIMAL with
 * the scale their literals need (18 digits wide, 38 when a value needs more), a value past 38 digits keeps its column as text. Read back by a real
 * DuckDB and compared with the literals of an NDJSON export of the same pages.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { duckdbDatabase } from '../helpers/databases.js';
import { removeTempDirs, runInProcess, type InProcessOptions, useTempDir, useWorld } from '../helpers/world.js';

afterAll(removeTempDirs);

const world = useWorld();
const dir = useTempDir();

/** Responses whose first `key` (a number) of each page is `first`, and second `second` (as a server holding such values writes them). */
function folios(first: string, second: string, key = 'satFolio'): InProcessOptions {
  return {
    wrapFetch: (inner) => async (input, init) => {
      const response = await inner(input, init);
      let n = 0;
      const body = (await response.text()).replace(new RegExp(`"${key}":(-?[0-9][0-9.eE+-]*)`, 'g'), (whole) =>
        ++n === 1 ? `"${key}":${first}` : n === 2 ? `"${key}":${second}` : whole,
      );
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
}

const exportTo = (out: string): string[] => ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '20', '--out', out, '-q'];

/** A number literal in its shortest exact form: `1234.50` → `1234.5`, `1.0e+2` → `100`, `-0.0` → `0`. */
function exact(literal: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
  const digits = (whole! + fraction).replace(/^0+(?=\d)/, '');
  const point = digits.length - fraction.length + Number(exponent);
  const padded = point > digits.length ? digits.padEnd(point, '0') : point <= 0 ? '0'.repeat(1 - point) + digits : digits;
  const at = Math.max(point, 1);
  const int = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const frac = padded.slice(at).replace(/0+$/, '');
  const text = frac === '' ? int : `${int}.${frac}`;
  return text === '0' ? '0' : `${sign!}${text}`;
}

/** The literal of `key` in each line of an NDJSON export, by id. */
function literals(ndjson: string, key: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of ndjson.trim().split('\n')) {
    const id = /"id":"([^"]+)"/.exec(line)![1]!;
    const value = new RegExp(`"${key}":(-?[0-9][0-9.eE+-]*)`).exec(line)?.[1];
    if (value !== undefined) found.set(id, value);
  }
  return found;
}

async function parquet(name: string) {
  const db = duckdbDatabase(dir, `${name}.read.duckdb`);
  const from = `read_parquet('${dir.file(name)}')`;
  const described = await db.rows(`DESCRIBE SELECT * FROM ${from}`);
  return {
    types: new Map(described.map((c) => [c.column_name!, c.column_type!])),
    rows: (columns: string) => db.rows(`SELECT ${columns} FROM ${from}`),
  };
}

describe('--out F.parquet: numbers exact', () => {
  it('an integer column with 2^53 + 1 and a value past 2^63 is DECIMAL(38,0), every value read back as written; money is DECIMAL(18,2), summed exactly', async () => {
    const values = folios('9007199254740993', '18446744073709551616');
    expect((await runInProcess(world, dir, exportTo('inv.parquet'), values)).code).toBe(0);
    expect((await runInProcess(world, dir, exportTo('inv.ndjson'), values)).code).toBe(0);
    const ndjson = dir.read('inv.ndjson').toString();
    const { types, rows } = await parquet('inv.parquet');
    expect(types.get('satFolio')).toBe('DECIMAL(38,0)');
    expect(types.get('total')).toBe('DECIMAL(18,2)');
    expect(types.get('exchangeRate')).toMatch(/^DECIMAL\(18,[1-9]\)$/);
    expect(types.get('isIssuer')).toBe('BOOLEAN');
    expect(types.get('id')).toBe('VARCHAR');
    const read = await rows('id, "satFolio"::VARCHAR AS folio, total::VARCHAR AS total, "exchangeRate"::VARCHAR AS rate');
    expect(read).toHaveLength(60);
    for (const [key, column] of [
      ['satFolio', 'folio'],
      ['total', 'total'],
      ['exchangeRate', 'rate'],
    ] as const) {
      const written = literals(ndjson, key);
      expect(written.size).toBeGreaterThan(30);
      // An item without the key (or with null) is a NULL cell.
      expect(new Map(read.map((r) => [r.id!, r[column] == null ? null : exact(r[column])]))).toEqual(
        new Map(read.map((r) => [r.id!, written.has(r.id!) ? exact(written.get(r.id!)!) : null])),
      );
    }
    const folioTexts = read.map((r) => r.folio);
    expect(folioTexts).toContain('9007199254740993');
    expect(folioTexts).toContain('18446744073709551616');
    // Money summed in DECIMAL: the cents of the literals, not a sum of doubles.
    const cents = [...literals(ndjson, 'total').values()].reduce(
      (sum, v) =>
        sum + BigInt(exact(v).replace(/^(-?\d+)(?:\.(\d{1,2}))?$/, (_m, i: string, f: string | undefined) => `${i}${(f ?? '').padEnd(2, '0')}`)),
      0n,
    );
    const [sum] = await rows('sum(total)::VARCHAR AS s');
    expect(sum!.s).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`);
  });

  it('a column whose values all fit 64 bits stays BIGINT; one with a value past 38 digits is text, the literal as written', async () => {
    expect((await runInProcess(world, dir, exportTo('plain.parquet'))).code).toBe(0);
    expect((await parquet('plain.parquet')).types.get('satFolio')).toBe('BIGINT');
    const huge = '1234567890123456789012345678901234567890';
    expect((await runInProcess(world, dir, exportTo('huge.parquet'), folios(huge, '1.0e+25'))).code).toBe(0);
    const { types, rows } = await parquet('huge.parquet');
    expect(types.get('satFolio')).toBe('VARCHAR');
    const texts = (await rows('"satFolio" AS f')).map((r) => r.f);
    expect(texts).toContain(huge);
    expect(texts).toContain('1.0e+25');
  });

  it('an exponent literal in a decimal column keeps the column DECIMAL, with its exact value', async () => {
    expect((await runInProcess(world, dir, exportTo('exp.parquet'), folios('1.0e+25', '2.5E-2'))).code).toBe(0);
    const { types, rows } = await parquet('exp.parquet');
    expect(types.get('satFolio')).toBe('DECIMAL(38,3)');
    const texts = (await rows('"satFolio"::VARCHAR AS f')).map((r) => exact(r.f!));
    expect(texts).toContain('10000000000000000000000000');
    expect(texts).toContain('0.025');
  });

  it('DECIMAL(18, s) while every value fits 18 digits, DECIMAL(38, s) from the first that needs 19', async () => {
    expect((await runInProcess(world, dir, exportTo('18.parquet'), folios('12345678901234.5', '-0.25', 'exchangeRate'))).code).toBe(0);
    const narrow = await parquet('18.parquet');
    // The sandbox's rates have up to 4 decimals: 14 digits before the point and 4 after fill 18.
    expect(narrow.types.get('exchangeRate')).toBe('DECIMAL(18,4)');
    expect((await narrow.rows('"exchangeRate"::VARCHAR AS f')).map((r) => r.f)).toEqual(expect.arrayContaining(['12345678901234.5000', '-0.2500']));
    expect((await runInProcess(world, dir, exportTo('38.parquet'), folios('123456789012345.5', '-0.25', 'exchangeRate'))).code).toBe(0);
    const wide = await parquet('38.parquet');
    expect(wide.types.get('exchangeRate')).toBe('DECIMAL(38,4)');
    expect((await wide.rows('"exchangeRate"::VARCHAR AS f')).map((r) => r.f)).toContain('123456789012345.5000');
  });
});
