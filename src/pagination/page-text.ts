/**
 * The text a page's members were parsed from, kept on the parsed array so the JSON and NDJSON
 * formatters can write items as received instead of serialising them again (output/raw-json.ts).
 * It rides on the array because the members array is what travels from the client to the
 * formatter; a copy of it (`slice` for `--max-items`) has no text and is serialised as usual.
 *
 * A non-enumerable symbol property rather than a WeakMap: V8's young-generation GC treats the keys
 * of a WeakMap as live, so every parsed page would survive into the old generation and cost
 * mark-compact collections and memory (measured: 6 MB promoted per scavenge on 1000-item pages).
 * The property is invisible to JSON.stringify, `Object.keys`, `for…in` and spreading.
 */

const PAGE_TEXT = Symbol('collections.pageText');

/**
 * Records that `members` was parsed (by `JSON.parse`, whole and successfully) from the JSON body
 * `text`. The text lives as long as the array does. An array that is frozen or already has a text
 * is left as it is.
 */
export function rememberPageText(members: readonly unknown[], text: string): void {
  if (!Object.isExtensible(members) || Object.prototype.hasOwnProperty.call(members, PAGE_TEXT)) return;
  Object.defineProperty(members, PAGE_TEXT, { value: text, enumerable: false, writable: false, configurable: false });
}

/** The body `members` was parsed from, or undefined when unknown (or for a copy of the array). */
export function pageTextOf(members: readonly unknown[]): string | undefined {
  const text = (members as unknown as Record<symbol, unknown>)[PAGE_TEXT];
  return typeof text === 'string' ? text : undefined;
}
