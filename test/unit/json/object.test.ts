/**
 * json/object.ts: `isObject` is the test every reader of parsed JSON (config, cache, pages, error
 * bodies) relies on to tell an object from the other JSON values, `null` and arrays included.
 */
import { describe, expect, it } from 'vitest';
import { isObject } from '../../../src/json/object.js';

describe('isObject', () => {
  it.each([{}, { a: 1 }, JSON.parse('{"member":[]}') as unknown, Object.create(null) as unknown])('%j is an object', (value) => {
    expect(isObject(value)).toBe(true);
  });

  it.each([null, undefined, [], [{}], 'x', '', 0, 1.5, true, false])('%j is not', (value) => {
    expect(isObject(value)).toBe(false);
  });
});
