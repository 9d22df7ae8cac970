import { describe, expect, it } from 'vitest';
import { compileProjection, parseFields, splitPath } from '../../../src/output/fields.js';
import { compileAccessor } from '../../../src/output/flatten.js';

const project = (item: unknown, fields: readonly string[]): Record<string, unknown> => compileProjection(fields)(item);
import { UsageError } from '../../../src/errors.js';
import { invoiceA, invoiceB } from '../../fixtures/invoices.js';

/** A field's value as csv, table and the `--fields` check read it. */
const getPath = (item: unknown, path: string | readonly string[]): unknown =>
  compileAccessor(typeof path === 'string' ? splitPath(path) : path)(item);

describe('parseFields', () => {
  it.each([
    ['id', ['id']],
    ['id,total', ['id', 'total']],
    [' id , issuer.rfc ,total ', ['id', 'issuer.rfc', 'total']],
    ['@id,@type', ['@id', '@type']],
    ['taxes.0.amount', ['taxes.0.amount']],
    ['receiver.name,issuer.name', ['receiver.name', 'issuer.name']],
  ])('parses %j', (spec, expected) => {
    expect(parseFields(spec)).toEqual(expected);
  });

  it.each([[''], [' '], ['a,,b'], ['a,'], [',a'], ['a, ,b'], ['a.'], ['.a'], ['a..b'], ['a,a'], ['a, a']])('refuses %j with a UsageError', (spec) => {
    expect(() => parseFields(spec)).toThrow(UsageError);
  });

  it('names the problem in the message', () => {
    expect(() => parseFields('id,,total')).toThrow(/--fields: empty field name/);
    expect(() => parseFields('id,id')).toThrow(/'id' is listed twice/);
  });
});

describe('getPath', () => {
  it.each([
    ['id', invoiceA.id],
    ['issuer.rfc', 'DMO140312KT5'],
    [['issuer', 'taxRegime'], 601],
    ['issuer.blacklistStatus', null],
    ['receiver.missing', undefined],
    ['reference.deeper', undefined],
    ['nothing.at.all', undefined],
    ['relations.0.type', undefined],
  ] as const)('reads %j from invoice A', (path, expected) => {
    expect(getPath(invoiceA, path)).toEqual(expected);
  });

  it('indexes arrays with numeric segments and never steps into scalars', () => {
    expect(getPath(invoiceB, 'relations.0.id')).toBe('7a2c91d4');
    expect(getPath(invoiceB, 'tags.0.name')).toBe('Revisar');
    expect(getPath(invoiceB, 'reference.x')).toBeUndefined();
    expect(getPath('a string', 'length')).toBeUndefined();
    expect(getPath(null, 'a')).toBeUndefined();
  });
});

describe('project', () => {
  it('keeps only the named paths, nested, in the order of the fields', () => {
    const out = project(invoiceB, ['receiver.name', 'id', 'issuer.rfc', 'receiver.rfc']);
    expect(out).toEqual({
      receiver: { name: 'ALEJANDRA GONZÁLEZ MÁRQUEZ', rfc: 'GOMA850614QM2' },
      id: invoiceB.id,
      issuer: { rfc: 'DMO140312KT5' },
    });
    expect(JSON.stringify(out)).toBe(
      '{"receiver":{"name":"ALEJANDRA GONZÁLEZ MÁRQUEZ","rfc":"GOMA850614QM2"},"id":"d41b7f20-6c3e-4a9b-b1f5-8e27c9a04d16","issuer":{"rfc":"DMO140312KT5"}}',
    );
  });

  it('writes missing values as null so every item has the same shape', () => {
    expect(project({ id: 1 }, ['id', 'nope', 'a.b'])).toEqual({ id: 1, nope: null, a: { b: null } });
    expect(project({ a: 'iri-string' }, ['a.b'])).toEqual({ a: { b: null } });
  });

  it('keeps arrays and objects whole when a field names them, and a parent path wins over its children', () => {
    expect(project(invoiceB, ['tags'])).toEqual({ tags: invoiceB.tags });
    expect(project(invoiceA, ['issuer', 'issuer.rfc'])).toEqual({ issuer: invoiceA.issuer });
    expect(project(invoiceA, ['issuer.rfc', 'issuer'])).toEqual({ issuer: invoiceA.issuer });
  });

  it('compiles once and projects many items the same way', () => {
    const p = compileProjection(['total', 'id']);
    expect([invoiceA, invoiceB].map(p)).toEqual([
      { total: 23200, id: invoiceA.id },
      { total: 1160, id: invoiceB.id },
    ]);
  });
});

describe('field names are plain keys (no prototype lookups)', () => {
  const withProto = JSON.parse('{"id":1,"__proto__":{"b":"own"},"a":{"__proto__":{"b":2}}}') as Record<string, unknown>;

  it.each([
    ['constructor', undefined],
    ['toString', undefined],
    ['hasOwnProperty', undefined],
    ['a.constructor.name', undefined],
    ['__proto__', { b: 'own' }],
    ['__proto__.b', 'own'],
    ['a.__proto__.b', 2],
  ])('getPath %s', (path, expected) => {
    expect(getPath(withProto, path)).toEqual(expected);
  });

  it('getPath reads no inherited __proto__ when the data has none', () => {
    expect(getPath({ id: 1 }, '__proto__')).toBeUndefined();
    expect(getPath({ a: { b: 1 } }, 'a.__proto__.b')).toBeUndefined();
  });

  it('projects __proto__ as an own key, and constructor as null', () => {
    const out = project(withProto, ['id', '__proto__', 'constructor', 'a.__proto__.b']);
    expect(JSON.stringify(out)).toBe('{"id":1,"__proto__":{"b":"own"},"constructor":null,"a":{"__proto__":{"b":2}}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });

  it('a projection of an item without those keys writes null, never an inherited value', () => {
    expect(JSON.stringify(project({ id: 1 }, ['__proto__', 'constructor', 'a.__proto__.b']))).toBe(
      '{"__proto__":null,"constructor":null,"a":{"__proto__":{"b":null}}}',
    );
  });
});
