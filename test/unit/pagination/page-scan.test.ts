import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { scanPageText } from '../../../src/pagination/page-scan.js';
import { parsePageText } from '../../../src/pagination/hydra.js';
import { createFormatter } from '../../../src/output/writer.js';
import { manyInvoices } from '../../fixtures/invoices.js';

/** The members JSON.parse finds, as parsePage picks them. */
function membersOf(text: string): unknown[] {
  return parsePageText(text, 'application/ld+json').members;
}

/** The byte path must give exactly JSON.stringify of each member the value path parses. */
function expectExact(text: string): string[] {
  const scanned = scanPageText(text);
  expect(scanned).toBeDefined();
  expect(scanned!.membersAsJson).toBe(true);
  const texts = scanned!.members as string[];
  expect(texts).toEqual(membersOf(text).map((m) => JSON.stringify(m)));
  return texts;
}

const page = (members: string): string =>
  `{"@context":"/contexts/X","hydra:totalItems":9,"hydra:member":[${members}],"hydra:view":{"@id":"/x?page=1","hydra:next":"/x?page=2"}}`;

/** Whether `member` is taken as it is (a sliced text), rather than parsed and serialised. */
function takenAsIs(member: string): boolean {
  const text = page(`${member},{"after":1}`);
  const texts = expectExact(text);
  expect(texts[1]).toBe('{"after":1}');
  return texts[0] === member;
}

