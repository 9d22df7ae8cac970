import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runConfig, type ConfigAction } from '../../../../src/commands/config/config.js';
import { createConfigStore, loadConfFor } from '../../../../src/config/store.js';
import { CollectionsError, InterruptedError, UsageError } from '../../../../src/errors.js';
import { createTestContext, type TestContext, type TestContextOptions } from '../../../helpers/world.js';

const CANARY = 'canary-KEY-0000-do-not-print';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'collections-config-cmd-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const context = (options: TestContextOptions = {}): TestContext => createTestContext({ configDir: dir, ...options });
const stored = (profile = 'default') => createConfigStore({ configDir: dir }).getProfile(profile);

/** Runs a config action; returns the code or the error, and everything printed. */
async function run(
  action: ConfigAction,
  args: string[],
  options: { profile?: string } = {},
  t: TestContext = context(),
): Promise<{ code?: number; error?: unknown; out: string; err: string }> {
  try {
    const code = await runConfig(t.ctx, { ...options, action, args });
    return { code, out: t.stdout.text(), err: t.stderr.text() };
  } catch (error) {
    return { error, out: t.stdout.text(), err: t.stderr.text() };
  }
}

function expectNoCanary(r: { error?: unknown; out: string; err: string }): void {
  expect(r.out).not.toContain(CANARY);
  expect(r.err).not.toContain(CANARY);
  if (r.error instanceof Error) {
    expect(r.error.message).not.toContain(CANARY);
    expect(String(r.error.stack)).not.toContain(CANARY);
    expect(r.error instanceof CollectionsError ? (r.error.hint ?? '') : '').not.toContain(CANARY);
  }
}

/** A fake terminal on stdin: records raw-mode switches. */
function fakeTty(): PassThrough & { isTTY: boolean; isRaw: boolean; modes: boolean[]; setRawMode(mode: boolean): void } {
  const s = new PassThrough() as PassThrough & { isTTY: boolean; isRaw: boolean; modes: boolean[]; setRawMode(mode: boolean): void };
  s.isTTY = true;
  s.isRaw = false;
  s.modes = [];
  s.setRawMode = (mode: boolean) => {
    s.modes.push(mode);
    s.isRaw = mode;
  };
  return s;
}

function ttyContext(stdin: NodeJS.ReadableStream): TestContext {
  const t = context({ stdinIsTTY: true, stderrIsTTY: true });
  t.ctx.io.stdin = stdin;
  return t;
}

// What the CLI does before a command (createProgram's preAction).
beforeAll(() => loadConfFor({}, true));

