/**
 * The page reader (pagination/page-scan.ts) on any valid JSON (RFC 8259): generated pages with
 * random escapes (`\/`, `\uXXXX` in either case, surrogate pairs, API Platform's HEX_* forms),
 * whitespace anywhere JSON allows it, number forms JavaScript would print otherwise (64-bit
 * integers, exponents, `-0`, zero fractions), repeated and integer-like keys, the envelope's keys
 * in any order, prefixed or not. Checked against the source, not against our own code: each
 * member's text is the source with only the whitespace outside strings removed, and each value
 * agrees with the source tree (strings decoded, numbers with their literal).
 */
import { describe, expect, it } from 'vitest';
import { UnreadableBodyError } from '../../../src/http/client.js';
import fc from 'fast-check';
import { scanPageText } from '../../../src/pagination/page-scan.js';
import { parsePageText } from '../../../src/pagination/hydra.js';
import { JsonNumber } from '../../../src/json/json-value.js';
import { textOfBytes } from '../../../src/json/members.js';
import { encodeApiPlatform, encodeString, Num } from '../../helpers/api-platform-json.js';
import { dummiesPage7 } from '../../fixtures/api-platform-collection.js';

/** A JSON value as written: every string and number keeps the text it is written with. */
type Tree =
  | { kind: 'num'; lit: string }
  | { kind: 'str'; value: string; src: string }
  | { kind: 'word'; src: 'true' | 'false' | 'null' }
  | { kind: 'arr'; items: Tree[] }
  | { kind: 'obj'; entries: [key: Tree & { kind: 'str' }, value: Tree][] };

/** `s` with every UTF-16 unit written `\uXXXX`, hex digits in upper or lower case. */
const allEscaped = (s: string, upper: boolean): string =>
  '"' +
  s
    .split('')
    .map((u) => '\\u' + u.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']())
    .join('') +
  '"';

const str: fc.Arbitrary<Tree & { kind: 'str' }> = fc
  .tuple(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('/invoices/1', 'a<b>&\'c"', 'Peña \u2028', 'member', '1', '__proto__', '😀'),
    ),
    fc.constantFrom('stringify', 'apiPlatform', 'upper', 'lower'),
  )
  .map(([value, form]) => ({
    kind: 'str',
    value,
    src: form === 'stringify' ? JSON.stringify(value) : form === 'apiPlatform' ? encodeString(value) : allEscaped(value, form === 'upper'),
  }));

const numberLiteral = fc.oneof(
  fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? '-0' : String(n))),
  fc.integer().map((n) => `${n}.0`),
  fc
    .tuple(fc.integer({ min: -9, max: 9 }), fc.nat(999), fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.nat(40))
    .map(([a, b, e, sign, x]) => `${a}.${b}${e}${sign}${x}`),
  fc.constantFrom('-0', '0.0', '-0.0E0', '9007199254740993', '1.25E-2', '0.0000001', '1E400', '123456789012345678901234567890'),
);

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberLiteral.map((lit): Tree => ({ kind: 'num', lit })),
    str,
    fc.constantFrom('true', 'false', 'null').map((src): Tree => ({ kind: 'word', src })),
    fc.array(tie('tree'), { maxLength: 4 }).map((items): Tree => ({ kind: 'arr', items })),
    fc.array(fc.tuple(str, tie('tree')), { maxLength: 5 }).map((entries): Tree => ({ kind: 'obj', entries })),
  ),
}));

/** Whitespace from a seeded generator (`''` half the time), deterministic for a seed. */
function spacer(seed: number | undefined): () => string {
  if (seed === undefined) return () => '';
  let x = seed | 1;
  const pieces = ['', '', ' ', '\n    ', '\t', '\r\n', '  '];
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return pieces[(x >>> 0) % pieces.length] as string;
  };
}

/** The source text of a tree, `ws()` wherever JSON allows whitespace inside it. */
function write(t: Tree, ws: () => string): string {
  switch (t.kind) {
    case 'num':
      return t.lit;
    case 'str':
    case 'word':
      return t.src;
    case 'arr':
      return t.items.length === 0 ? '[' + ws() + ']' : '[' + ws() + t.items.map((i) => write(i, ws)).join(ws() + ',' + ws()) + ws() + ']';
    case 'obj':
      return t.entries.length === 0
        ? '{' + ws() + '}'
        : '{' + ws() + t.entries.map(([k, v]) => k.src + ws() + ':' + ws() + write(v, ws)).join(ws() + ',' + ws()) + ws() + '}';
  }
}

