/**
 * The text a page's members were parsed from, kept beside the parsed array so the JSON and NDJSON
 * formatters can write items as received instead of serialising them again (output/raw-json.ts).
 * A side table rather than a field because the members array is what travels from the client to
 * the formatter; a copy of it (`slice` for `--max-items`) has no text and is serialised as usual.
 */

const texts = new WeakMap<readonly unknown[], string>();

/**
 * Records that `members` was parsed (by `JSON.parse`, whole and successfully) from the JSON body
 * `text`. The text lives as long as the array does.
 */
export function rememberPageText(members: readonly unknown[], text: string): void {
  texts.set(members, text);
}

/** The body `members` was parsed from, or undefined when unknown (or for a copy of the array). */
export function pageTextOf(members: readonly unknown[]): string | undefined {
  return texts.get(members);
}
