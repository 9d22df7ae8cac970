/**
 * The bytes the sandbox writes (docs/sandbox.md, "The sandbox": `--wire`). The real service is built with API
 * Platform, whose `JsonEncoder` calls PHP's `json_encode` with `JSON_HEX_TAG | JSON_HEX_APOS |
 * JSON_HEX_AMP | JSON_HEX_QUOT | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION` (and
 * `JSON_PRETTY_PRINT` in debug mode). PHP's ext/json encoder (`php_json_escape_string`) then writes:
 * `/` as `\/`; `"`, `&`, `'`, `<`, `>` as `\u0022`, `\u0026`, `\u0027`, `\u003C`, `\u003E`; `\\`
 * and `\b \f \n \r \t` short; other controls below U+0020 as `\u00XX` (lower-case hex, as
 * JSON.stringify); U+2028 and U+2029 as `\u2028`/`\u2029` (without `JSON_UNESCAPED_LINE_TERMINATORS`);
 * every other character as raw UTF-8. Its pretty print indents by 4 spaces, writes `"key": value`,
 * and keeps empty arrays and objects as `[]` and `{}`, exactly as `JSON.stringify(v, null, 4)`.
 *
 * So each encoding is JSON.stringify's text plus one pass: numbers JS cannot hold exactly (a 64-bit
 * integer, a zero fraction like `1.0`) are {@link JsonNumberLiteral}s, written verbatim in every
 * encoding; `apiplatform` and `pretty` then rewrite the escapes.
 */

/** How the sandbox writes its JSON bodies. */
export type WireEncoding = 'apiplatform' | 'compact' | 'pretty';

/**
 * The encodings, default first: `apiplatform` (the real service: compact, PHP's escapes),
 * `compact` (JSON.stringify's bytes, number literals exact), `pretty` (API Platform's debug mode:
 * `JSON_PRETTY_PRINT` with the same escapes).
 */
export const WIRE_ENCODINGS: readonly WireEncoding[] = ['apiplatform', 'compact', 'pretty'];

/** JSON's number grammar (RFC 8259 §6). */
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

/**
 * Prefix of the placeholder string a literal stands as inside JSON.stringify. A lone low surrogate
 * cannot come from valid UTF-8 text, which is all the real service can send (PHP's encoder fails on
 * invalid UTF-8), so no genuine string of a record starts with it.
 */
const LITERAL_MARK = '\udfff';
/** Placeholder of the spliced array of {@link encodeFrame}. */
const SPLICE_MARK = '\udffe';
/** How JSON.stringify writes {@link SPLICE_MARK}. */
const SPLICE_TEXT = '"\\udffe"';

/**
 * A JSON number written exactly as given, for values a JS number cannot carry as text: a 64-bit
 * integer beyond 2^53 (`9007199254740993`), a zero fraction (`1.0`, PHP's
 * `JSON_PRESERVE_ZERO_FRACTION`), an exponent as the server wrote it. Its `valueOf()` is the nearest
 * double, so filters and comparisons still see a number.
 */
export class JsonNumberLiteral {
  /**
   * @param text a JSON number (RFC 8259 §6)
   * @throws {RangeError} when `text` is not one
   */
  constructor(readonly text: string) {
    if (!NUMBER.test(text)) throw new RangeError(`not a JSON number: ${text}`);
  }
  /** The placeholder JSON.stringify writes, replaced by the literal text afterwards. */
  toJSON(): string {
    return LITERAL_MARK + this.text;
  }
  /** The literal text (what a filter compares a query value with). */
  toString(): string {
    return this.text;
  }
  /** The nearest double. */
  valueOf(): number {
    return Number(this.text);
  }
}

/** A literal's placeholder as JSON.stringify writes it (the lone surrogate escaped). */
const LITERAL_TEXT = /"\\udfff([-+.0-9eE]+)"/g;

/** The escapes `json_encode` writes where JSON.stringify writes the character raw or `\"` (see the module comment). */
const PHP_ESCAPES: Readonly<Record<string, string>> = {
  '\\"': '\\u0022',
  '\\\\': '\\\\',
  '/': '\\/',
  '&': '\\u0026',
  "'": '\\u0027',
  '<': '\\u003C',
  '>': '\\u003E',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * One pass over JSON.stringify's text: a literal's placeholder becomes its number, and (with `php`)
 * PHP's escapes replace JSON.stringify's. An escape pair (`\\`, `\"`) is matched as a whole so a
 * quote after an escaped backslash stays a quote; `/&'<>` and the line terminators only occur inside
 * strings in JSON text.
 */
const PHP_PASS = /"\\udfff([-+.0-9eE]+)"|\\["\\]|[/&'<>\u2028\u2029]/g;

function phpPass(text: string): string {
  return text.replace(PHP_PASS, (match: string, literal: string | undefined) => literal ?? PHP_ESCAPES[match]!);
}

/**
 * Writes a JSON value in an encoding.
 * @param value a JSON value; {@link JsonNumberLiteral}s are written verbatim
 * @param depth `pretty` only: the nesting depth the text is written at (every line after the first
 *   is indented by 4 × depth more spaces), so it can be spliced into an enclosing pretty text
 * @returns the text (no trailing newline)
 */
export function encodeJson(value: unknown, wire: WireEncoding, depth = 0): string {
  if (wire === 'compact') {
    const text = JSON.stringify(value);
    return text.includes('"\\udfff') ? text.replace(LITERAL_TEXT, '$1') : text;
  }
  if (wire === 'apiplatform') return phpPass(JSON.stringify(value));
  let text = JSON.stringify(value, null, 4);
  // Raw newlines only separate lines in JSON text (inside strings they are escaped).
  if (depth > 0) text = text.replaceAll('\n', `\n${' '.repeat(4 * depth)}`);
  return phpPass(text);
}

/** An object's text split around one of its arrays, whose elements are written separately. */
export interface JsonFrame {
  /** Text up to the array's first element. */
  head: string;
  /** Text between two elements. */
  separator: string;
  /** Text after the array's last element. */
  tail: string;
  /** The whole text with the array empty (`[]`). */
  empty: string;
  /** The depth the elements are written at (for {@link encodeJson}'s `depth`). */
  elementDepth: number;
}

/**
 * Splits the text of an object around the array at `obj[key]` (a top-level key), so that a page
 * can be written as head, elements (pre-encoded at {@link JsonFrame.elementDepth}), separators and
 * tail without re-encoding the elements.
 * @param obj the object, with any value at `key` (it is replaced)
 */
export function encodeFrame(obj: Record<string, unknown>, key: string, wire: WireEncoding): JsonFrame {
  const text = encodeJson({ ...obj, [key]: [SPLICE_MARK] }, wire);
  const at = text.indexOf(SPLICE_TEXT);
  const head = text.slice(0, at);
  const tail = text.slice(at + SPLICE_TEXT.length);
  const open = head.lastIndexOf('[') + 1;
  const close = tail.indexOf(']');
  return {
    head,
    tail,
    separator: `,${head.slice(open)}`,
    empty: head.slice(0, open) + tail.slice(close),
    elementDepth: wire === 'pretty' ? 2 : 0,
  };
}

/**
 * Parses a `--wire` word.
 * @returns the encoding, or undefined for any other word
 */
export function parseWireEncoding(word: string): WireEncoding | undefined {
  return (WIRE_ENCODINGS as readonly string[]).includes(word) ? (word as WireEncoding) : undefined;
}