/** Checks a value read by the reader against the tree it was written from (JSON.parse's semantics, literals kept). */
function expectValue(value: unknown, t: Tree): void {
  switch (t.kind) {
    case 'num':
      // The literal, either as a JsonNumber or as a number JavaScript prints the same.
      expect(value instanceof JsonNumber || typeof value === 'number').toBe(true);
      expect(String(value)).toBe(t.lit);
      return;
    case 'str':
      expect(value).toBe(t.value);
      return;
    case 'word':
      expect(value).toBe(JSON.parse(t.src));
      return;
    case 'arr':
      expect(Array.isArray(value)).toBe(true);
      expect(value).toHaveLength(t.items.length);
      t.items.forEach((item, k) => expectValue((value as unknown[])[k], item));
      return;
    case 'obj': {
      // A repeated key keeps its last value (RFC 8259 §4 leaves it open; JSON.parse does so).
      const last = new Map(t.entries.map(([k, v]) => [k.value, v]));
      expect(Object.keys(value as object).sort()).toEqual([...last.keys()].sort());
      for (const [key, v] of last) expectValue((value as Record<string, unknown>)[key], v);
    }
  }
}

const page = fc.record({
  members: fc.array(tree, { maxLength: 6 }),
  prefixed: fc.boolean(),
  viewFirst: fc.boolean(),
  seed: fc.option(fc.integer(), { nil: undefined }),
  bytes: fc.boolean(),
});

