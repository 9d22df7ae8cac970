import { describe, expect, it } from 'vitest';
import { missingFieldWarnings } from '../../../src/output/writer.js';

const items = [
  { id: 'a', total: 1, issuer: { rfc: 'X' }, taxes: [{ amount: 2 }], reference: null },
  { id: 'b', total: 2, issuer: 'IRI', extra: { Note: 'n' } },
];

describe('missingFieldWarnings', () => {
  it.each([
    ['id', []],
    ['reference', []],
    ['extra.Note', []],
    ['taxes.0.amount', []],
    ['Total', ["no item of the first page has 'Total'; did you mean 'total'?"]],
    ['EXTRA.NOTE', ["no item of the first page has 'EXTRA.NOTE'; did you mean 'extra.Note'?"]],
    ['issuer.nope', ["no item of the first page has 'issuer.nope'; check the name"]],
    ['id.more', ["no item of the first page has 'id.more'; check the name"]],
    ['constructor', ["no item of the first page has 'constructor'; check the name"]],
  ])('%s', (field, expected) => {
    const warnings = missingFieldWarnings([field], items);
    expect(warnings).toHaveLength(expected.length);
    warnings.forEach((w, i) => expect(w.startsWith(`--fields: ${expected[i]!}`), w).toBe(true));
  });

  it('keeps the order of --fields and names each once', () => {
    expect(missingFieldWarnings(['zz', 'id', 'aa'], items).map((w) => /'(\w+)'/.exec(w)![1])).toEqual(['zz', 'aa']);
  });
});
