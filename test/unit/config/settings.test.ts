import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../src/http/proxy.js';
import { requireApiSettings, resolveSettings, type ResolveSettingsInput, type SettingsFlags } from '../../../src/config/settings.js';

const resolveApiSettings = (input: ResolveSettingsInput, warn: (m: string) => void) => requireApiSettings(resolveSettings(input), warn);
import { createConfigStore, type ConfigStore, loadConfFor } from '../../../src/config/store.js';
import { UsageError } from '../../../src/errors.js';

const CANARY = 'canary-KEY-0000-do-not-print';
const PROD = 'https://api.example.com';
const OTHER = 'https://other.example.com';

let root: string;
let store: ConfigStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collections-settings-'));
  store = createConfigStore({ configDir: root });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function seed(profile: string, values: Record<string, string>): void {
  for (const [k, v] of Object.entries(values)) store.set(profile, k as never, v);
}

function caught(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

// What the CLI does before a command (createProgram's preAction).
beforeAll(() => loadConfFor({}, true));

describe('precedence: flag > env > profile', () => {
  it.each<{
    name: string;
    flags: SettingsFlags;
    env: Record<string, string>;
    expected: { key: string; keySource: string; url: string; urlSource: string; profile: string; profileSource: string };
  }>([
    {
      name: 'stored profile only',
      flags: {},
      env: {},
      expected: {
        key: 'stored-default-key',
        keySource: 'profile',
        url: `${PROD}/`,
        urlSource: 'profile',
        profile: 'default',
        profileSource: 'default',
      },
    },
    {
      name: 'env over profile',
      flags: {},
      env: { COLLECTIONS_API_KEY: 'env-key-123', COLLECTIONS_BASE_URL: OTHER },
      expected: { key: 'env-key-123', keySource: 'env', url: `${OTHER}/`, urlSource: 'env', profile: 'default', profileSource: 'default' },
    },
    {
      name: 'flags over env',
      flags: { apiKey: 'flag-key-123', baseUrl: 'http://127.0.0.1:1234' },
      env: { COLLECTIONS_API_KEY: 'env-key-123', COLLECTIONS_BASE_URL: OTHER },
      expected: {
        key: 'flag-key-123',
        keySource: 'flag',
        url: 'http://127.0.0.1:1234/',
        urlSource: 'flag',
        profile: 'default',
        profileSource: 'default',
      },
    },
    {
      name: 'stored key with a flag URL of the same origin',
      flags: { baseUrl: `${PROD}/v2` },
      env: {},
      expected: {
        key: 'stored-default-key',
        keySource: 'profile',
        url: `${PROD}/v2`,
        urlSource: 'flag',
        profile: 'default',
        profileSource: 'default',
      },
    },
    {
      name: 'COLLECTIONS_PROFILE picks the profile',
      flags: {},
      env: { COLLECTIONS_PROFILE: 'sandbox' },
      expected: {
        key: 'stored-sandbox-key',
        keySource: 'profile',
        url: 'http://127.0.0.1:8080/',
        urlSource: 'profile',
        profile: 'sandbox',
        profileSource: 'env',
      },
    },
    {
      name: '--profile over COLLECTIONS_PROFILE',
      flags: { profile: 'default' },
      env: { COLLECTIONS_PROFILE: 'sandbox' },
      expected: { key: 'stored-default-key', keySource: 'profile', url: `${PROD}/`, urlSource: 'profile', profile: 'default', profileSource: 'flag' },
    },
    {
      name: 'empty environment variables count as unset',
      flags: {},
      env: { COLLECTIONS_API_KEY: '', COLLECTIONS_BASE_URL: '', COLLECTIONS_PROFILE: '' },
      expected: {
        key: 'stored-default-key',
        keySource: 'profile',
        url: `${PROD}/`,
        urlSource: 'profile',
        profile: 'default',
        profileSource: 'default',
      },
    },
    {
      name: 'env key with the stored URL',
      flags: {},
      env: { COLLECTIONS_API_KEY: 'env-key-123' },
      expected: { key: 'env-key-123', keySource: 'env', url: `${PROD}/`, urlSource: 'profile', profile: 'default', profileSource: 'default' },
    },
  ])('$name', ({ flags, env, expected }) => {
    seed('default', { 'base-url': PROD, 'api-key': 'stored-default-key' });
    seed('sandbox', { 'base-url': 'http://127.0.0.1:8080', 'api-key': 'stored-sandbox-key' });
    const s = resolveSettings({ flags, env, store });
    expect({
      key: s.apiKey,
      keySource: s.sources.apiKey,
      url: s.baseUrl?.href,
      urlSource: s.sources.baseUrl,
      profile: s.profile,
      profileSource: s.sources.profile,
    }).toEqual(expected);
  });

  it('carries the profile export defaults, seconds converted to ms', () => {
    seed('default', { 'items-per-page': '200', format: 'csv', concurrency: '2', 'max-wait': '90', retries: '3', timeout: '2.5' });
    expect(resolveSettings({ flags: {}, env: {}, store }).defaults).toEqual({
      itemsPerPage: 200,
      format: 'csv',
      concurrency: 2,
      maxWaitMs: 90_000,
      retries: 3,
      timeoutMs: 2_500,
    });
  });
});

describe('a stored key stays with its own base URL', () => {
  it.each([
    ['flag', { baseUrl: OTHER }, {}],
    ['env', {}, { COLLECTIONS_BASE_URL: OTHER }],
    ['flag, other port', { baseUrl: 'https://api.example.com:8443' }, {}],
    ['flag, other scheme', { baseUrl: 'http://api.example.com' }, {}],
  ] as const)('refuses a %s base URL of another origin', (_name, flags, env) => {
    seed('default', { 'base-url': PROD, 'api-key': CANARY });
    const e = caught(() => resolveSettings({ flags, env, store }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(PROD);
    expect(`${e.message} ${e.hint} ${e.stack}`).not.toContain(CANARY);
  });

  it('refuses when the profile stores a key but no base URL', () => {
    seed('default', { 'api-key': CANARY });
    const e = caught(() => resolveSettings({ flags: { baseUrl: OTHER }, env: {}, store }));
    expect(e.hint).toContain('collections config set base-url URL');
    expect(`${e.message} ${e.hint}`).not.toContain(CANARY);
  });

  it('allows a key given explicitly for the other URL', () => {
    seed('default', { 'base-url': PROD, 'api-key': CANARY });
    const s = resolveSettings({ flags: { baseUrl: OTHER }, env: { COLLECTIONS_API_KEY: 'explicit-key' }, store });
    expect(s.apiKey).toBe('explicit-key');
    expect(s.baseUrl?.origin).toBe(OTHER);
  });
});

describe('missing and invalid settings', () => {
  const warnings: string[] = [];
  const warn = (m: string): void => void warnings.push(m);
  beforeEach(() => void (warnings.length = 0));

  it('no base URL: exit 2 with the config hint', () => {
    const e = caught(() => resolveApiSettings({ flags: {}, env: { COLLECTIONS_API_KEY: CANARY }, store }, warn));
    expect(e.exitCode).toBe(2);
    expect(e.hint).toContain('run `collections config set base-url URL`');
  });

  it('no key: exit 2 with both ways to give one', () => {
    const e = caught(() => resolveApiSettings({ flags: { baseUrl: PROD }, env: {}, store }, warn));
    expect(e.exitCode).toBe(2);
    expect(e.hint).toContain('collections config set api-key');
    expect(e.hint).toContain('COLLECTIONS_API_KEY');
  });

  it('names the profile in hints when it is not the default', () => {
    seed('work', { retries: '3' });
    const e = caught(() => resolveApiSettings({ flags: { profile: 'work' }, env: {}, store }, warn));
    expect(e.hint).toContain('--profile work');
  });

  it('a profile with a key and no base URL: the hint is to store its base URL, not --base-url (which the key binding refuses)', () => {
    seed('work', { 'api-key': CANARY });
    const e = caught(() => resolveApiSettings({ flags: { profile: 'work' }, env: {}, store }, warn));
    expect(e.message).toBe("no base URL configured for profile 'work'");
    expect(e.hint).toBe('run `collections config set base-url URL --profile work` (the key stored there is sent only to that base URL)');
    expect(`${e.message} ${e.hint}`).not.toContain(CANARY);
  });

  it.each([
    [{ profile: 'wrok' }, {}, "unknown profile 'wrok' (from --profile)"],
    [{}, { COLLECTIONS_PROFILE: 'wrok' }, "unknown profile 'wrok' (from COLLECTIONS_PROFILE)"],
  ])('an unknown profile is named, with the stored ones (%j %j)', (flags, env, message) => {
    seed('work', { 'base-url': PROD });
    seed('sandbox', { 'base-url': OTHER });
    const e = caught(() => resolveSettings({ flags, env, store }));
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(message);
    expect(e.hint).toBe('use a stored profile (sandbox, work), or create it with `collections config set base-url URL --profile wrok`');
  });

  it('with no profile stored, only default exists: naming it is fine, another one is unknown', () => {
    expect(resolveSettings({ flags: { profile: 'default' }, env: {}, store }).profile).toBe('default');
    expect(caught(() => resolveSettings({ flags: { profile: 'work' }, env: {}, store })).hint).toBe(
      'no profile is stored yet; create it with `collections config set base-url URL --profile work`',
    );
  });

  it.each([
    [{ baseUrl: 'not a url' }, {}],
    [{}, { COLLECTIONS_BASE_URL: 'ftp://x.example' }],
    [{ profile: '../etc' }, {}],
    [{ apiKey: 'has space', baseUrl: PROD }, {}],
  ] as const)('invalid %j %j: usage error', (flags, env) => {
    caught(() => resolveSettings({ flags, env, store }));
  });

  it('a bad key from the environment is refused without quoting it', () => {
    const e = caught(() => resolveSettings({ flags: {}, env: { COLLECTIONS_API_KEY: `${CANARY} x` }, store }));
    expect(e.message).toContain('COLLECTIONS_API_KEY');
    expect(e.message).not.toContain(CANARY);
  });

  it.each([
    ['http://api.example.com', true],
    ['http://127.0.0.1.nip.io', true],
    ['http://localhost.evil.example', true],
    ['http://10.0.0.1:8080', true],
    ['https://api.example.com', false],
    ['http://localhost:8080', false],
    ['http://127.0.0.1:1', false],
    ['http://127.1', false],
    ['http://[::1]:9000', false],
  ])('plain http warning for %s: %s', (url, warns) => {
    const s = requireApiSettings(resolveSettings({ flags: { baseUrl: url, apiKey: CANARY }, env: {}, store }), warn);
    expect(s.insecureTransport).toBe(warns);
    expect(warnings).toHaveLength(warns ? 1 : 0);
    if (warns) {
      expect(warnings[0]).toContain('http');
      expect(warnings[0]).not.toContain('\n');
      expect(warnings[0]).not.toContain(CANARY);
    }
  });

  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    ['128.0.0.1', false],
    ['[::2]', false],
    ['example.com', false],
  ])('isLoopbackHost(%s) = %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('loadApiSettings / loadSettings (context wiring)', () => {
  it('reads the store of ctx.configDir, env from ctx.env, and warns on ctx stderr', async () => {
    const { loadApiSettings, loadSettings } = await import('../../../src/config/settings.js');
    const { createTestContext } = await import('../../helpers/world.js');
    seed('work', { 'base-url': 'http://api.example.com', 'api-key': CANARY });
    const t = createTestContext({ configDir: root, env: { COLLECTIONS_PROFILE: 'work' } });
    const settings = loadApiSettings({}, t.ctx);
    expect(settings.apiKey).toBe(CANARY);
    expect(settings.profile).toBe('work');
    expect(t.stderr.text()).toMatch(/^collections: warning: .*plain http.*\n$/);
    expect(t.stderr.text()).not.toContain(CANARY);
    expect(() => loadSettings({ profile: 'nobody' }, t.ctx)).toThrow("unknown profile 'nobody' (from --profile)");
    expect(() => loadApiSettings({ profile: 'nobody' }, t.ctx)).toThrow(UsageError);
  });
});

describe('openLastSeenCache', () => {
  it.runIf(process.platform === 'linux')(
    'keeps the headers in the rate budget’s file of the cache folder (XDG_CACHE_HOME by default), 0700/0600',
    async () => {
      const { openLastSeenCache } = await import('../../../src/config/settings.js');
      const { createTestContext } = await import('../../helpers/world.js');
      const t = createTestContext({ configDir: undefined, env: { XDG_CACHE_HOME: join(root, 'xdg-cache') } });
      const cache = await openLastSeenCache(t.ctx);
      expect(cache.record(PROD, 'entities', { limit: 10, remaining: 9, observedAt: 1 })).toBe(true);
      const folder = join(root, 'xdg-cache', 'collections-nodejs');
      expect(readdirSync(folder)).toEqual(['rate-budget.json']);
      if (process.platform !== 'win32') {
        expect(statSync(folder).mode & 0o777).toBe(0o700);
        expect(statSync(join(folder, 'rate-budget.json')).mode & 0o777).toBe(0o600);
      }
      expect(cache.list(PROD)).toEqual([{ origin: PROD, endpoint: 'entities', limit: 10, remaining: 9, observedAt: 1 }]);
    },
  );

  it('warns once, on stderr, when the file cannot be saved', async () => {
    const { openLastSeenCache } = await import('../../../src/config/settings.js');
    const { createTestContext } = await import('../../helpers/world.js');
    writeFileSync(join(root, 'blocker'), 'x');
    const t = createTestContext({ configDir: root, env: { COLLECTIONS_CACHE_DIR: join(root, 'blocker', 'cache') } });
    expect((await openLastSeenCache(t.ctx)).record(PROD, 'entities', { observedAt: 1 })).toBe(false);
    // Another export of the same run (a taxpayer of many): no second line.
    expect((await openLastSeenCache(t.ctx)).record(PROD, 'events', { observedAt: 1 })).toBe(false);
    expect(t.stderr.text()).toMatch(
      /^collections: warning: cannot save the rate-limit cache .*blocker\/cache\/rate-budget\.json: .*; `ratelimit --cached` may show older values\n$/,
    );
  });
});