describe('scanPageText: any valid JSON', () => {
  it('gives each member as its source without outside whitespace, and values with every literal', () => {
    fc.assert(
      fc.property(page, ({ members, prefixed, viewFirst, seed, bytes }) => {
        const ws = spacer(seed);
        const h = (term: string): string => JSON.stringify(prefixed ? `hydra:${term}` : term);
        const member = `${h('member')}${ws()}:${ws()}[${ws()}${members.map((m) => write(m, ws)).join(ws() + ',' + ws())}${ws()}]`;
        const view = `${h('view')}:{"@id":"\\/x?page=1",${h('next')}:${ws()}"\\/x?page=2"}`;
        const text = `${ws()}{${ws()}"@id":"\\/x",${viewFirst ? `${view},${member}` : `${member},${view}`},${h('totalItems')}:${members.length}${ws()}}${ws()}`;
        const read = scanPageText(bytes ? Buffer.from(text, 'utf8').toString('latin1') : text, bytes);
        expect(read).toBeDefined();
        expect(read!.view).toEqual({ id: '/x?page=1', next: '/x?page=2' });
        expect(read!.totalItems).toBe(members.length);
        expect(read!.members.texts().map(textOfBytes)).toEqual(members.map((m) => write(m, () => '')));
        members.forEach((m, k) => expectValue(read!.members.value(k), m));
        const values = read!.members.values();
        expect(values).toHaveLength(members.length);
        members.forEach((m, k) => expectValue(values[k], m));
        members.forEach((_, k) => expect(read!.members.value(k)).toBe(values[k]));
      }),
      { numRuns: 400 },
    );
  });

  it('takes the first n members, texts and values alike', () => {
    const read = scanPageText('{"member":[{"a":1.0},2,{"b":"\\/"}]}')!;
    const two = read.members.take(2);
    expect(two).toHaveLength(2);
    expect(two.texts()).toEqual(['{"a":1.0}', '2']);
    expect(two.values().map((v) => JSON.stringify(v))).toEqual(['{"a":"1.0"}', '2']);
    expect(String((two.values()[0] as { a: unknown }).a)).toBe('1.0');
    expect(read.members.take(9)).toHaveLength(3);
  });

  it.each([
    ['a 64-bit integer', '9007199254740993'],
    ['a zero fraction', '1.0'],
    ['an exponent', '1.25E-2'],
    ['negative zero', '-0'],
    ['beyond a double', '1E400'],
  ])('keeps %s (%s) in the text and the value', (_name, lit) => {
    const read = scanPageText(`{"hydra:member":[{"n":${lit},"s":"a\\/b\\u0022"}]}`)!;
    expect(read.members.texts()).toEqual([`{"n":${lit},"s":"a\\/b\\u0022"}`]);
    const value = read.members.values()[0] as { n: unknown; s: string };
    expect(value.n).toBeInstanceOf(JsonNumber);
    expect(String(value.n)).toBe(lit);
    expect(value.s).toBe('a/b"');
  });

  it('keeps repeated and integer-like keys in the text as received; values are JSON.parse', () => {
    const member = '{"b":1,"1":2,"b":3,"__proto__":{"x":1}}';
    const read = scanPageText(`{"member":[${member}]}`)!;
    expect(read.members.texts()).toEqual([member]);
    const [value] = read.members.values() as [Record<string, unknown>];
    expect(Object.keys(value)).toEqual(['1', 'b', '__proto__']);
    expect(value.b).toBe(3);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('keeps a literal under __proto__ as an own property, and a string shaped like the inner tag as a string', () => {
    const member = '{"__proto__":9007199254740993,"s":"\\u0001abc:0","n":[1.0,{"x":-0}],"k":2}';
    const [value] = scanPageText(`{"member":[${member}]}`)!.members.values() as [Record<string, unknown>];
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 's', 'n', 'k']);
    expect(String(Object.getOwnPropertyDescriptor(value, '__proto__')?.value)).toBe('9007199254740993');
    expect(value.s).toBe('\u0001abc:0');
    const n = value.n as [JsonNumber, { x: JsonNumber }];
    expect([n[0] instanceof JsonNumber, String(n[0]), String(n[1].x)]).toEqual([true, '1.0', '-0']);
    expect(value.k).toBe(2);
  });

  it('reads the envelope as parsePage does: escaped keys, both spellings, a repeated member', () => {
    expect(scanPageText('{"hydra:\\u006dember":[1]}')!.members.texts()).toEqual(['1']);
    expect(scanPageText('{"member":[1],"hydra:member":[2,3]}')!.members.texts()).toEqual(['2', '3']);
    expect(scanPageText('{"hydra:member":[1],"hydra:member":[4,5]}')!.members.texts()).toEqual(['4', '5']);
    expect(scanPageText('{"hydra:totalItems":0}')!.members).toHaveLength(0);
    expect(scanPageText('{"member":[],"view":{"next":"\\/y"}}')!.view).toEqual({ next: '/y' });
    expect(() => scanPageText('{"member":{"a":1}}')).toThrow(UnreadableBodyError);
    expect(() => scanPageText('{"member":[1],"member":5}')).toThrow(/member is number, not an array/);
  });

  it.each([
    ['an array at the top', '[1,2]'],
    ['a leading zero', '{"member":[{"a":01}]}'],
    ['a missing comma', '{"member":[1 2]}'],
    ['an unfinished string', '{"member":[{"a":"x}]}'],
    ['an unknown escape', '{"member":["a\\x"]}'],
    ['a short \\u escape', '{"member":["\\u12"]}'],
    ['a raw line break in a string', '{"member":["a\nb"]}'],
    ['a raw tab in a key', '{"member":[{"a\tb":1}]}'],
    ['a raw control character', '{"member":["a\u0001b"]}'],
    ['a number without digits after the point', '{"member":[1.]}'],
    ['an exponent without digits', '{"member":[1e]}'],
    ['invalid JSON in the envelope', '{"member":[1],"view":{"next":}}'],
    ['text after the page', '{"member":[1]} x'],
    ['JSON nested too deep', `{"member":[${'['.repeat(80)}${']'.repeat(80)}]}`],
  ])('refuses %s (the caller asks JSON.parse for the verdict)', (_name, text) => {
    expect(scanPageText(text)).toBeUndefined();
  });

  it('accepts exactly what JSON.parse accepts', () => {
    const pieces = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"b\\"',
      '"\\u00e9"',
      '"\\/"',
      '1',
      '-',
      '0',
      '.5',
      'e1',
      'E+',
      'true',
      'nul',
      ' ',
      '\n',
      '\\',
      '"',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const text = `{"member":[${parts.join('')}]}`;
        let valid = true;
        try {
          parsePageText(text);
        } catch {
          valid = false;
        }
        expect(scanPageText(text) !== undefined).toBe(valid);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('scanPageText on API Platform pages', () => {
  it.each([
    ['compact, prefixed', false, true],
    ['compact, unprefixed', false, false],
    ['pretty-printed (debug mode), prefixed', true, true],
    ['pretty-printed (debug mode), unprefixed', true, false],
  ])('reads the documented collection page, %s', (_name, pretty, prefixed) => {
    const body = dummiesPage7(prefixed);
    const text = encodeApiPlatform(body, { pretty });
    const read = scanPageText(Buffer.from(text, 'utf8').toString('latin1'), true)!;
    expect(read.totalItems).toBe(30);
    expect(read.view).toEqual({
      id: '/dummies?page=7',
      first: '/dummies?page=1',
      last: '/dummies?page=10',
      previous: '/dummies?page=6',
      next: '/dummies?page=8',
    });
    const members = body[prefixed ? 'hydra:member' : 'member'] as unknown[];
    // The texts are API Platform's compact bytes (`\/` kept), the values those of the document.
    expect(read.members.texts()).toEqual(members.map((m) => encodeApiPlatform(m)));
    expect(read.members.texts()[0]).toContain('"@id":"\\/dummies\\/19"');
    expect(read.members.values()).toEqual(members);
  });

  it('reads a decoded page (a BOM or invalid UTF-8 makes the client decode it) and gives byte texts', () => {
    const read = scanPageText('{"member":[{"n":"Peña \uFFFD","x":1.0}]}', false)!;
    expect(read.members.texts()).toEqual([Buffer.from('{"n":"Peña \uFFFD","x":1.0}', 'utf8').toString('latin1')]);
    expect(String((read.members.values()[0] as { x: unknown }).x)).toBe('1.0');
  });

  it('writes numbers given as Num literals in the encoder as they are', () => {
    expect(encodeApiPlatform({ a: new Num('1.0'), b: [] }, { pretty: true })).toBe('{\n    "a": 1.0,\n    "b": []\n}');
  });
});
