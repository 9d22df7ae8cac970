/**
 * The one test for a JSON object. Parsed JSON (a config file, a cache, a page, an error body) is
 * `unknown` until checked, and arrays and `null` are objects to `typeof`.
 */

/** A JSON object as `JSON.parse` gives it: its keys, values not yet checked. */
export type JsonObject = Record<string, unknown>;

/** Whether `value` is a JSON object: an object that is neither `null` nor an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
