import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfigDir, DIR_MODE, FILE_MODE } from '../../../src/config/folder.js';
import { createConfigStore, loadConfFor } from '../../../src/config/store.js';
import { OutputError, UsageError } from '../../../src/errors.js';

const CANARY = 'canary-KEY-0000-do-not-print';
const posix = process.platform !== 'win32';

let root: string;
let dir: string;
let warnings: string[];
const open = () => createConfigStore({ configDir: dir, warn: (m) => warnings.push(m) });
const mode = (path: string): number => statSync(path).mode & 0o777;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collections-store-'));
  dir = join(root, 'nested', 'cfg');
  warnings = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

// What the CLI does before a command (createProgram's preAction).
beforeAll(() => loadConfFor({}, true));

describe('file and folder modes', () => {
  it.runIf(posix).each([0o022, 0o000, 0o077])('folder 0700 and files 0600 under umask %o', (mask) => {
    const previous = process.umask(mask);
    try {
      const store = open();
      store.set('default', 'api-key', CANARY);
      expect(mode(dir)).toBe(DIR_MODE);
      expect(mode(store.path)).toBe(FILE_MODE);
      // A second write (a temp file renamed into place) keeps the mode.
      store.set('default', 'base-url', 'https://api.example.com');
      expect(mode(store.path)).toBe(FILE_MODE);
      expect(warnings).toEqual([]);
    } finally {
      process.umask(previous);
    }
  });

  it.runIf(posix)('tightens an existing 0644 file and 0755 folder with one warning line', () => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { 'api-key': CANARY } } }));
    chmodSync(join(dir, 'config.json'), 0o644);
    const store = open();
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain('\n');
    expect(warnings[0]).toContain('0644');
    expect(warnings[0]).toContain('0755');
    expect(warnings[0]).not.toContain(CANARY);
    expect(store.getProfile('default')['api-key']).toBe(CANARY);
    // Once tight, no more warnings.
    open();
    expect(warnings).toHaveLength(1);
  });

  it.runIf(posix)('leaves a private folder and file alone', () => {
    open().set('default', 'format', 'csv');
    open();
    expect(warnings).toEqual([]);
  });
});

describe('profiles', () => {
  it('keeps profiles apart, unsets values and drops empty profiles', () => {
    const store = open();
    store.set('default', 'base-url', 'https://api.example.com/v1');
    store.set('sandbox', 'base-url', 'http://127.0.0.1:8080');
    store.set('sandbox', 'items-per-page', '50');
    expect(store.getProfile('default')).toEqual({ 'base-url': 'https://api.example.com/v1' });
    expect(store.getProfile('sandbox')).toEqual({ 'base-url': 'http://127.0.0.1:8080/', 'items-per-page': 50 });
    expect(store.profiles()).toEqual(['default', 'sandbox']);
    expect(store.unset('sandbox', 'items-per-page')).toBe(true);
    expect(store.unset('sandbox', 'items-per-page')).toBe(false);
    expect(store.unset('sandbox', 'base-url')).toBe(true);
    expect(store.profiles()).toEqual(['default']);
    expect(store.getProfile('nobody')).toEqual({});
    // Values survive a reopen (they are on disk, not in memory).
    expect(open().getProfile('default')['base-url']).toBe('https://api.example.com/v1');
  });

  it('stores numbers as numbers and refuses invalid values without writing', () => {
    const store = open();
    expect(store.set('default', 'max-wait', '90.5')).toBe(90.5);
    expect(() => store.set('default', 'items-per-page', '5000')).toThrow(UsageError);
    expect(() => store.set('default', 'format', 'xml')).toThrow(UsageError);
    expect(() => store.set('default', 'base-url', 'ftp://x')).toThrow(UsageError);
    expect(store.getProfile('default')).toEqual({ 'max-wait': 90.5 });
  });

  it.each(['', '-x', '__proto__', 'a/b', 'a b', 'x'.repeat(65)])('refuses the profile name %j', (name) => {
    expect(() => open().set(name, 'format', 'csv')).toThrow(UsageError);
  });

  it('a profile named like an Object.prototype member is just a profile', () => {
    const store = open();
    expect(store.getProfile('constructor')).toEqual({});
    store.set('constructor', 'format', 'csv');
    expect(store.getProfile('constructor')).toEqual({ format: 'csv' });
  });
});

/** What the `conf` package of older versions wrote: the object with tab indents, no final newline. */
const CONF_WRITTEN = '{\n\t"profiles": {\n\t\t"default": {\n\t\t\t"api-key": "k",\n\t\t\t"timeout": 5000\n\t\t}\n\t}\n}';

