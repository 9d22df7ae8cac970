/**
 * The matrix of the issue «The real wire», item 7: every output format (ndjson, json, csv, table,
 * and `--fields`), in offset and cursor mode, against the sandbox in each wire encoding
 * (`apiplatform`, the real service's escapes; `compact`; `pretty`), writes the same values, with
 * the number literals exact: each invoice's 64-bit `satFolio` and the zero fraction of
 * `exchangeRate: 1.0` come out digit for digit in every format. Cursor exports run against the
 * sandbox's default cursor end (API Platform ≥ 4.3.5: the chain never ends by itself) and must end
 * at the first empty page with exit 0.
 *
 * Needs a page reader that keeps members' source bytes and number literals, and a cursor loop that
 * stops at an empty page; the expected values come from the sandbox's compact bytes with the two
 * literal fields read as text, never from a JS number.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, type WireEncoding } from '../../src/sandbox/app.js';
import { literalItems, literalsAsText, type LiteralItem } from '../helpers/literals.js';
import { CANARY, createWorld, removeTempDirs, runInProcess, tempDir } from '../helpers/world.js';

const SIZES = { taxpayers: 1, invoicesPerTaxpayer: 60 };
const WIRES: readonly WireEncoding[] = ['apiplatform', 'compact', 'pretty'];
const MODES = [
  ['offset', []],
  ['cursor', ['--cursor']],
] as const;
/** The fields of the projected runs: the two literal fields, a nested one and one with `&`/`/` escapes. */
const FIELDS = ['id', 'satFolio', 'exchangeRate', 'issuer.rfc', '@id'];

afterAll(removeTempDirs);

type Item = LiteralItem;

/** The invoices in API order, from one compact page of a sandbox like the world's, literals as text. */
async function expectedItems(): Promise<Item[]> {
  const sb = createSandbox({ apiKey: CANARY, limit: 0, sizes: SIZES, wire: 'compact' });
  return literalItems(sb, `/taxpayers/${sb.taxpayers()[0]}/invoices`);
}

const get = (item: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | null)?.[k], item);
const project = (item: Item, fields: string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const [head, ...rest] = f.split('.');
    if (rest.length === 0) out[f] = item[f];
    else out[head!] = { ...(out[head!] as object | undefined), [rest.join('.')]: get(item, f) };
  }
  return out;
};
/** A CSV cell as the CSV writer documents it: empty for null, scalars as text, arrays and objects as JSON. */
const cellText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};

describe.each(WIRES)('the wire matrix: sandbox --wire %s', (wire) => {
  describe.each(MODES)('%s mode', (_mode, modeArgs) => {
    const run = async (format: string, extra: string[] = []) => {
      const world = createWorld({ sizes: SIZES, wire });
      const dir = tempDir();
      const r = await runInProcess(world, dir, [
        'invoices',
        '--taxpayer',
        world.taxpayer,
        '--items-per-page',
        '25',
        '--format',
        format,
        ...modeArgs,
        ...extra,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };

    it('ndjson: the same values, satFolio and 1.0 exact', async () => {
      const [out, expected] = await Promise.all([run('ndjson'), expectedItems()]);
      const lines = out.split('\n').filter(Boolean);
      expect(lines.map((l) => JSON.parse(literalsAsText(l)) as Item)).toEqual(expected);
      expect(out).toMatch(/"exchangeRate":\s*1\.0\b/);
      for (const item of expected) expect(out).toMatch(new RegExp(`"satFolio":\\s*${String(item.satFolio)}\\b`));
    });

    it('json: the same values, satFolio and 1.0 exact', async () => {
      const [out, expected] = await Promise.all([run('json'), expectedItems()]);
      expect(JSON.parse(literalsAsText(out))).toEqual(expected);
      expect(out).toMatch(/"exchangeRate":\s*1\.0\b/);
    });

    it('ndjson --fields: the projection, literals exact', async () => {
      const [out, expected] = await Promise.all([run('ndjson', ['--fields', FIELDS.join(',')]), expectedItems()]);
      const lines = out.split('\n').filter(Boolean);
      expect(lines.map((l) => JSON.parse(literalsAsText(l)) as unknown)).toEqual(expected.map((i) => project(i, FIELDS)));
    });

    it('csv: every cell, satFolio and 1.0 as the server wrote them', async () => {
      const [out, expected] = await Promise.all([run('csv'), expectedItems()]);
      const [header, ...rows]: string[][] = parse(out);
      expect(rows).toHaveLength(expected.length);
      expect(header).toContain('satFolio');
      rows.forEach((row, i) => header!.forEach((column, c) => expect(row[c], `${column} of row ${i}`).toBe(cellText(get(expected[i], column)))));
      expect(rows.some((row) => row[header!.indexOf('exchangeRate')] === '1.0')).toBe(true);
    });

    it('csv --fields: the columns asked, literals exact', async () => {
      const [out, expected] = await Promise.all([run('csv', ['--fields', FIELDS.join(',')]), expectedItems()]);
      const [header, ...rows]: string[][] = parse(out);
      expect(header).toEqual(FIELDS);
      expect(rows).toEqual(expected.map((item) => FIELDS.map((f) => cellText(get(item, f)))));
    });

    it('table --fields: each row shows the id, satFolio and exchangeRate exactly', async () => {
      const [out, expected] = await Promise.all([run('table', ['--fields', 'id,satFolio,exchangeRate']), expectedItems()]);
      const lines = out.split('\n');
      for (const item of expected) {
        const line = lines.find((l) => l.includes(item.id));
        expect(line, item.id).toBeDefined();
        expect(line).toContain(String(item.satFolio));
        if (typeof item.exchangeRate === 'string') expect(line).toMatch(new RegExp(`\\b${item.exchangeRate.replace('.', '\\.')}\\b`));
      }
    });
  });
});
