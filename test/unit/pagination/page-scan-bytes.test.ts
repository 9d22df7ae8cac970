/**
 * Pages read as byte texts (http/body.ts readBoundedByteText): a page read as its UTF-8 bytes, one
 * per code unit, is scanned as text is, and JSON/NDJSON write its items' bytes without decoding or
 * encoding them; for a page JSON.stringify wrote, the output is byte for byte JSON.stringify's of
 * the parsed items.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readBoundedByteText } from '../../../src/http/body.js';
import { parsePageText } from '../../../src/pagination/hydra.js';
import { scanPageText } from '../../../src/pagination/page-scan.js';
import { createFormatter } from '../../../src/output/writer.js';
import { valueMembers } from '../../../src/json/members.js';
import { manyInvoices } from '../../fixtures/invoices.js';

const byteTextOf = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const valuesOf = (text: string): unknown[] => parsePageText(text).members;
const read = (bytes: Uint8Array, asBytes?: boolean) => readBoundedByteText(new Response(bytes), 1 << 20, 'GET /x', asBytes);

describe('readBoundedByteText', () => {
  it('reads valid UTF-8 as a byte text: Latin-1 gives the bytes back', async () => {
    const bytes = Buffer.from('{"name":"JOSÉ ÑÚÑEZ","emoji":"😀"}', 'utf8');
    const { text, byteText } = await read(bytes);
    expect(byteText).toBe(true);
    expect(text).toHaveLength(bytes.length);
    expect(Buffer.from(text, 'latin1').equals(bytes)).toBe(true);
  });

  it('decodes a body with a BOM or invalid UTF-8, or when not asked for bytes, as Response.text() does', async () => {
    const cases = [Buffer.from('\ufeff{"a":"é"}', 'utf8'), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xed, 0xa0, 0x80, 0x22, 0x7d])];
    for (const bytes of cases) {
      const { text, byteText } = await read(bytes);
      expect(byteText).toBe(false);
      expect(text).toBe(await new Response(bytes).text());
    }
    expect(await read(Buffer.from('"é"', 'utf8'), false)).toEqual({ text: '"é"', byteText: false });
  });
});

describe('scanPageText on a byte text', () => {
  it('gives each member as the byte text of its source, and decodes the envelope', () => {
    const text = JSON.stringify({
      'hydra:member': [...manyInvoices(30), { name: 'PEÑA', tags: ['ü', '😀'] }],
      'hydra:totalItems': 31,
      'hydra:view': { 'hydra:next': '/x?q=año&page=2' },
    });
    const page = scanPageText(byteTextOf(text), true)!;
    expect(page.members.texts()).toEqual(valuesOf(text).map((m) => byteTextOf(JSON.stringify(m))));
    expect(page.members.values()).toEqual(valuesOf(text));
    expect(page.view).toEqual({ next: '/x?q=año&page=2' });
    expect(page.totalItems).toBe(31);
  });

  it('keeps a member that is not canonical as received, only its outside whitespace dropped', () => {
    const text = '{"hydra:member":[{"n": "Peña","x":1.50},{"n":"\\u00f1"},{"ok":"ñ"}]}';
    const page = scanPageText(byteTextOf(text), true)!;
    expect(page.members.texts()).toEqual(['{"n":"Peña","x":1.50}', '{"n":"\\u00f1"}', '{"ok":"ñ"}'].map(byteTextOf));
    expect(page.members.values().map((v) => (v as { n?: string }).n)).toEqual(['Peña', 'ñ', undefined]);
  });
});

describe('a member read alone', () => {
  it("keeps multi-byte characters and literals in a member larger than the reader's reused buffer", () => {
    for (const length of [30_000, 400_000]) {
      const big = 'ñ😀€'.repeat(length);
      const text = `{"member":[{"a":1.0,"s":"${big}","b":9007199254740993},{"c":1.50}]}`;
      for (const bytes of [true, false]) {
        const members = scanPageText(bytes ? byteTextOf(text) : text, bytes)!.members;
        const [first, second] = [members.value(0), members.value(1)] as [Record<string, unknown>, Record<string, unknown>];
        expect([String(first.a), first.s === big, String(first.b), String(second.c)]).toEqual(['1.0', true, '9007199254740993', '1.50']);
      }
    }
  });
});

describe('JSON and NDJSON formatters on byte texts', () => {
  it('write the UTF-8 JSON.stringify gives of the parsed items for JSON.stringify pages, page after page', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.oneof(fc.string({ unit: 'binary' }), fc.integer())), { maxLength: 8 }),
        fc.nat({ max: 8 }),
        (items, cut) => {
          const text = JSON.stringify({ 'hydra:member': items });
          const members = scanPageText(byteTextOf(text), true)!.members;
          const values = valuesOf(text);
          for (const format of ['ndjson', 'json'] as const) {
            const [bytes, reference] = [createFormatter(format), createFormatter(format)];
            // Two pages, so the JSON separators across a page boundary are checked too.
            const rest = scanPageText(byteTextOf(JSON.stringify({ member: items.slice(cut) })), true)!.members;
            const written = Buffer.concat([Buffer.from(bytes.page(members.take(cut))), Buffer.from(bytes.page(rest)), Buffer.from(bytes.end())]);
            // The reference: JSON.stringify of each parsed item (valueMembers' texts).
            const expected =
              String(reference.page(valueMembers(values.slice(0, cut)))) + String(reference.page(valueMembers(values.slice(cut)))) + reference.end();
            expect(written.toString('utf8')).toBe(expected);
            expect(bytes.state()).toEqual(reference.state());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('project and CSV read values from byte texts', () => {
    const text = '{"hydra:member":[{"id":1,"n":"Peña"},{"id":2,"n":"😀"}]}';
    const members = scanPageText(byteTextOf(text), true)!.members;
    expect(createFormatter('ndjson', { fields: ['n'] }).page(members)).toBe('{"n":"Peña"}\n{"n":"😀"}\n');
    expect(createFormatter('csv').page(members)).toBe(createFormatter('csv').page(valueMembers(valuesOf(text))));
  });
});
