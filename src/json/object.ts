export type JsonObject = Record<string, unknown>;

/** Whether parsed JSON is an object: `typeof` says `object` for arrays and `null` too. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
