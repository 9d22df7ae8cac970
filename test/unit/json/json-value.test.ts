/**
 * json/json-value.ts: the value reader agrees with JSON.parse on everything but the numbers it
 * would change, which keep their literal; writeJson writes the literals back; and a kept literal is
 * a scalar to every walker of values (cells, paths, flattening).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonNumber, numberOf, readJsonValue, writeJson } from '../../../src/json/json-value.js';
import { flatten, isPlainObject, toCell } from '../../../src/output/flatten.js';
import { getPath, project } from '../../../src/output/fields.js';

describe('readJsonValue', () => {
  it('gives what JSON.parse gives for compact JSON, key order included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        const read = readJsonValue(text);
        expect(read).toEqual(JSON.parse(text));
        expect(writeJson(read)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the literal of a number JavaScript would print otherwise, and no other', () => {
    const text = '{"a":9007199254740993,"b":1.0,"c":1.25E-2,"d":-0,"e":12.5,"f":[1E400,"\\/"],"g":9007199254740992}';
    const value = readJsonValue(text) as Record<string, unknown>;
    expect(['a', 'b', 'c', 'd'].map((k) => value[k] instanceof JsonNumber)).toEqual([true, true, true, true]);
    expect(value.e).toBe(12.5);
    expect(value.g).toBe(9007199254740992);
    expect(writeJson(value)).toBe(text.replace('"\\/"', '"/"'));
  });

  it('makes __proto__ an own key and keeps the last of a repeated key, as JSON.parse does', () => {
    const text = '{"__proto__":{"x":1.0},"k":1,"k":2}';
    const value = readJsonValue(text) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'k']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.k).toBe(2);
  });
});

describe('a kept literal in the formats', () => {
  it.each(['9007199254740993', '1.0', '1.25E-2', '-0', '-1.0E3'])('%s is a scalar cell of its literal', (lit) => {
    const n = numberOf(lit);
    expect(n).toBeInstanceOf(JsonNumber);
    expect(toCell(n)).toBe(lit);
    expect(isPlainObject(n)).toBe(false);
    expect(flatten({ n, list: [n], nested: { n } })).toEqual({ n: lit, list: `[${lit}]`, 'nested.n': lit });
    expect(getPath({ n }, 'n.toString')).toBeUndefined();
    expect(writeJson(project({ n, x: 1 }, ['n']))).toBe(`{"n":${lit}}`);
  });

  it('JSON.stringify writes a kept literal as a string of it (not {}), writeJson as the number', () => {
    const value = { n: numberOf('9007199254740993') };
    expect(JSON.stringify(value)).toBe('{"n":"9007199254740993"}');
    expect(writeJson(value)).toBe('{"n":9007199254740993}');
  });

  it('numberOf keeps a plain number when String(n) is the literal', () => {
    for (const lit of ['0', '-12', '0.5', '1e+21', '123456789012345']) expect(numberOf(lit)).toBe(Number(lit));
  });
});
