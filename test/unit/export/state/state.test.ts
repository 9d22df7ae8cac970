import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../../../src/endpoints.js';
import { UsageError } from '../../../../src/errors.js';
import { conflictsWithSince, formatFilterTime, parseSince, sinceParameter, stateKey } from '../../../../src/export/state/state.js';

const endpoint = (key: string) => ENDPOINTS.find((e) => e.key === key)!;

describe('parseSince', () => {
  it.each([
    ['2024-05-01', '2024-05-01T00:00:00+00:00'],
    ['2024-05-01T06:30', '2024-05-01T06:30:00+00:00'],
    ['2024-05-01T06:30:15Z', '2024-05-01T06:30:15+00:00'],
    ['2024-05-01T06:30:15.999Z', '2024-05-01T06:30:15+00:00'],
    ['2024-05-01T06:30:00+02:00', '2024-05-01T04:30:00+00:00'],
    ['2024-05-01T00:30:00-0600', '2024-05-01T06:30:00+00:00'],
  ])('%s → %s', (input, sent) => {
    expect(formatFilterTime(parseSince(input))).toBe(sent);
  });

  it.each(['yesterday', '2024-02-30', '2024-13-01', '2024-05-01T24:00', '1714521600', ''])('refuses %j (exit 2)', (input) => {
    expect(() => parseSince(input)).toThrow(UsageError);
  });
});

describe('the watermark field of the endpoint table', () => {
  it('filters invoices and entities on updatedAt, events on createdAt, and refuses the rest', () => {
    expect(sinceParameter(endpoint('invoices'))).toBe('updatedAt[after]');
    expect(sinceParameter(endpoint('entities'))).toBe('updatedAt[after]');
    expect(sinceParameter(endpoint('events'))).toBe('createdAt[after]');
    for (const key of ['payments', 'taxpayer-line-items', 'taxpayer-invoice-line-items', 'invoice-line-items']) {
      expect(() => sinceParameter(endpoint(key))).toThrow(/documents no date filter/);
    }
  });

  it('names the --param keys that set the same lower bound', () => {
    expect(conflictsWithSince(endpoint('invoices'), 'updatedAt[after]')).toBe(true);
    expect(conflictsWithSince(endpoint('invoices'), 'updatedAt[strictly_after]')).toBe(true);
    expect(conflictsWithSince(endpoint('invoices'), 'updatedAt[before]')).toBe(false);
    expect(conflictsWithSince(endpoint('events'), 'updatedAt[after]')).toBe(false);
  });

  it('keys the state by endpoint and ids', () => {
    expect(stateKey(endpoint('invoices'), { taxpayerId: 'PEIC211118IS0' })).toBe('invoices PEIC211118IS0');
    expect(stateKey(endpoint('entities'), {})).toBe('entities');
  });
});