describe('config set / get / list / unset / path', () => {
  it('stores, prints and removes values per profile', async () => {
    expect((await run('set', ['base-url', 'https://api.example.com'])).code).toBe(0);
    expect((await run('set', ['items-per-page', '250'], { profile: 'work' })).code).toBe(0);
    expect(stored()).toEqual({ 'base-url': 'https://api.example.com/' });
    expect(stored('work')).toEqual({ 'items-per-page': 250 });

    const get = await run('get', ['base-url']);
    expect(get.out).toBe('https://api.example.com/\n');
    const list = await run('list', [], { profile: 'work' });
    expect(list.out).toBe('items-per-page=250\n');

    const unset = await run('unset', ['base-url']);
    expect(unset.code).toBe(0);
    expect(unset.out).toBe('');
    expect(stored()).toEqual({});
    expect((await run('unset', ['base-url'])).code).toBe(0);
  });

  it('COLLECTIONS_PROFILE selects the profile; --profile wins over it', async () => {
    await run('set', ['format', 'csv'], {}, context({ env: { COLLECTIONS_PROFILE: 'env-profile' } }));
    await run('set', ['format', 'json'], { profile: 'flag-profile' }, context({ env: { COLLECTIONS_PROFILE: 'env-profile' } }));
    expect(stored('env-profile')).toEqual({ format: 'csv' });
    expect(stored('flag-profile')).toEqual({ format: 'json' });
  });

  it('path prints the file path on stdout (and nothing else)', async () => {
    const r = await run('path', []);
    expect(r.out).toBe(`${join(dir, 'config.json')}\n`);
    expect(r.err).toBe('');
  });

  it('list of an empty profile prints no data and says so on stderr', async () => {
    await run('set', ['format', 'csv'], { profile: 'other' });
    const r = await run('list', []);
    expect(r.out).toBe('');
    expect(r.err).toContain('other');
  });

  it('profiles prints the stored profile names, one a line, sorted; nothing when none', async () => {
    expect(await run('profiles', [])).toEqual({ code: 0, out: '', err: '' });
    await run('set', ['format', 'csv'], { profile: 'work' });
    await run('set', ['base-url', 'https://api.example.com'], {});
    await run('set', ['retries', '2'], { profile: 'a-test' });
    const r = await run('profiles', []);
    expect(r.code).toBe(0);
    expect(r.out).toBe('a-test\ndefault\nwork\n');
  });

  it.each<[ConfigAction, string[], RegExp]>([
    ['get', ['nope'], /unknown config key/],
    ['get', ['format'], /not set/],
    ['get', [], /wrong number/],
    ['set', ['format'], /needs a value/],
    ['set', ['format', 'xml'], /format must be one of/],
    ['set', ['items-per-page', '0'], /items-per-page/],
    ['set', ['base-url', 'nope'], /not a valid URL/],
    ['set', ['a', 'b', 'c'], /wrong number/],
    ['path', ['extra'], /wrong number/],
    ['list', ['extra'], /wrong number/],
    ['profiles', ['extra'], /wrong number/],
  ])('%s %j: usage error (exit 2), nothing on stdout', async (action, args, message) => {
    const r = await run(action, args);
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as UsageError).exitCode).toBe(2);
    expect((r.error as Error).message).toMatch(message);
    expect(r.out).toBe('');
  });

  it('an invalid profile name is a usage error', async () => {
    const r = await run('set', ['format', 'csv'], { profile: '../x' });
    expect(r.error).toBeInstanceOf(UsageError);
  });
});

