import { describe, expect, it } from 'vitest';
import { addPaths, compileAccessor, createPathTree, findNewPaths, toCell, treeFromPaths, treePaths } from '../../../src/output/flatten.js';
import { flatten } from '../../helpers/flatten.js';
import { invoiceA, invoiceB } from '../../fixtures/invoices.js';

describe('toCell', () => {
  it.each([
    [null, ''],
    [undefined, ''],
    ['', ''],
    ['texto ñ 日本 ✓', 'texto ñ 日本 ✓'],
    [true, 'true'],
    [false, 'false'],
    [0, '0'],
    [-12.5, '-12.5'],
    [23200.0, '23200'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e21, '1e+21'],
    [[], '[]'],
    [[1, 'a', null], '[1,"a",null]'],
    [{ a: 1 }, '{"a":1}'],
    [{}, '{}'],
  ])('%j → %j', (value, expected) => {
    expect(toCell(value)).toBe(expected);
  });
});

describe('flatten', () => {
  it('flattens nested objects to dot paths, arrays to JSON text, null to empty, in first-seen order', () => {
    expect(flatten(invoiceB)).toEqual({
      '@id': invoiceB['@id'],
      '@type': 'Invoice',
      id: invoiceB.id,
      version: '4',
      reference: '',
      type: 'E',
      paymentTermsRaw: '',
      'issuer.rfc': 'DMO140312KT5',
      'issuer.name': 'DISTRIBUIDORA DEL MONTE SA DE CV',
      'issuer.taxRegime': '601',
      'issuer.blacklistStatus': '',
      isIssuer: 'true',
      'receiver.rfc': 'GOMA850614QM2',
      'receiver.name': 'ALEJANDRA GONZÁLEZ MÁRQUEZ',
      'receiver.blacklistStatus': 'presumed',
      total: '1160',
      creditedAmount: '',
      relations: JSON.stringify(invoiceB.relations),
      xml: 'true',
      pdf: 'true',
      tags: '[{"@type":"Tag","name":"Revisar","color":"#f59e0b"}]',
    });
    expect(Object.keys(flatten(invoiceB)).slice(6, 12)).toEqual([
      'paymentTermsRaw',
      'issuer.rfc',
      'issuer.name',
      'issuer.taxRegime',
      'issuer.blacklistStatus',
      'isIssuer',
    ]);
  });

  it('goes deeper than one level and keeps an empty object as a cell', () => {
    expect(flatten({ data: { changes: { paid: { old: 0, new: 5 } } }, meta: {}, ключ: 'значение' })).toEqual({
      'data.changes.paid.old': '0',
      'data.changes.paid.new': '5',
      meta: '{}',
      ключ: 'значение',
    });
  });
});

describe('column discovery', () => {
  it('takes keys from every item of a page, grouped per level in first-seen order', () => {
    const tree = createPathTree();
    addPaths(tree, { a: 1, b: { x: 1 } });
    addPaths(tree, { c: 2, b: { y: 2 }, a: 3 });
    expect(treePaths(tree, 'leaf').map((p) => p.join('.'))).toEqual(['a', 'b.x', 'b.y', 'c']);
  });

  it('keeps both a scalar column and sub-columns when items disagree (IRI string vs embedded object)', () => {
    const tree = createPathTree();
    addPaths(tree, { invoice: '/invoices/1' });
    addPaths(tree, { invoice: { id: '1', total: 5 } });
    expect(treePaths(tree, 'leaf').map((p) => p.join('.'))).toEqual(['invoice', 'invoice.id', 'invoice.total']);
  });

  it('reports each later new leaf path once, and not what fits an existing column', () => {
    const tree = createPathTree();
    addPaths(tree, { a: 1, b: { x: 1 }, n: null });
    expect(findNewPaths(tree, { a: 2, b: { x: 2 } })).toEqual([]);
    expect(findNewPaths(tree, { a: { obj: true }, b: null, n: 'now a string' })).toEqual([]);
    expect(findNewPaths(tree, { a: 1, b: { x: 1, y: 2, z: null }, c: [1], d: { e: { f: 'g' } } })).toEqual([['b', 'y'], ['c'], ['d', 'e', 'f']]);
    expect(findNewPaths(tree, { b: { y: 3 }, c: [2], d: { e: { f: 'h' } } })).toEqual([]);
    expect(findNewPaths(tree, { b: 'scalar where only sub-columns exist' })).toEqual([['b']]);
    expect(treePaths(tree, 'warned').map((p) => p.join('.'))).toEqual(['b', 'b.y', 'c', 'd.e.f']);
    expect(treePaths(tree, 'leaf').map((p) => p.join('.'))).toEqual(['a', 'b.x', 'n']);
  });

  it('rebuilds the same tree from columns and warned paths (resume)', () => {
    const tree = treeFromPaths([['a'], ['b', 'x']], [['c']]);
    expect(treePaths(tree, 'leaf')).toEqual([['a'], ['b', 'x']]);
    expect(findNewPaths(tree, { c: 1, d: 2 })).toEqual([['d']]);
  });
});

describe('compileAccessor', () => {
  it.each([
    [['id'], invoiceA.id],
    [['issuer', 'rfc'], 'DMO140312KT5'],
    [['issuer', 'rfc', 'length'], undefined],
    [['tags', '0', 'name'], undefined],
    [['reference', 'x'], undefined],
  ])('%j', (path, expected) => {
    expect(compileAccessor(path)(invoiceA)).toEqual(expected);
  });

  it('reads three-level paths and tolerates non-object items', () => {
    expect(compileAccessor(['relations', '0', 'id'])(invoiceB)).toBe('7a2c91d4');
    expect(compileAccessor(['a'])(null)).toBeUndefined();
    expect(compileAccessor(['a', 'b'])('str')).toBeUndefined();
  });
});

describe('compileAccessor follows own keys only', () => {
  const item = JSON.parse('{"__proto__":"own","x":{"__proto__":{"y":1}},"a":{"b":{"c":3}}}') as unknown;
  it.each([
    [['__proto__'], 'own'],
    [['constructor'], undefined],
    [['x', '__proto__'], { y: 1 }],
    [['x', 'constructor'], undefined],
    [['x', '__proto__', 'y'], 1],
    [['a', 'b', 'toString'], undefined],
    [['a', 'b', 'c'], 3],
  ])('%j', (path, expected) => {
    expect(compileAccessor(path)(item)).toEqual(expected);
    expect(compileAccessor(path)({})).toBeUndefined();
  });

  it('flatten gives a __proto__ column and its cell', () => {
    expect(JSON.stringify(flatten(item))).toBe('{"__proto__":"own","x.__proto__.y":"1","a.b.c":"3"}');
    expect(Object.keys(flatten(item))).toEqual(['__proto__', 'x.__proto__.y', 'a.b.c']);
  });
});
