/**
 * Exports of pages in API Platform's encoding (`\/`, `\u0022`…; the pages after the first
 * pretty-printed, as in debug mode) whose items hold numbers JavaScript would print otherwise
 * (`9007199254740993`, `1.0`, `1.25E-2`, `-0`, `-1.0E3`): every format keeps them as the server
 * wrote them (README, "Output"). The sandbox's pages are re-encoded on their way to the client.
 */
import { parse } from 'csv-parse/sync';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { runInProcess, useTempDir, useWorld } from '../helpers/world.js';
import { encodeApiPlatform, Num } from '../helpers/api-platform-json.js';

const dir = useTempDir();
const world = useWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 5 } });

/** The fields added to every item: literals JSON.parse would change, and text API Platform escapes. */
const extra = (): Record<string, unknown> => ({
  satFolio: new Num('9007199254740993'),
  rate: new Num('1.0'),
  small: new Num('1.25E-2'),
  zero: new Num('-0'),
  neg: new Num('-1.0E3'),
  formula: '-5',
  quote: `say "hi" / <b> & it's`,
  list: [new Num('1.0'), 'x/y'],
});

/** The members the client was sent, in order, as values with {@link Num} literals. */
let sent: Array<Record<string, unknown>>;

/** Re-encodes each collection page as API Platform would, pretty-printed after the first, with {@link extra} in every item. */
const apiPlatform =
  (inner: FetchLike): FetchLike =>
  async (input, init) => {
    const res = await inner(input, init);
    if (!String(input).includes('/invoices')) return res;
    const body = (await res.json()) as Record<string, unknown>;
    const members = (body['hydra:member'] ?? body.member) as Array<Record<string, unknown>>;
    for (let k = 0; k < members.length; k++) members[k] = { ...members[k], ...extra() };
    sent.push(...members);
    const pretty = String(input).includes('id%5Blt%5D');
    return new Response(encodeApiPlatform(body, { pretty }), { status: res.status, headers: res.headers });
  };

const run = (args: string[]) =>
  runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '2', '--quiet', ...args], {
    wrapFetch: apiPlatform,
    columns: 200,
  });

beforeEach(() => {
  sent = [];
});

describe('numbers and escapes as the server wrote them', () => {
  it('ndjson: each item is its compact source, escapes and literals kept', async () => {
    const r = await run(['--format', 'ndjson']);
    expect(r.code).toBe(0);
    expect(sent).toHaveLength(5);
    expect(r.stdout).toBe(sent.map((m) => encodeApiPlatform(m) + '\n').join(''));
    // The sandbox's invoices carry a satFolio of their own, so the extra one takes its place in the key order.
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line).toContain('"satFolio":9007199254740993,');
      expect(line).toContain('"rate":1.0,"small":1.25E-2,"zero":-0,"neg":-1.0E3');
    }
    expect(r.stdout).toContain('"quote":"say \\u0022hi\\u0022 \\/ \\u003Cb\\u003E \\u0026 it\\u0027s"');
  });

  it('json: one array of the compact sources', async () => {
    const r = await run(['--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[\n' + sent.map((m) => encodeApiPlatform(m)).join(',\n') + '\n]\n');
  });

  it('ndjson and json --fields: projections carry the literals', async () => {
    const fields = ['--fields', 'satFolio,rate,small,zero,list'];
    const line = '{"satFolio":9007199254740993,"rate":1.0,"small":1.25E-2,"zero":-0,"list":[1.0,"x/y"]}';
    const nd = await run(['--format', 'ndjson', ...fields]);
    expect(nd.stdout).toBe(`${line}\n`.repeat(5));
    const json = await run(['--format', 'json', ...fields]);
    expect(json.stdout).toBe('[\n' + Array<string>(5).fill(line).join(',\n') + '\n]\n');
  });

  it('csv: cells show the literals, arrays as JSON text with their literals; --csv-safe leaves numbers alone', async () => {
    for (const safe of [false, true]) {
      const r = await run(['--format', 'csv', ...(safe ? ['--csv-safe'] : [])]);
      expect(r.code).toBe(0);
      const [header, ...rows]: string[][] = parse(r.stdout);
      expect(rows).toHaveLength(5);
      const cell = (row: string[], name: string): string => row[header!.indexOf(name)]!;
      for (const row of rows) {
        expect(['satFolio', 'rate', 'small', 'zero', 'neg'].map((n) => cell(row, n))).toEqual(['9007199254740993', '1.0', '1.25E-2', '-0', '-1.0E3']);
        expect(cell(row, 'list')).toBe('[1.0,"x/y"]');
        expect(cell(row, 'quote')).toBe(`say "hi" / <b> & it's`);
        expect(cell(row, 'formula')).toBe(safe ? "'-5" : '-5');
      }
    }
  });

  it('table: cells show the literals, number columns aligned right', async () => {
    const r = await run(['--format', 'table', '--fields', 'satFolio,rate,small,zero']);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => l.includes('9007199254740993'));
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.split('│').map((c) => c.trim())).toEqual(['', '9007199254740993', '1.0', '1.25E-2', '-0', '']);
  });
});