describe('scanPageText', () => {
  it.each([
    ['integer', '42', true],
    ['negative decimal', '-4481.14', true],
    ['zero', '0', true],
    ['small decimal kept in fixed notation', '0.000001', true],
    ['15 significant digits', '123456789.012345', true],
    ['trailing fraction zero', '1.50', false],
    ['exponent', '1e5', false],
    ['negative zero', '-0', false],
    ['below 1e-6 (printed with an exponent)', '0.0000001', false],
    ['more than 15 significant digits', '12345678901234567', false],
    ['plain string', '"ANA SOFÍA TORRES LEÓN"', true],
    ['canonical escapes', '"a\\"b\\\\c\\nd\\te\\r\\b\\f"', true],
    ['escaped backslash before the closing quote', '"a\\\\"', true],
    ['unicode escape', '"\\u00e9"', false],
    ['escaped slash', '"a\\/b"', false],
    ['structural characters inside a string', '"},{\\"a\\":[1,2]}"', true],
    ['object', '{"a":1,"b":{"c":[true,false,null]},"d":[],"e":{}}', true],
    ['whitespace inside an object', '{"a": 1}', false],
    ['integer-like key', '{"b":1,"1":2}', false],
    ['key starting with a digit that is not integer-like (parsed, same bytes)', '{"1a":2}', true],
    ['number as a key value next to strings', '{"n":-0.5,"s":"x"}', true],
    ['nested escapes in keys', '{"k\\"ey":1}', true],
  ])('%s: %s → taken as it is: %s', (_name, member, asIs) => {
    expect(takenAsIs(member)).toBe(asIs);
  });

  it('JSON.parses only the envelope, and alone each member that is not canonical', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      scanPageText(page('{"a":1},{"b":1.50},{"c":2}'));
      expect(parse.mock.calls.map((c) => c[0])).toEqual(['{"b":1.50}', page('')]);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads the envelope as parsePage does, prefixed or not', () => {
    const scanned = scanPageText(page('1,2'))!;
    expect(scanned.totalItems).toBe(9);
    expect(scanned.view).toEqual({ id: '/x?page=1', next: '/x?page=2' });
    const plain = scanPageText('{"totalItems":3,"member":[{"a":1}],"view":{"next":"/y?page=3","last":"/y?page=9"}}')!;
    expect(plain).toEqual({ members: ['{"a":1}'], membersAsJson: true, totalItems: 3, view: { next: '/y?page=3', last: '/y?page=9' } });
    expect(expectExact('  {\n "hydra:member" : [ 1 , {"a":2} ]\n}\n')).toEqual(['1', '{"a":2}']);
    expect(scanPageText('{"hydra:member":[]}')!.members).toEqual([]);
  });

  it.each([
    ['an escaped top-level key', '{"hydra:\\u006dember":[1]}'],
    ['both spellings of member', '{"member":[1],"hydra:member":[2,3]}'],
    ['member twice', '{"hydra:member":[1],"hydra:member":[4,5]}'],
    ['no member', '{"hydra:totalItems":0}'],
    ['an array at the top', '[1,2]'],
    ['a member that is not an array', '{"member":{"a":1}}'],
    ['invalid JSON in a member', '{"member":[{"a":01}]}'],
    ['invalid JSON between members', '{"member":[1 2]}'],
    ['an unfinished member', '{"member":[{"a":"x}]}'],
    ['invalid JSON in the envelope', '{"member":[1],"view":{"next":}}'],
    ['text after the page', '{"member":[1]} x'],
    ['a raw control character in a string', '{"member":["a\u0001b"]}'],
    ['JSON nested too deep', `{"member":[${'['.repeat(80)}${']'.repeat(80)}]}`],
  ])('gives up (the value path decides) on %s', (_name, text) => {
    expect(scanPageText(text)).toBeUndefined();
  });

  it('is exact for any JSON members, compact or pretty-printed', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }), fc.boolean(), fc.boolean(), (members, pretty, prefixed) => {
        const body = { '@id': '/x', [prefixed ? 'hydra:member' : 'member']: members, 'hydra:view': { 'hydra:next': '/x?page=2' } };
        expectExact(pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body));
      }),
      { numRuns: 300 },
    );
  });

  it('is exact for members with any Unicode text, escapes and control characters included', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }), { maxLength: 6 }), (members) => {
        expectExact(JSON.stringify({ 'hydra:member': members, 'hydra:totalItems': members.length }));
      }),
      { numRuns: 500 },
    );
  });

  it('is exact when strings use unicode escapes and numbers are written in other forms', () => {
    const escape = (s: string): string => JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()), {
          maxLength: 6,
        }),
        (entries) => {
          const members = entries.map(
            ([s, n, esc]) => `{"s":${esc ? escape(s) : JSON.stringify(s)},"n":${n.toString().replace('e', esc ? 'E' : 'e')}}`,
          );
          expectExact(page(members.join(',')));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never takes for valid a page the value path refuses', () => {
    const pieces = ['{', '}', '[', ']', ',', ':', '"a"', '"b\\"', '1', '-', '0', '.5', 'e1', 'true', 'nul', ' ', '\\', '"'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const text = `{"member":[${parts.join('')}]}`;
        let valid = true;
        try {
          parsePageText(text, null);
        } catch {
          valid = false;
        }
        if (!valid) expect(scanPageText(text)).toBeUndefined();
        else if (scanPageText(text) !== undefined) expectExact(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('JSON and NDJSON formatters on the byte path', () => {
  it('write the same bytes from the texts as from the values', () => {
    const text = JSON.stringify({ 'hydra:member': manyInvoices(25), 'hydra:totalItems': 25 });
    const texts = scanPageText(text)!.members;
    const values = membersOf(text);
    for (const format of ['ndjson', 'json'] as const) {
      expect(createFormatter(format).page(texts, true)).toBe(createFormatter(format).page(values));
      expect(createFormatter(format).page(texts.slice(0, 10), true)).toBe(createFormatter(format).page(values.slice(0, 10)));
    }
  });

  it('take the texts as they are, not by serialising values', () => {
    // A text that JSON.stringify would not write shows which one was written.
    expect(createFormatter('ndjson').page(['{"from": "text"}'], true)).toBe('{"from": "text"}\n');
    expect(createFormatter('json').page(['{"from": "text"}'], true)).toBe('\n{"from": "text"}');
    expect(createFormatter('ndjson', { fields: ['from'] }).page(['{"from": "text","x":1}'], true)).toBe('{"from":"text"}\n');
  });

  it('CSV and table read the values of texts', () => {
    const text = '{"hydra:member":[{"id":1,"x":1.50},{"id":2,"x":"\\u00e9"}]}';
    const texts = scanPageText(text)!.members;
    expect(createFormatter('csv').page(texts, true)).toBe(createFormatter('csv').page(membersOf(text)));
  });
});
