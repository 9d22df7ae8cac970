import { describe, expect, it } from 'vitest';
import { parseApiKey, parseBaseUrl, parseConfigKey, parseConfigValue, parseProfileName, redactUserinfo } from '../../../src/config/values.js';
import type { ConfigKey } from '../../../src/config/flags.js';
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

describe('a base URL with a user name or password', () => {
  it.each([
    ['https://user:pass@host.example/', 'https://***@host.example/'],
    ['https://user@host.example/api', 'https://***@host.example/api'],
    ['http://:pass@127.0.0.1:8080/', 'http://***@127.0.0.1:8080/'],
    ['https://a@b:pass@host.example/', 'https://***@host.example/'],
  ])('%s is refused (E_CONFIG) and shown as %s', (raw, shown) => {
    let caught: unknown;
    try {
      parseBaseUrl(raw, '--base-url');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    const err = caught as UsageError;
    expect(err.code).toBe('E_CONFIG');
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`--base-url must not contain a user name or password (got '${shown}')`);
    const userinfo = raw.slice(raw.indexOf('//') + 2, raw.lastIndexOf('@') + 1);
    expect(`${err.message} ${err.hint ?? ''}`).not.toContain(userinfo);
  });

  it.each([
    ['https://user:pass@ho st/', 'https://***@ho st/'],
    ['https://user:pass@host:99999/', 'https://***@host:99999/'],
    ['https://user:pass@[bad/', 'https://***@[bad/'],
  ])('an invalid URL %s is quoted redacted too', (raw, shown) => {
    expect(() => parseBaseUrl(raw, '--base-url')).toThrow(`--base-url is not a valid URL (got '${shown}')`);
  });

  it('redactUserinfo leaves a URL without userinfo as it is', () => {
    expect(redactUserinfo('https://host.example/a@b')).toBe('https://host.example/a@b');
    expect(redactUserinfo('https://host.example/?q=a@b')).toBe('https://host.example/?q=a@b');
  });

  it('a stored base-url with userinfo is refused by config set', () => {
    expect(() => parseConfigValue('base-url', 'https://u:secret@host.example/')).toThrow(/\*\*\*@host\.example/);
  });
});

describe('seconds are bounded by what a timer holds', () => {
  it("are refused below the flag's minimum, not rounded to 0 ms", () => {
    expect(() => parseConfigValue('timeout', '0.0004')).toThrow("timeout must be a number of seconds of at least 0.001 (got '0.0004')");
    expect(parseConfigValue('timeout', '0.001')).toBe(0.001);
    expect(parseConfigValue('max-wait', '0')).toBe(0);
  });
  it.each([
    ['timeout', '2147483', 2147483],
    ['max-wait', '2147483', 2147483],
  ])('%s %s is accepted', (key, raw, expected) => {
    expect(parseConfigValue(key as ConfigKey, raw)).toBe(expected);
  });
  it.each([
    ['timeout', '2147484'],
    ['max-wait', '2147483.5'],
    ['timeout', '99999999999999999999'],
  ])('%s %s is refused', (key, raw) => {
    expect(() => parseConfigValue(key as ConfigKey, raw)).toThrow(
      `${key} must be at most 2147483 seconds, the longest a timer can hold (got '${raw}')`,
    );
  });
});
