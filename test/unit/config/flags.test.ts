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
  checkOptionNumber,
  flagNamer,
  optionNamer,
  optionsOfFlags,
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
    expect(CONFIGURABLE_FLAGS.map((f) => [f.config.key, longFlag(f), f.option ?? f.attribute])).toEqual([
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

describe('one vocabulary of options', () => {
  it('renames the flags a row names otherwise, and keeps every other key', () => {
    const options = optionsOfFlags({
      timeout: 2500,
      maxWait: 0,
      maxBodySize: 1024,
      header: [['A', 'b']],
      param: [['k', 'v']],
      total: true,
      taxpayer: 'T',
    });
    expect(options).toEqual({
      timeoutMs: 2500,
      maxWaitMs: 0,
      maxBodyBytes: 1024,
      headers: [['A', 'b']],
      params: [['k', 'v']],
      total: true,
      taxpayer: 'T',
    });
  });

  it('names an option in each door', () => {
    expect([flagNamer('sinceField'), flagNamer('sinceField', 'updatedAt'), flagNamer('timeout')]).toEqual([
      '--since-field',
      '--since-field updatedAt',
      '--timeout',
    ]);
    expect([optionNamer('sinceField'), optionNamer('sinceField', 'updatedAt'), optionNamer('timeout')]).toEqual([
      'sinceField',
      "sinceField: 'updatedAt'",
      'timeoutMs',
    ]);
  });

  it.each([
    ['timeout', 0.5, 'timeoutMs must be a number of milliseconds from 1 to 2147483000 (got 0.5)'],
    ['maxWait', -1, 'maxWaitMs must be a number of milliseconds from 0 to 2147483000 (got -1)'],
    ['itemsPerPage', 1001, 'itemsPerPage must be a whole number from 1 to 1000 (got 1001)'],
    ['maxItems', '5', 'maxItems must be a whole number at least 1 (got "5")'],
  ] as const)("checks a library number by its row's range in the option's unit: %s %j", (attribute, value, message) => {
    expect(() => checkOptionNumber(exportFlag(attribute), value)).toThrow(message);
  });

  it('takes Infinity only where it is the default (no limit)', () => {
    expect(() => checkOptionNumber(exportFlag('maxWait'), Infinity)).not.toThrow();
    expect(() => checkOptionNumber(exportFlag('timeout'), Infinity)).toThrow(/timeoutMs/);
  });
});
