import { describe, expect, it } from 'vitest';
import { parseApiKey, parseBaseUrl, parseConfigKey, parseConfigValue, parseProfileName, type ConfigKey } from '../../../src/config/values.js';
import { UsageError } from '../../../src/errors.js';

describe('parseConfigValue', () => {
  it.each<[ConfigKey, string, string | number]>([
    ['base-url', 'https://api.example.com', 'https://api.example.com/'],
    ['base-url', ' http://127.0.0.1:8080/api ', 'http://127.0.0.1:8080/api'],
    ['api-key', '  abc-123_XYZ  ', 'abc-123_XYZ'],
    ['items-per-page', '1', 1],
    ['items-per-page', '1000', 1000],
    ['concurrency', '16', 16],
    ['retries', '0', 0],
    ['retries', '100', 100],
    ['max-wait', '0', 0],
    ['max-wait', '2.5', 2.5],
    ['timeout', '0.5', 0.5],
    ['format', 'table', 'table'],
    ['format', 'ndjson', 'ndjson'],
  ])('%s %j → %j', (key, raw, expected) => {
    expect(parseConfigValue(key, raw)).toBe(expected);
  });

  it.each<[ConfigKey, string]>([
    ['base-url', 'api.example.com'],
    ['base-url', 'ftp://api.example.com'],
    ['base-url', 'https://user:pw@api.example.com'],
    ['base-url', 'https://good.example@evil.example/'],
    ['base-url', 'https://api.example.com/?a=1'],
    ['base-url', 'https://api.example.com/#x'],
    ['base-url', ''],
    ['api-key', ''],
    ['api-key', '   '],
    ['api-key', 'two words'],
    ['api-key', 'line\nbreak'],
    ['items-per-page', '0'],
    ['items-per-page', '1001'],
    ['items-per-page', '1.5'],
    ['items-per-page', 'abc'],
    ['items-per-page', '1e3'],
    ['concurrency', '17'],
    ['retries', '-1'],
    ['max-wait', '-1'],
    ['max-wait', 'Infinity'],
    ['timeout', '0'],
    ['timeout', 'soon'],
    ['format', 'xml'],
    ['format', 'JSON'],
  ])('%s %j is a usage error', (key, raw) => {
    expect(() => parseConfigValue(key, raw)).toThrow(UsageError);
  });

  it('never quotes a refused API key', () => {
    const key = 'canary-KEY-0000 do-not-print';
    expect(() => parseApiKey(key)).toThrow(UsageError);
    try {
      parseApiKey(key);
    } catch (err) {
      expect((err as Error).message).not.toContain('canary');
    }
  });
});

describe('parseConfigKey, parseProfileName, parseBaseUrl', () => {
  it.each(['api-key', 'base-url', 'timeout'])('knows %s', (k) => expect(parseConfigKey(k)).toBe(k));
  it.each(['apikey', 'API-KEY', 'profiles', ''])('refuses %j with the list of keys as hint', (k) => {
    expect(() => parseConfigKey(k)).toThrow(UsageError);
    try {
      parseConfigKey(k);
    } catch (err) {
      expect((err as UsageError).hint).toContain('base-url');
    }
  });
  it.each(['default', 'work', 'sandbox-2', 'a.b_c'])('accepts profile %j', (p) => expect(parseProfileName(p)).toBe(p));
  it('names the source of a bad base URL', () => {
    expect(() => parseBaseUrl('nope', 'COLLECTIONS_BASE_URL')).toThrow(/COLLECTIONS_BASE_URL/);
  });
});
