// JSON values that keep number literals: JSON.parse turns 9007199254740993 into …992, and Node 20
// has neither `JSON.rawJSON` nor the reviver's `context.source`.

/** A JSON number that a JavaScript number would change (`1.0`, `1.25E-2`, 2^53 + 1), kept as its literal; a scalar to every walker of values. */
export class JsonNumber {
  readonly #literal: string;

  /** @param literal a valid JSON number literal (not checked) */
  constructor(literal: string) {
    this.#literal = literal;
  }

  toString(): string {
    return this.#literal;
  }

  /** Lossy: for comparisons only, never for output. */
  valueOf(): number {
    return Number(this.#literal);
  }

  /** The literal as a string, as decimal libraries do (a number would lose it); {@link writeJson} writes the number. */
  toJSON(): string {
    return this.#literal;
  }
}

/** `JSON.stringify` as ECMA-262 defines it: undefined for `undefined`, a function or a symbol, which lib.es5.d.ts hides. */
const stringifyJson = JSON.stringify as (value: unknown) => string | undefined;

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

/** JSON.stringify's text, but a {@link JsonNumber} is its literal and what cannot be written is `null` (still valid JSON). */
export function writeJson(value: unknown): string {
  if (!holdsLiteral(value)) return stringifyJson(value) ?? 'null';
  const out: string[] = [];
  writeInto(value, out);
  return out.join('');
}