describe('the API key', () => {
  it('set with a value: stored, masked in the confirmation, warned about shell history', async () => {
    const r = await run('set', ['api-key', CANARY]);
    expect(r.code).toBe(0);
    expect(stored()['api-key']).toBe(CANARY);
    expect(r.out).toBe('');
    expect(r.err).toContain('****rint');
    expect(r.err).toMatch(/warning: .*shell history/);
    expectNoCanary(r);
  });

  it('get and list mask it to its last 4 characters', async () => {
    await run('set', ['api-key', CANARY]);
    await run('set', ['base-url', 'https://api.example.com']);
    const get = await run('get', ['api-key']);
    expect(get.out).toBe('****rint\n');
    const list = await run('list', []);
    expect(list.out).toBe('base-url=https://api.example.com/\napi-key=****rint\n');
    expectNoCanary(get);
    expectNoCanary(list);
  });

  it('setting the base URL of a profile with a key says where the key will go', async () => {
    await run('set', ['api-key', CANARY]);
    const r = await run('set', ['base-url', 'https://api.example.com/v1']);
    expect(r.err).toContain('https://api.example.com');
    expectNoCanary(r);
  });

  it('set without a value reads one line from a non-terminal stdin', async () => {
    const r = await run('set', ['api-key'], {}, context({ stdinText: `  ${CANARY}\r\nsecond line\n` }));
    expect(r.code).toBe(0);
    expect(stored()['api-key']).toBe(CANARY);
    expect(r.err).not.toMatch(/warning/);
    expectNoCanary(r);
  });

  it.each(['', '\n', '   \n'])('an empty stdin (%j) is a usage error and stores nothing', async (text) => {
    const r = await run('set', ['api-key'], {}, context({ stdinText: text }));
    expect(r.error).toBeInstanceOf(UsageError);
    expect(stored()).toEqual({});
  });

  it('a key with spaces is refused without being quoted', async () => {
    const r = await run('set', ['api-key'], {}, context({ stdinText: `${CANARY} oops\n` }));
    expect(r.error).toBeInstanceOf(UsageError);
    expectNoCanary(r);
    expect(stored()).toEqual({});
  });

  it('on a terminal: a hidden prompt on stderr, raw mode on and off, no echo', async () => {
    const stdin = fakeTty();
    const t = ttyContext(stdin);
    const pending = run('set', ['api-key'], {}, t);
    await new Promise((r) => setImmediate(r));
    expect(t.stderr.text()).toContain('API key');
    stdin.write(`${CANARY}\r`);
    const r = await pending;
    expect(r.code).toBe(0);
    expect(stored()['api-key']).toBe(CANARY);
    expect(stdin.modes[0]).toBe(true);
    expect(stdin.modes.at(-1)).toBe(false);
    expect(r.out).toBe('');
    expectNoCanary(r);
  });

  it('on a terminal: Ctrl-C cancels (exit 130) and stores nothing', async () => {
    const stdin = fakeTty();
    const t = ttyContext(stdin);
    const pending = run('set', ['api-key'], {}, t);
    await new Promise((r) => setImmediate(r));
    stdin.write('canary-KEY-0000');
    stdin.write('\x03');
    const r = await pending;
    expect(r.error).toBeInstanceOf(InterruptedError);
    expect((r.error as InterruptedError).exitCode).toBe(130);
    expect(stored()).toEqual({});
    expect(stdin.modes.at(-1)).toBe(false);
    expect(r.err).not.toContain('canary-KEY-0000');
  });

  it('on a terminal that cannot hide input: refused before reading', async () => {
    const stdin = new PassThrough() as PassThrough & { isTTY: boolean };
    stdin.isTTY = true;
    const r = await run('set', ['api-key'], {}, ttyContext(stdin));
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as UsageError).hint).toContain('printf');
    expect(stored()).toEqual({});
  });

  it('the config file holds the key but no output does', async () => {
    const results = [
      await run('set', ['api-key', CANARY]),
      await run('get', ['api-key']),
      await run('list', []),
      await run('path', []),
      await run('get', ['nope']),
      await run('unset', ['api-key']),
      await run('get', ['api-key']),
    ];
    for (const r of results) expectNoCanary(r);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(CANARY);
  });
});

describe('config alone', () => {
  async function overview(options: { profile?: string } = {}, t: TestContext = context()): Promise<{ code: number; out: string; err: string }> {
    const code = await runConfig(t.ctx, { ...options, action: undefined, args: [] });
    return { code, out: t.stdout.text(), err: t.stderr.text() };
  }

  it('prints every profile and its settings, the key masked; says which profile is in use', async () => {
    await run('set', ['base-url', 'https://api.example.com']);
    await run('set', ['api-key', CANARY]);
    await run('set', ['items-per-page', '250'], { profile: 'work' });
    await run('set', ['format', 'csv'], { profile: 'work' });
    const r = await overview();
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      ['[default]', 'base-url=https://api.example.com/', 'api-key=****rint', '', '[work]', 'items-per-page=250', 'format=csv', ''].join('\n'),
    );
    expect(r.err).toBe(`In use: profile 'default', from ${join(dir, 'config.json')}.\n`);
    expectNoCanary(r);
  });

  it('names the profile in use from --profile or COLLECTIONS_PROFILE, also when nothing is stored in it', async () => {
    await run('set', ['format', 'csv'], { profile: 'work' });
    expect((await overview({ profile: 'work' })).err).toBe(`In use: profile 'work', from ${join(dir, 'config.json')}.\n`);
    const fromEnv = await overview({}, context({ env: { COLLECTIONS_PROFILE: 'other' } }));
    expect(fromEnv.out).toBe('[work]\nformat=csv\n');
    expect(fromEnv.err).toBe(`In use: profile 'other' (nothing stored in it), from ${join(dir, 'config.json')}.\n`);
  });

  it('with nothing stored: no data, and how to start on stderr (exit 0)', async () => {
    const r = await overview();
    expect(r).toEqual({
      code: 0,
      out: '',
      err: `Nothing is stored yet (${join(dir, 'config.json')}). Start with: collections config set base-url URL\n`,
    });
  });

  it('an invalid --profile is a usage error', async () => {
    await expect(overview({ profile: '../x' })).rejects.toThrow(UsageError);
  });
});

