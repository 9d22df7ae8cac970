// The bytes API Platform's JsonEncoder writes (PHP `json_encode` with JSON_HEX_TAG | JSON_HEX_APOS |
// JSON_HEX_AMP | JSON_HEX_QUOT | JSON_UNESCAPED_UNICODE, and JSON_PRETTY_PRINT in debug mode):
// `/` as `\/`; `< > & ' "` in strings as `\u003C \u003E \u0026 \u0027 \u0022`; other controls as
// `\b \f \n \r \t` or `\u00xx`; U+2028 and U+2029 escaped; other non-ASCII raw; pretty printing with
// 4 spaces and `"key": value`. Plain JS for the tests and scripts/bench/page-parse.js alike.

/** A number written as exactly this literal (`9007199254740993`, `1.0`, `1.25E-2`, `-0`). */
export class Num {
  /** @param {string} literal */
  constructor(literal) {
    this.literal = literal;
  }

  /** @returns {string} the literal */
  toString() {
    return this.literal;
  }
}

/** @type {Record<string, string>} */
const SHORT = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\', '/': '\\/' };
/** @type {Record<string, string>} */
const HEX = { '<': '\\u003C', '>': '\\u003E', '&': '\\u0026', "'": '\\u0027', '"': '\\u0022', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * A string as json_encode writes it with API Platform's flags.
 * @param {string} s
 * @returns {string}
 */
export function encodeString(s) {
  const escaped = s.replace(
    // eslint-disable-next-line no-control-regex -- the characters json_encode escapes
    /[\u0000-\u001f\\/<>&'"\u2028\u2029]/g,
    (c) => SHORT[c] ?? HEX[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}

/**
 * @param {unknown} value
 * @param {string | undefined} indent the current indentation when pretty, else undefined
 * @returns {string}
 */
function encode(value, indent) {
  if (value instanceof Num) return value.literal;
  if (typeof value === 'string') return encodeString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '0';
  if (typeof value === 'boolean') return String(value);
  if (value === null || typeof value !== 'object') return 'null';
  const inner = indent === undefined ? undefined : indent + '    ';
  const open = inner === undefined ? '' : '\n' + inner;
  const close = indent === undefined ? '' : '\n' + indent;
  const sep = inner === undefined ? ',' : ',\n' + inner;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return '[' + open + value.map((v) => encode(v, inner)).join(sep) + close + ']';
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const colon = inner === undefined ? ':' : ': ';
  return '{' + open + entries.map(([k, v]) => encodeString(k) + colon + encode(v, inner)).join(sep) + close + '}';
}

/**
 * The JSON text API Platform would send for `value`.
 * @param {unknown} value plain JSON values, and {@link Num} for exact literals
 * @param {{ pretty?: boolean }} [options] pretty: debug mode's JSON_PRETTY_PRINT
 * @returns {string}
 */
export function encodeApiPlatform(value, options = {}) {
  return encode(value, options.pretty === true ? '' : undefined);
}
