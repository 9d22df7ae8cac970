import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_KEYS,
  CONFIGURABLE_FLAGS,
  EXPORT_FLAGS,
  exportFlag,
  flagHelp,
  flagParser,
  longFlag,
  type ConfigKey,
} from '../../../src/config/flags.js';
import { parseConfigValue } from '../../../src/config/values.js';
import { UsageError } from '../../../src/errors.js';
import { OUTPUT_FORMATS } from '../../../src/format-names.js';
import { COMPRESSIONS } from '../../../src/export/files/destination.js';

describe('the export flag table', () => {
  it("has one row per flag of the README's export options, and no other", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Export options'));
    const rows = section
      .slice(0, section.indexOf('\n#'))
      .split('\n')
      .filter((l) => l.startsWith('| `-'));
    const documented = new Set(rows.flatMap((row) => row.split('|')[1]!.match(/--[a-z][a-z-]*/g) ?? []));
    const described = rows.join('\n');
    for (const flag of EXPORT_FLAGS.map(longFlag)) expect(described, flag).toMatch(new RegExp(`${flag}(?![a-z-])`));
    expect([...documented].filter((flag) => !EXPORT_FLAGS.some((f) => longFlag(f) === flag))).toEqual([]);
    expect(new Set(EXPORT_FLAGS.map((f) => f.attribute)).size).toBe(EXPORT_FLAGS.length);
  });

  it('its format choices are the output module formats', () => {
    expect(exportFlag('format').value).toEqual({ kind: 'choice', choices: [...OUTPUT_FORMATS] });
  });

  it('its compress choices are the export module compressions', () => {
    expect(exportFlag('compress').value).toEqual({ kind: 'choice', choices: [...COMPRESSIONS] });
  });

  it('the config keys derive from it, in the order config list prints them', () => {
    expect(CONFIG_KEYS).toEqual([
      'base-url',
      'api-key',
      'items-per-page',
      'format',
      'concurrency',
      'max-wait',
      'retries',
      'timeout',
      'events-retention',
      'header',
      'budget',
    ]);
    expect(CONFIGURABLE_FLAGS.map((f) => [f.config.key, longFlag(f), f.config.setting])).toEqual([
      ['items-per-page', '--items-per-page', 'itemsPerPage'],
      ['format', '--format', 'format'],
      ['concurrency', '--concurrency', 'concurrency'],
      ['max-wait', '--max-wait', 'maxWaitMs'],
      ['retries', '--retries', 'retries'],
      ['timeout', '--timeout', 'timeoutMs'],
      ['events-retention', '--events-retention', 'eventsRetentionDays'],
    ]);
  });

  it('help shows the built-in default, seconds as typed', () => {
    expect(flagHelp(exportFlag('itemsPerPage'))).toBe('items per request, 1 to 1000 (default 1000)');
    expect(flagHelp(exportFlag('timeout'))).toBe('per request attempt (default 60)');
    expect(flagHelp(exportFlag('maxWait'))).toBe('longest single rate-limit wait to accept; past it exit 5, checkpoint kept (default: no limit)');
    expect(flagHelp(exportFlag('format'))).toBe('output format (default: from the --out extension, else ndjson)');
    expect(flagHelp(exportFlag('maxItems'))).toBe('stop after exactly n items, requesting only the pages that hold them');
  });

  it('parsers check ranges, convert seconds to ms and collect --param pairs', () => {
    expect(flagParser(exportFlag('itemsPerPage'))!('1000', undefined)).toBe(1000);
    expect(() => flagParser(exportFlag('itemsPerPage'))!('1001', undefined)).toThrow('--items-per-page must be a whole number from 1 to 1000');
    expect(flagParser(exportFlag('maxWait'))!('1.5', undefined)).toBe(1500);
    expect(() => flagParser(exportFlag('timeout'))!('0', undefined)).toThrow('of at least 0.001');
    const param = flagParser(exportFlag('param'))!;
    expect(param('b=2', param('a=1', undefined))).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(flagParser(exportFlag('out'))).toBeUndefined();
    expect(flagParser(exportFlag('format'))).toBeUndefined();
  });
});

describe('stored values are validated by the ranges of their flags', () => {
  const rows = CONFIGURABLE_FLAGS.flatMap((f) => {
    const key = f.config.key as ConfigKey;
    const v = f.value;
    if (v.kind === 'integer') {
      return [
        { key, raw: String(v.min), ok: true },
        { key, raw: String(v.max), ok: true },
        { key, raw: String(v.min - 1), ok: false },
        { key, raw: String(v.max + 1), ok: false },
      ];
    }
    if (v.kind === 'seconds')
      return [
        { key, raw: '0', ok: v.min === 0 },
        { key, raw: '2.5', ok: true },
        { key, raw: '-1', ok: false },
      ];
    return [...v.choices.map((c) => ({ key, raw: c, ok: true })), { key, raw: 'xml', ok: false }];
  });

  it('covers every configurable flag', () => {
    expect(new Set(rows.map((r) => r.key))).toEqual(new Set(CONFIGURABLE_FLAGS.map((f) => f.config.key)));
  });

  it.each(rows)('$key $raw → ok: $ok', ({ key, raw, ok }) => {
    if (ok) expect(() => parseConfigValue(key, raw)).not.toThrow();
    else expect(() => parseConfigValue(key, raw)).toThrow(UsageError);
  });
});