describe('config: stored request headers', () => {
  it('set adds a header or replaces the one of its name; list, get and the overview show each, a credential masked', async () => {
    expect((await run('set', ['header', 'Accept-Version: 2019-01-01'])).code).toBe(0);
    expect((await run('set', ['header', 'X-Team:data'])).code).toBe(0);
    const secret = await run('set', ['header', `Authorization: Bearer ${CANARY}`]);
    expect(secret.err).toMatch(/warning: a credential given as an argument stays in your shell history/);
    expect(secret.err).toContain('Saved header Authorization: Bearer ****rint in');
    expect((await run('set', ['header', 'accept-version: 2020-06-28'])).code).toBe(0);
    expect(stored().header).toEqual(['accept-version: 2020-06-28', 'X-Team: data', `Authorization: Bearer ${CANARY}`]);
    const list = await run('list', []);
    expect(list.out).toBe('header=accept-version: 2020-06-28\nheader=X-Team: data\nheader=Authorization: Bearer ****rint\n');
    const get = await run('get', ['header']);
    expect(get.out).toBe('accept-version: 2020-06-28\nX-Team: data\nAuthorization: Bearer ****rint\n');
    const t = context();
    await runConfig(t.ctx, { action: undefined, args: [] });
    expect(t.stdout.text()).toContain('header=Authorization: Bearer ****rint\n');
    for (const r of [secret, list, get, { out: t.stdout.text(), err: t.stderr.text() }]) expectNoCanary(r);
  });

  it('unset header NAME removes that one (any case); unset header removes them all', async () => {
    await run('set', ['header', 'Accept-Version: 2020-06-28']);
    await run('set', ['header', 'X-Team: data']);
    const one = await run('unset', ['header', 'x-team']);
    expect(one.err).toMatch(/^Removed header x-team from profile 'default'/);
    expect(stored().header).toEqual(['Accept-Version: 2020-06-28']);
    expect((await run('unset', ['header', 'X-Nope'])).err).toMatch(/header X-Nope was not set/);
    expect((await run('unset', ['header'])).err).toMatch(/^Removed header from/);
    expect(stored().header).toBeUndefined();
    expect((await run('unset', ['base-url', 'extra'])).error).toBeInstanceOf(UsageError);
  });

  it('refuses what --header refuses, and a hand-edited header that is not one', async () => {
    const r = await run('set', ['header', 'X-Api-Key: k']);
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as Error).message).toMatch(/X-Api-Key cannot be set this way/);
    expect((await run('set', ['header'])).error).toBeInstanceOf(UsageError);
    const store = createConfigStore({ configDir: dir });
    store.set('default', 'base-url', 'https://api.example.com');
    const path = join(dir, 'config.json');
    const file = JSON.parse(readFileSync(path, 'utf8')) as { profiles: { default: Record<string, unknown> } };
    file.profiles.default.header = [`Authorization: ${CANARY}\r\nX: y`];
    writeFileSync(path, JSON.stringify(file));
    const bad = await run('list', []);
    expect(bad.error).toMatchObject({ code: 'E_CONFIG', message: expect.stringMatching(/invalid 'header' in profile 'default'/) as string });
    expectNoCanary(bad);
  });
});
