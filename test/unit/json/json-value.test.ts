/**
 * json/json-value.ts: writeJson writes the literals back, and a kept literal is a scalar to every
 * walker of values (cells, paths, flattening).
 */
import { describe, expect, it } from 'vitest';
import { JsonNumber, writeJson } from '../../../src/json/json-value.js';
import { compileAccessor, isPlainObject, toCell } from '../../../src/output/flatten.js';
import { compileProjection } from '../../../src/output/fields.js';
import { flatten } from '../../helpers/flatten.js';

describe('a kept literal in the formats', () => {
  it.each(['9007199254740993', '1.0', '1.25E-2', '-0', '-1.0E3'])('%s is a scalar cell of its literal', (lit) => {
    const n = new JsonNumber(lit);
    expect(n).toBeInstanceOf(JsonNumber);
    expect(toCell(n)).toBe(lit);
    expect(isPlainObject(n)).toBe(false);
    expect(flatten({ n, list: [n], nested: { n } })).toEqual({ n: lit, list: `[${lit}]`, 'nested.n': lit });
    expect(compileAccessor(['n', 'toString'])({ n })).toBeUndefined();
    expect(compileAccessor(['n', 'toJSON'])({ n })).toBeUndefined();
    expect(writeJson(compileProjection(['n'])({ n, x: 1 }))).toBe(`{"n":${lit}}`);
  });

  it('JSON.stringify writes a kept literal as a string of it (not {}), writeJson as the number', () => {
    const value = { n: new JsonNumber('9007199254740993') };
    expect(JSON.stringify(value)).toBe('{"n":"9007199254740993"}');
    expect(writeJson(value)).toBe('{"n":9007199254740993}');
  });
});
