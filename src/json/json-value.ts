/**
 * JSON values that keep every number exactly as written (README, "Output": an exporter must not
 * alter data). `JSON.parse` turns `9007199254740993` into 9007199254740992, `1.0` into 1 and
 * `1.25E-2` into 0.0125; Node 20 has neither `JSON.rawJSON` nor the reviver's `context.source` to
 * avoid it. So a number whose literal JavaScript would print otherwise is read as a
 * {@link JsonNumber} holding the literal, by {@link readJsonValue}; every other number stays a
 * plain `number` (its literal is what `String(n)` prints, so nothing is lost). {@link writeJson}
 * writes such values back with the literals.
 */

/**
 * A JSON number (RFC 8259 §6) kept as its literal, for the numbers a JavaScript number would
 * change: integers beyond 2^53, zero fractions (`1.0`), exponents (`1.25E-2`), `-0`, more than 17
 * significant digits. The literal is private (`#literal`), so `--fields total.x` finds no own
 * property on it and `Object.keys` gives nothing: it is a scalar to every walker of values.
 */
export class JsonNumber {
  readonly #literal: string;

  /** @param literal a valid JSON number literal, e.g. `9007199254740993` (not checked) */
  constructor(literal: string) {
    this.#literal = literal;
  }

  /** The literal as the server wrote it (a CSV or table cell shows it). */
  toString(): string {
    return this.#literal;
  }

  /** The nearest JavaScript number (lossy: for comparisons only, never for output). */
  valueOf(): number {
    return Number(this.#literal);
  }

  /**
   * What `JSON.stringify` writes: the literal as a string (as decimal libraries do; a number would
   * lose it, and the private literal would otherwise give `{}`). {@link writeJson} writes the number.
   */
  toJSON(): string {
    return this.#literal;
  }
}

/** A number whose literal `String(n)` gives back is a plain number; any other a {@link JsonNumber}. */
export function numberOf(literal: string): number | JsonNumber {
  const n = Number(literal);
  return String(n) === literal ? n : new JsonNumber(literal);
}

const QUOTE = 0x22;

/** Reads the JSON text `text` (compact: no whitespace outside strings) from `i`; the value and where it ends. */
class ValueReader {
  i = 0;
  constructor(readonly text: string) {}

  value(): unknown {
    const text = this.text;
    const c = text.charCodeAt(this.i);
    if (c === QUOTE) return this.string();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x74) return this.word('true', true);
    if (c === 0x66) return this.word('false', false);
    if (c === 0x6e) return this.word('null', null);
    const start = this.i;
    let j = start + 1;
    for (
      let d = text.charCodeAt(j);
      (d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d;
      d = text.charCodeAt(++j)
    );
    this.i = j;
    return numberOf(text.slice(start, j));
  }

  word(word: string, value: boolean | null): boolean | null {
    this.i += word.length;
    return value;
  }

  /** Position of the first backslash at or after the last place looked, or the text's length. */
  nextBackslash = -1;

  string(): string {
    const text = this.text;
    const start = this.i;
    let j = start + 1;
    for (;;) {
      const q = text.indexOf('"', j);
      if (this.nextBackslash < j) {
        const b = text.indexOf('\\', j);
        this.nextBackslash = b === -1 ? text.length : b;
      }
      if (this.nextBackslash > q) {
        this.i = q + 1;
        // An escaped string is decoded by JSON.parse itself: exact, and V8's fastest way to do it.
        return j === start + 1 ? text.slice(start + 1, q) : (JSON.parse(text.slice(start, q + 1)) as string);
      }
      j = this.nextBackslash + 2; // past the escaped character, which may be a quote
    }
  }

  array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      if (this.text.charCodeAt(this.i++) === 0x5d) return out;
    }
  }

  object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    if (this.text.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return out;
    }
    for (;;) {
      const key = this.string();
      this.i++; // the colon
      const value = this.value();
      // As JSON.parse does: `__proto__` is an own key like any other; a repeated key keeps its last value.
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      if (this.text.charCodeAt(this.i++) === 0x7d) return out;
    }
  }
}

/**
 * Parses a valid compact JSON text (RFC 8259, no whitespace outside strings, as the page scanner
 * gives a member) into the values `JSON.parse` would give, except that a number JavaScript would
 * print otherwise is a {@link JsonNumber}. The text must be valid (the scanner checked it): this
 * reader does not judge it again.
 */
export function readJsonValue(text: string): unknown {
  return new ValueReader(text).value();
}

/**
 * `JSON.stringify` as ECMA-262 defines it (SerializeJSONProperty): undefined for `undefined`, a
 * function or a symbol, which lib.es5.d.ts's `string` result does not say.
 */
const stringifyJson = JSON.stringify as (value: unknown) => string | undefined;

/** Whether `value` holds a {@link JsonNumber} anywhere (then JSON.stringify alone cannot write it). */
function holdsLiteral(value: unknown): boolean {
  if (value instanceof JsonNumber) return true;
  if (typeof value !== 'object' || value === null) return false;
  for (const v of Object.values(value)) if (holdsLiteral(v)) return true;
  return false;
}

function writeInto(value: unknown, out: string[]): void {
  if (value instanceof JsonNumber) {
    out.push(value.toString());
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v: unknown, k) => {
      if (k > 0) out.push(',');
      // As JSON.stringify: an array slot that cannot be written is null.
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') out.push('null');
      else writeInto(v, out);
    });
    out.push(']');
  } else if (typeof value === 'object' && value !== null) {
    out.push('{');
    let first = true;
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      out.push(first ? '' : ',', stringifyJson(key) as string, ':');
      first = false;
      writeInto(v, out);
    }
    out.push('}');
  } else {
    out.push(stringifyJson(value) ?? 'null');
  }
}

/**
 * The compact JSON text of a value: JSON.stringify's, except that a {@link JsonNumber} is written
 * as its literal. A value that cannot be written (undefined, a function) gives `null`, so a line or
 * a cell stays valid JSON.
 */
export function writeJson(value: unknown): string {
  if (!holdsLiteral(value)) return stringifyJson(value) ?? 'null';
  const out: string[] = [];
  writeInto(value, out);
  return out.join('');
}