describe('the file as conf keeps it', () => {
  const write = (text: string): string => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
    return join(dir, 'config.json');
  };

  it('reads a missing file as empty and creates no file until a write', () => {
    const store = open();
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(store.profiles()).toEqual([]);
    expect(existsSync(store.path)).toBe(false);
  });

  it('writes the layout conf wrote, byte for byte, so older files need no migration', () => {
    const store = open();
    store.set('default', 'api-key', 'k');
    store.set('default', 'timeout', '5000');
    expect(readFileSync(store.path, 'utf8')).toBe(CONF_WRITTEN);
  });

  it('reads a file conf wrote, and rewrites it unchanged when a value is set to what it holds', () => {
    const path = write(CONF_WRITTEN);
    const store = open();
    expect(store.getProfile('default')).toEqual({ 'api-key': 'k', timeout: 5000 });
    store.set('default', 'timeout', '5000');
    expect(readFileSync(path, 'utf8')).toBe(CONF_WRITTEN);
  });

  it('keeps the other top-level fields and their order; a __proto__ field stays a field', () => {
    const path = write('{"a":1,"profiles":{},"__proto__":{"x":1},"z":[2]}');
    open().set('p', 'retries', '2');
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)).toEqual(['a', 'profiles', '__proto__', 'z']);
    expect(readFileSync(path, 'utf8')).toContain('"__proto__": {\n\t\t"x": 1\n\t}');
  });

  it('reads no profiles from JSON that is not an object', () => {
    for (const text of ['null', '3', '"profiles"', '[1]']) {
      write(text);
      expect(open().profiles()).toEqual([]);
    }
  });

  it.runIf(posix).each([0o022, 0o000, 0o077])('file 0600 in a re-created 0700 folder under umask %o', (mask) => {
    const previous = process.umask(mask);
    try {
      const store = open();
      store.set('default', 'format', 'csv');
      rmSync(dir, { recursive: true });
      store.set('default', 'format', 'csv');
      expect(mode(dir)).toBe(DIR_MODE);
      expect(mode(store.path)).toBe(FILE_MODE);
      expect(readdirSync(dir)).toEqual(['config.json']);
    } finally {
      process.umask(previous);
    }
  });

  it('leaves a file that is not JSON as it was', () => {
    const path = write('{"profiles": ,,,');
    expect(open).toThrow(UsageError);
    expect(readFileSync(path, 'utf8')).toBe('{"profiles": ,,,');
  });

  it('names the file system error when the file cannot be read or saved', () => {
    mkdirSync(join(dir, 'config.json'), { recursive: true });
    expect(open).toThrow(/cannot read the config file .*config\.json \(EISDIR\)/);
    rmSync(join(dir, 'config.json'), { recursive: true });
    const store = open();
    rmSync(dir, { recursive: true });
    writeFileSync(dir, '');
    expect(() => store.set('default', 'format', 'csv')).toThrow(OutputError);
    expect(() => store.set('default', 'format', 'csv')).toThrow(/cannot save the config file .*(ENOTDIR|EEXIST)/);
  });

  it.runIf(posix)('replaces the target of a symlinked file and keeps the link, as conf did', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(root, 'real.json'), '{}', { mode: 0o600 });
    symlinkSync(join(root, 'real.json'), join(dir, 'config.json'));
    open().set('default', 'format', 'csv');
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'real.json'), 'utf8')).toBe('{\n\t"profiles": {\n\t\t"default": {\n\t\t\t"format": "csv"\n\t\t}\n\t}\n}');
  });
});

describe('damaged files', () => {
  it('a config file that is not JSON is a usage error that does not quote the file', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), `{"profiles": {"default": {"api-key": "${CANARY}" ,,,`, { mode: 0o600 });
    let error: unknown;
    try {
      open();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    const e = error as UsageError;
    expect(`${e.message} ${e.hint} ${e.stack}`).not.toContain(CANARY);
    expect(e.cause).toBeUndefined();
    expect(e.message).toContain('config.json');
  });

  it('a hand-edited invalid key is refused without quoting it', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { 'api-key': `${CANARY} with spaces` } } }), {
      mode: 0o600,
    });
    const store = open();
    expect(() => store.getProfile('default')).toThrow(UsageError);
    try {
      store.getProfile('default');
    } catch (err) {
      expect((err as Error).message).not.toContain(CANARY);
    }
  });

  it('a hand-edited invalid number names the key and value', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { retries: -3 } } }), { mode: 0o600 });
    expect(() => open().getProfile('default')).toThrow(/retries.*-3/);
  });
});

describe('config errors carry the E_CONFIG code (exit 2)', () => {
  const caught = (fn: () => unknown): UsageError => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return err as UsageError;
    }
    throw new Error('expected a UsageError');
  };

  it('a config file that is not JSON', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), '{', { mode: 0o600 });
    const e = caught(open);
    expect([e.code, e.exitCode]).toEqual(['E_CONFIG', 2]);
  });

  it('a folder that cannot be created', () => {
    writeFileSync(join(root, 'file'), '');
    const e = caught(() => createConfigStore({ configDir: join(root, 'file', 'cfg') }));
    expect(e.message).toMatch(/cannot create the config folder/);
    expect([e.code, e.exitCode]).toEqual(['E_CONFIG', 2]);
  });

  it('an invalid stored value', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { timeout: 'soon' } } }), { mode: 0o600 });
    const e = caught(() => open().getProfile('default'));
    expect([e.code, e.exitCode]).toEqual(['E_CONFIG', 2]);
  });

  it('an invalid profile value in the file', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: 'x' } }), { mode: 0o600 });
    const e = caught(() => open().getProfile('default'));
    expect([e.code, e.exitCode]).toEqual(['E_CONFIG', 2]);
  });
});

describe('defaultConfigDir (the folder conf used: env-paths conventions)', () => {
  it.each([
    ['linux', {}, '/home/u/.config/collections-nodejs'],
    ['linux', { XDG_CONFIG_HOME: '/xdg' }, '/xdg/collections-nodejs'],
    ['darwin', {}, '/home/u/Library/Preferences/collections-nodejs'],
  ] as const)('%s %j → %s', (platform, env, expected) => {
    expect(defaultConfigDir(env, platform, '/home/u')).toBe(expected);
  });
});
