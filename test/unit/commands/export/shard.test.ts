/** `--shard I/N`: parsing (table-driven), and the split's properties over random lists (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SHARDS, parseShard, shardOfTaxpayer, takeShard } from '../../../../src/commands/export/shard.js';
import { UsageError } from '../../../../src/errors.js';

describe('parseShard', () => {
  it.each([
    ['0/4', {}, { index: 0, count: 4 }],
    ['3/4', {}, { index: 3, count: 4 }],
    [' 1 / 2 ', {}, { index: 1, count: 2 }],
    ['0/1', {}, { index: 0, count: 1 }],
    ['auto/4', { JOB_COMPLETION_INDEX: '2' }, { index: 2, count: 4 }],
    ['auto/4', { JOB_COMPLETION_INDEX: '0' }, { index: 0, count: 4 }],
  ])('%s (env %j) → %j', (text, env, expected) => {
    expect(parseShard(text, env)).toEqual(expected);
  });

  it.each([
    ['4/4', {}, /I must be a whole number from 0 to 3/],
    ['-1/4', {}, /I must be/],
    ['1.5/4', {}, /I must be/],
    ['1/0', {}, /N must be a whole number from 1/],
    [`0/${MAX_SHARDS + 1}`, {}, /N must be/],
    ['0/abc', {}, /N must be/],
    ['1', {}, /takes I\/N/],
    ['', {}, /takes I\/N/],
    ['a/b/c', {}, /N must be|takes I\/N/],
    ['auto/4', {}, /JOB_COMPLETION_INDEX is not set/],
    ['auto/4', { JOB_COMPLETION_INDEX: '' }, /JOB_COMPLETION_INDEX is not set/],
    ['auto/4', { JOB_COMPLETION_INDEX: '4' }, /not below N \(4\)/],
    ['auto/4', { JOB_COMPLETION_INDEX: 'x' }, /not a whole number/],
  ])('%s (env %j) is a usage error: %s', (text, env, message) => {
    let thrown: unknown;
    try {
      parseShard(text, env);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).exitCode).toBe(2);
    expect((thrown as Error).message).toMatch(message);
  });
});

const ids = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 14 }), { maxLength: 60 });
const counts = fc.integer({ min: 1, max: 12 });

describe('takeShard', () => {
  it('shards are disjoint and together the whole list', () => {
    fc.assert(
      fc.property(ids, counts, (list, count) => {
        const shards = Array.from({ length: count }, (_v, index) => takeShard(list, { index, count }));
        const all = shards.flat();
        expect(all.length).toBe(list.length);
        expect(new Set(all)).toEqual(new Set(list));
      }),
    );
  });

  it("a taxpayer's shard does not depend on the list's order or on the other taxpayers listed", () => {
    fc.assert(
      fc.property(ids, counts, fc.nat(), (list, count, seed) => {
        const shuffled = [...list].sort((a, b) => ((a.length * 31 + seed) % 7) - ((b.length * 31 + seed) % 7) || (a < b ? 1 : -1));
        const half = list.filter((_t, i) => (i + seed) % 2 === 0);
        for (let index = 0; index < count; index++) {
          const shard = { index, count };
          expect(new Set(takeShard(shuffled, shard))).toEqual(new Set(takeShard(list, shard)));
          expect(takeShard(half, shard)).toEqual(takeShard(list, shard).filter((t) => half.includes(t)));
        }
      }),
    );
  });

  it('keeps the list order within a shard, and each id goes where shardOfTaxpayer says', () => {
    fc.assert(
      fc.property(ids, counts, (list, count) => {
        for (let index = 0; index < count; index++) {
          const taken = takeShard(list, { index, count });
          expect(taken).toEqual(list.filter((t) => taken.includes(t)));
          for (const t of taken) expect(shardOfTaxpayer(t, count)).toBe(index);
        }
      }),
    );
  });

  it('spreads a list of real-looking ids over every shard', () => {
    const list = Array.from({ length: 400 }, (_v, i) => `TAX${String(i).padStart(6, '0')}AB1`);
    const sizes = Array.from({ length: 4 }, (_v, index) => takeShard(list, { index, count: 4 }).length);
    for (const size of sizes) expect(size).toBeGreaterThan(60);
  });
});
