import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rawMemberTexts, receivedItemTexts } from '../../../src/output/raw-json.js';
import { createFormatter } from '../../../src/output/writer.js';
import { manyInvoices } from '../../fixtures/invoices.js';

/** The members JSON.parse finds, as parsePage picks them. */
function membersOf(text: string): unknown[] {
  const body = JSON.parse(text) as Record<string, unknown>;
  return (body['hydra:member'] !== undefined ? body['hydra:member'] : body.member) as unknown[];
}

/** Every text found must be exactly what JSON.stringify gives for the parsed member. */
function expectExact(text: string): (string | undefined)[] {
  const members = membersOf(text);
  const raw = rawMemberTexts(text, members.length);
  expect(raw).toBeDefined();
  raw!.forEach((r, i) => {
    if (r !== undefined) expect(r).toBe(JSON.stringify(members[i]));
  });
  return raw!;
}

const page = (members: string): string =>
  `{"@context":"/contexts/X","hydra:totalItems":9,"hydra:member":[${members}],"hydra:view":{"@id":"/x?page=1"}}`;

describe('rawMemberTexts', () => {
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
    ['object', '{"a":1,"b":{"c":[true,false,null]}}', true],
    ['whitespace inside an object', '{"a": 1}', false],
    ['integer-like key', '{"b":1,"1":2}', false],
    ['key starting with a digit that is not integer-like', '{"1a":2}', false],
    ['number as a key value next to strings', '{"n":-0.5,"s":"x"}', true],
    ['nested escapes in keys', '{"k\\"ey":1}', true],
  ])('%s: %s → canonical %s', (_name, member, canonical) => {
    const text = page(`${member},{"after":1}`);
    const raw = expectExact(text);
    expect(raw).toHaveLength(2);
    expect(raw[0] !== undefined).toBe(canonical);
    expect(raw[1]).toBe('{"after":1}');
  });

  it('picks hydra:member over member, and the last occurrence of a key, as JSON.parse and parsePage do', () => {
    expect(rawMemberTexts('{"member":[1],"hydra:member":[2,3]}', 2)).toEqual(['2', '3']);
    expect(rawMemberTexts('{"member":[1,2]}', 2)).toEqual(['1', '2']);
    expect(rawMemberTexts('{"hydra:member":[1],"hydra:member":[4,5]}', 2)).toEqual(['4', '5']);
    expect(rawMemberTexts('  {\n "hydra:member" : [ 1 , {"a":2} ]\n}\n', 2)).toEqual(['1', '{"a":2}']);
  });

  it('gives up when the members cannot be located with certainty', () => {
    expect(rawMemberTexts('{"hydra:\\u006dember":[1]}', 1)).toBeUndefined();
    expect(rawMemberTexts('{"hydra:member":[1,2]}', 3)).toBeUndefined();
    expect(rawMemberTexts('[1,2]', 2)).toBeUndefined();
    expect(rawMemberTexts('{"hydra:totalItems":0}', 0)).toBeUndefined();
  });

  it('is exact for any JSON members, compact or pretty-printed', () => {
    const member = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.array(member, { maxLength: 8 }), fc.boolean(), fc.boolean(), (members, pretty, prefixed) => {
        const body = { '@id': '/x', [prefixed ? 'hydra:member' : 'member']: members, 'hydra:view': { 'hydra:next': '/x?page=2' } };
        const text = pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
        const raw = expectExact(text);
        // Pretty-printed objects and arrays have whitespace: serialised again, never taken raw.
        if (pretty)
          raw.forEach(
            (r, i) => typeof members[i] === 'object' && members[i] !== null && JSON.stringify(members[i]).length > 2 && expect(r).toBeUndefined(),
          );
      }),
      { numRuns: 300 },
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
});

describe('JSON and NDJSON formatters with the page text', () => {
  it('write the same bytes with and without the page text, and fall back without it or for a slice', () => {
    const items = manyInvoices(25);
    const text = JSON.stringify({ 'hydra:member': items, 'hydra:totalItems': 25 });
    const parsed = membersOf(text);
    expect(receivedItemTexts(parsed, text)?.every((t) => t !== undefined)).toBe(true);
    expect(receivedItemTexts(parsed.slice(), undefined)).toBeUndefined();
    expect(receivedItemTexts(parsed.slice(0, 10), text)).toBeUndefined();
    for (const format of ['ndjson', 'json'] as const) {
      const withText = createFormatter(format).page(parsed, text);
      const without = createFormatter(format).page(JSON.parse(JSON.stringify(parsed)) as unknown[]);
      expect(withText).toBe(without);
      expect(createFormatter(format).page(parsed.slice(0, 10), text)).toBe(createFormatter(format).page(parsed.slice(0, 10)));
    }
  });

  it('take the items from the page text, not by serialising them again', () => {
    // A text whose members differ from the parsed items shows which one was written.
    const text = '{"hydra:member":[{"from":"text"}]}';
    expect(createFormatter('ndjson').page([{ from: 'items' }], text)).toBe('{"from":"text"}\n');
    expect(createFormatter('json').page([{ from: 'items' }], text)).toBe('\n{"from":"text"}');
    expect(createFormatter('ndjson').page([{ from: 'items' }])).toBe('{"from":"items"}\n');
  });

  it('serialise the items that are not canonical and project on --fields from the parsed items', () => {
    const text = '{"hydra:member":[{"id":1,"x":1.50},{"id":2,"x":"\\u00e9"},{"id":3,"x":[1, 2]},{"id":4,"x":null}]}';
    const parsed = membersOf(text);
    expect(createFormatter('ndjson').page(parsed, text)).toBe('{"id":1,"x":1.5}\n{"id":2,"x":"é"}\n{"id":3,"x":[1,2]}\n{"id":4,"x":null}\n');
    expect(createFormatter('ndjson', { fields: ['id'] }).page(parsed, text)).toBe('{"id":1}\n{"id":2}\n{"id":3}\n{"id":4}\n');
  });
});
