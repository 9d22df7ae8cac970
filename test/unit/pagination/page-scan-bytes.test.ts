/**
 * The byte path on byte texts (http/body.ts readBoundedByteText): a page read as its UTF-8 bytes,
 * one per code unit, is scanned as text is, and JSON/NDJSON write its items' bytes without decoding
 * or encoding them; the output is byte for byte the value path's.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readBoundedByteText } from '../../../src/http/body.js';
import { parsePageText } from '../../../src/pagination/hydra.js';
import { scanPageText } from '../../../src/pagination/page-scan.js';
import { createFormatter } from '../../../src/output/writer.js';
import { manyInvoices } from '../../fixtures/invoices.js';

const byteTextOf = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const valuesOf = (text: string): unknown[] => parsePageText(text, 'application/ld+json').members;
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
  it('gives each member as the byte text of its JSON text, and decodes the envelope', () => {
    const text = JSON.stringify({
      'hydra:member': [...manyInvoices(30), { name: 'PEÑA', tags: ['ü', '😀'] }],
      'hydra:totalItems': 31,
      'hydra:view': { 'hydra:next': '/x?q=año&page=2' },
    });
    const page = scanPageText(byteTextOf(text), true)!;
    expect(page.membersAsJson).toBe('bytes');
    expect(page.members).toEqual(valuesOf(text).map((m) => byteTextOf(JSON.stringify(m))));
    expect(page.view).toEqual({ next: '/x?q=año&page=2' });
    expect(page.totalItems).toBe(31);
  });

  it('serialises a member that is not canonical again, as a byte text', () => {
    const text = '{"hydra:member":[{"n": "Peña","x":1.50},{"n":"\\u00f1"},{"ok":"ñ"}]}';
    const page = scanPageText(byteTextOf(text), true)!;
    expect(page.members).toEqual(['{"n":"Peña","x":1.5}', '{"n":"ñ"}', '{"ok":"ñ"}'].map(byteTextOf));
  });

  it('gives up where the text path gives up', () => {
    expect(scanPageText(byteTextOf('{"member":["é"],"hydra:member":[]}'), true)).toBeUndefined();
  });
});

describe('JSON and NDJSON formatters on byte texts', () => {
  it('pageBytes gives the UTF-8 of the value path, page after page; page gives its text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.oneof(fc.string({ unit: 'binary' }), fc.integer())), { maxLength: 8 }),
        fc.nat({ max: 8 }),
        (items, cut) => {
          const text = JSON.stringify({ 'hydra:member': items });
          const members = scanPageText(byteTextOf(text), true)!.members as string[];
          const values = valuesOf(text);
          for (const format of ['ndjson', 'json'] as const) {
            const [bytes, reference, texts] = [createFormatter(format), createFormatter(format), createFormatter(format)];
            // Two pages, so the JSON separators across a page boundary are checked too.
            const written = Buffer.concat([bytes.pageBytes!(members.slice(0, cut)), bytes.pageBytes!(members.slice(cut)), Buffer.from(bytes.end())]);
            const expected = reference.page(values.slice(0, cut)) + reference.page(values.slice(cut)) + reference.end();
            expect(written.equals(Buffer.from(expected, 'utf8'))).toBe(true);
            expect(texts.page(members.slice(0, cut), 'bytes') + texts.page(members.slice(cut), 'bytes') + texts.end()).toBe(expected);
            expect(bytes.state()).toEqual(reference.state());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('have no byte path with --fields; project and CSV read values from byte texts', () => {
    const text = '{"hydra:member":[{"id":1,"n":"Peña"},{"id":2,"n":"😀"}]}';
    const members = scanPageText(byteTextOf(text), true)!.members;
    const projecting = createFormatter('ndjson', { fields: ['n'] });
    expect('pageBytes' in projecting).toBe(false);
    expect(projecting.page(members, 'bytes')).toBe('{"n":"Peña"}\n{"n":"😀"}\n');
    expect('pageBytes' in createFormatter('csv')).toBe(false);
    expect(createFormatter('csv').page(members, 'bytes')).toBe(createFormatter('csv').page(valuesOf(text)));
  });
});
