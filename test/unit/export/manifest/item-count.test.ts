import { describe, expect, it } from 'vitest';
import type { OutputFormat } from '../../../../src/format-names.js';
import { formatDefinition } from '../../../../src/output/writer.js';

const createItemCounter = (format: OutputFormat) => formatDefinition(format).countItems?.();

/** Counts `text` fed in every split into two chunks (a chunk may end anywhere, even inside a character). */
function countsAtEverySplit(format: OutputFormat, text: string): Set<number> {
  const bytes = Buffer.from(text, 'utf8');
  const counts = new Set<number>();
  for (let cut = 0; cut <= bytes.length; cut++) {
    const counter = createItemCounter(format)!;
    counter.update(bytes.subarray(0, cut));
    counter.update(bytes.subarray(cut));
    counts.add(counter.count());
  }
  return counts;
}

describe('item counters', () => {
  it('ndjson: lines, a cut last line included, empty file zero', () => {
    expect(countsAtEverySplit('ndjson', '{"a":"x\\ny"}\n{"ñ":"日本"}\n')).toEqual(new Set([2]));
    expect(countsAtEverySplit('ndjson', '{"a":1}\n{"b":')).toEqual(new Set([2]));
    expect(countsAtEverySplit('ndjson', '')).toEqual(new Set([0]));
  });

  it('json: the top-level array length, whatever the strings, escapes and nesting hold', () => {
    const items = ['{"s":"a,]\\"[{","n":[1,[2,3]],"o":{"x":{}}}', '"x"', '12', 'null', '[]', '{"ñ":"日本\\\\"}'];
    expect(countsAtEverySplit('json', `[\n${items.join(',\n')}\n]\n`)).toEqual(new Set([items.length]));
    expect(countsAtEverySplit('json', '[]\n')).toEqual(new Set([0]));
    expect(countsAtEverySplit('json', '[\n{"a":1},\n{"b":')).toEqual(new Set([2]));
  });

  it('csv: records after the header, quoted line breaks and doubled quotes inside a field', () => {
    const csv = 'id,note\r\n1,"two\r\nlines"\r\n2,"say ""hi""\nthere, ok"\r\n3,plain\r\n';
    expect(countsAtEverySplit('csv', csv)).toEqual(new Set([3]));
    expect(countsAtEverySplit('csv', 'id,note\r\n')).toEqual(new Set([0]));
    expect(countsAtEverySplit('csv', '')).toEqual(new Set([0]));
    expect(countsAtEverySplit('csv', 'id\r\n1\r\n2')).toEqual(new Set([2]));
  });

  it('table output is not counted', () => {
    expect(createItemCounter('table')).toBeUndefined();
  });
});
