/**
 * The sandbox's wire encodings (src/sandbox/wire.ts): PHP json_encode's escapes as API Platform's
 * JsonEncoder calls it, the debug-mode pretty print, and number literals written verbatim.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, encodeJson, JsonNumberLiteral, parseWireEncoding, WIRE_ENCODINGS, type WireEncoding } from '../../../src/sandbox/wire.js';

describe('encodeJson: strings', () => {
  // Expected texts are PHP's (ext/json/json_encoder.c, php_json_escape_string) with API Platform's flags, written out by hand.
  it.each([
    ['a slash', '/invoices/1', '"\\/invoices\\/1"', '"/invoices/1"'],
    ['a quote', 'say "hi"', '"say \\u0022hi\\u0022"', '"say \\"hi\\""'],
    ['an ampersand (RFCs hold one)', 'A&B950101XY1', '"A\\u0026B950101XY1"', '"A&B950101XY1"'],
    ['an apostrophe', "O'Brien", '"O\\u0027Brien"', `"O'Brien"`],
    ['tags', '<b>', '"\\u003Cb\\u003E"', '"<b>"'],
    ['a backslash before a quote', 'a\\"', '"a\\\\\\u0022"', '"a\\\\\\""'],
    ['a trailing backslash', 'a\\', '"a\\\\"', '"a\\\\"'],
    ['short control escapes', '\b\f\n\r\t', '"\\b\\f\\n\\r\\t"', '"\\b\\f\\n\\r\\t"'],
    ['other controls, lower-case hex', '\u0001\u001f', '"\\u0001\\u001f"', '"\\u0001\\u001f"'],
    ['DEL raw', '\u007f', '"\u007f"', '"\u007f"'],
    ['accents and Ñ raw (JSON_UNESCAPED_UNICODE)', 'ÑUÑO Café', '"ÑUÑO Café"', '"ÑUÑO Café"'],
    ['an astral character raw', '😀', '"😀"', '"😀"'],
    ['line terminators escaped (no JSON_UNESCAPED_LINE_TERMINATORS)', 'a\u2028b\u2029', '"a\\u2028b\\u2029"', '"a\u2028b\u2029"'],
  ])('%s', (_name, value, apiplatform, compact) => {
    expect(encodeJson(value, 'apiplatform')).toBe(apiplatform);
    expect(encodeJson(value, 'pretty')).toBe(apiplatform);
    expect(encodeJson(value, 'compact')).toBe(compact);
    for (const wire of WIRE_ENCODINGS) expect(JSON.parse(encodeJson(value, wire))).toBe(value);
  });

  it('escapes keys too', () => {
    expect(encodeJson({ 'a/b': 1 }, 'apiplatform')).toBe('{"a\\/b":1}');
  });
});

describe('encodeJson: numbers', () => {
  it.each([
    ['a 64-bit integer past 2^53', '9007199254740993'],
    ['the largest 64-bit integer', '9223372036854775807'],
    ['a zero fraction', '1.0'],
    ['an exponent as the server wrote it', '1.0e+25'],
    ['a negative fraction', '-0.50'],
  ])('writes %s verbatim in every encoding', (_name, text) => {
    const value = { n: new JsonNumberLiteral(text), m: [new JsonNumberLiteral(text)] };
    expect(encodeJson(value, 'compact')).toBe(`{"n":${text},"m":[${text}]}`);
    expect(encodeJson(value, 'apiplatform')).toBe(`{"n":${text},"m":[${text}]}`);
    expect(encodeJson(value, 'pretty')).toBe(`{\n    "n": ${text},\n    "m": [\n        ${text}\n    ]\n}`);
  });

  it('writes plain numbers as JSON.stringify does', () => {
    expect(encodeJson([0, -1, 1.5, 123456.78, 1e21], 'apiplatform')).toBe('[0,-1,1.5,123456.78,1e+21]');
  });

  it('keeps a literal comparable as a number and its text for filters', () => {
    const n = new JsonNumberLiteral('1.0');
    expect(Number(n)).toBe(1);
    expect(String(n)).toBe('1.0');
  });

  it.each(['', '01', '1.', '.5', 'NaN', '1e', '0x10', '1 '])('refuses %j as a number literal', (text) => {
    expect(() => new JsonNumberLiteral(text)).toThrow(RangeError);
  });

  it('does not take a string that merely looks like a placeholder for a literal', () => {
    expect(JSON.parse(encodeJson({ s: '\\udfff1.0' }, 'compact'))).toEqual({ s: '\\udfff1.0' });
    expect(JSON.parse(encodeJson({ s: '\\udfff1.0' }, 'apiplatform'))).toEqual({ s: '\\udfff1.0' });
  });
});

describe('encodeJson: pretty', () => {
  it('prints as JSON_PRETTY_PRINT: 4 spaces, "key": value, empty [] and {}', () => {
    const text = encodeJson({ a: [], b: {}, c: [1, { d: null }], e: 'x/y' }, 'pretty');
    expect(text).toBe(
      [
        '{',
        '    "a": [],',
        '    "b": {},',
        '    "c": [',
        '        1,',
        '        {',
        '            "d": null',
        '        }',
        '    ],',
        '    "e": "x\\/y"',
        '}',
      ].join('\n'),
    );
  });

  it('indents the lines after the first by the depth it is written at', () => {
    expect(encodeJson({ a: 1 }, 'pretty', 2)).toBe('{\n            "a": 1\n        }');
  });
});

describe('encodeFrame', () => {
  const envelope = { '@id': '/x', member: [], view: { next: '/x?page=2' } };
  it.each(WIRE_ENCODINGS)('splices elements into the array and writes an empty one as [] (%s)', (wire) => {
    const frame = encodeFrame(envelope, 'member', wire);
    const items = [{ id: 1 }, { id: 2, s: 'a&b' }];
    const text = frame.head + items.map((i) => encodeJson(i, wire, frame.elementDepth)).join(frame.separator) + frame.tail;
    expect(text).toBe(encodeJson({ ...envelope, member: items }, wire));
    expect(frame.empty).toBe(encodeJson(envelope, wire));
  });
});

describe('parseWireEncoding', () => {
  it('knows the three names and nothing else', () => {
    expect(WIRE_ENCODINGS.map(parseWireEncoding)).toEqual(['apiplatform', 'compact', 'pretty']);
    expect(parseWireEncoding('json')).toBeUndefined();
    expect(parseWireEncoding('APIPLATFORM')).toBeUndefined();
  });
});

describe('property: every encoding parses back to the value', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  it.each(WIRE_ENCODINGS)('%s', (wire: WireEncoding) => {
    fc.assert(
      fc.property(json, (value) => {
        const text = encodeJson(value, wire);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        // Only the characters PHP leaves raw: no raw /, &, ', <, >, U+2028 or U+2029 outside compact.
        if (wire !== 'compact') expect(text.replace(/\\./g, '')).not.toMatch(/[/&'<>\u2028\u2029]/);
      }),
      { seed: 20_261_125, numRuns: 300 },
    );
  });

  it.each(WIRE_ENCODINGS)('%s: number literals come out as their exact text', (wire) => {
    const digits = fc.stringMatching(/^-?(?:0|[1-9][0-9]{0,30})(?:\.[0-9]{1,5})?(?:[eE][-+]?[0-9]{1,3})?$/);
    fc.assert(
      fc.property(digits, fc.string(), (text, s) => {
        const out = encodeJson({ s, n: new JsonNumberLiteral(text) }, wire);
        expect(out.endsWith(wire === 'pretty' ? `"n": ${text}\n}` : `"n":${text}}`)).toBe(true);
        expect(JSON.parse(out)).toEqual({ s, n: Number(text) });
      }),
      { seed: 20_261_125, numRuns: 300 },
    );
  });
});
