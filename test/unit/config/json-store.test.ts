import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIR_MODE, FILE_MODE } from '../../../src/config/folder.js';
import { createConfStore, loadConfFor } from '../../../src/config/store.js';

const posix = process.platform !== 'win32';
const mode = (path: string): number => statSync(path).mode & 0o777;

let root: string;
let path: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collections-json-store-'));
  path = join(root, 'cfg', 'config.json');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What the `conf` package of older versions wrote: the object with tab indents, no final newline. */
const CONF_WRITTEN = '{\n\t"profiles": {\n\t\t"default": {\n\t\t\t"api-key": "k",\n\t\t\t"timeout": 5000\n\t\t}\n\t}\n}';

// What the CLI does before a command (createProgram's preAction).
beforeAll(() => loadConfFor({}, true));

const createJsonStore = createConfStore;

describe('createConfStore', () => {
  it('reads a missing file as empty and creates nothing until a write', () => {
    const store = createJsonStore(path);
    expect(store.path).toBe(path);
    expect(store.get('profiles')).toBeUndefined();
    expect(existsSync(join(root, 'cfg'))).toBe(false);
  });

  it('writes the layout conf wrote, byte for byte, so older files need no migration', () => {
    createJsonStore(path).set('profiles', { default: { 'api-key': 'k', timeout: 5000 } });
    expect(readFileSync(path, 'utf8')).toBe(CONF_WRITTEN);
  });

  it('reads a file conf wrote, and rewrites it unchanged when a field is set to what it holds', () => {
    mkdirSync(join(root, 'cfg'));
    writeFileSync(path, CONF_WRITTEN, { mode: 0o600 });
    const store = createJsonStore(path);
    expect(store.get('profiles')).toEqual({ default: { 'api-key': 'k', timeout: 5000 } });
    store.set('profiles', store.get('profiles'));
    expect(readFileSync(path, 'utf8')).toBe(CONF_WRITTEN);
  });

  it('keeps the other top-level fields and their order; a __proto__ field stays a field', () => {
    mkdirSync(join(root, 'cfg'));
    writeFileSync(path, '{"a":1,"profiles":{},"__proto__":{"x":1},"z":[2]}');
    const store = createJsonStore(path);
    store.set('profiles', { p: { retries: 2 } });
    store.set('entries', {});
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)).toEqual(['a', 'profiles', '__proto__', 'z', 'entries']);
    expect(store.get('__proto__')).toEqual({ x: 1 });
    expect(store.get('toString')).toBeUndefined();
  });

  it('reads no field from JSON that is not an object', () => {
    mkdirSync(join(root, 'cfg'));
    for (const text of ['null', '3', '"profiles"', '[1]']) {
      writeFileSync(path, text);
      expect(createJsonStore(path).get('profiles')).toBeUndefined();
    }
  });

  it.runIf(posix).each([0o022, 0o000, 0o077])('file 0600 in a re-created 0700 folder under umask %o', (mask) => {
    const previous = process.umask(mask);
    try {
      const store = createJsonStore(path);
      store.set('profiles', {});
      expect(mode(path)).toBe(FILE_MODE);
      expect(mode(join(root, 'cfg'))).toBe(DIR_MODE);
      rmSync(join(root, 'cfg'), { recursive: true });
      store.set('profiles', {});
      expect(mode(join(root, 'cfg'))).toBe(DIR_MODE);
      expect(mode(path)).toBe(FILE_MODE);
      expect(readdirSync(join(root, 'cfg'))).toEqual(['config.json']);
    } finally {
      process.umask(previous);
    }
  });

  it('throws a SyntaxError for a file that is not JSON, and leaves it as it was on a write', () => {
    mkdirSync(join(root, 'cfg'));
    writeFileSync(path, '{"profiles": ,,,');
    const store = createJsonStore(path);
    expect(() => store.get('profiles')).toThrow(SyntaxError);
    expect(() => store.set('profiles', {})).toThrow(SyntaxError);
    expect(readFileSync(path, 'utf8')).toBe('{"profiles": ,,,');
  });

  it('throws the file system error, with its code, when the file cannot be read or saved', () => {
    mkdirSync(path, { recursive: true });
    expect(() => createJsonStore(path).get('profiles')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    writeFileSync(join(root, 'file'), '');
    const blocked = createJsonStore(join(root, 'file', 'config.json'));
    let code: unknown;
    try {
      blocked.set('profiles', {});
    } catch (err) {
      code = (err as NodeJS.ErrnoException).code;
    }
    expect(['ENOTDIR', 'EEXIST']).toContain(code);
  });

  it.runIf(posix)('replaces the target of a symlinked file and keeps the link, as conf did', () => {
    mkdirSync(join(root, 'cfg'));
    writeFileSync(join(root, 'real.json'), '{}', { mode: 0o600 });
    symlinkSync(join(root, 'real.json'), path);
    createJsonStore(path).set('profiles', {});
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'real.json'), 'utf8')).toBe('{\n\t"profiles": {}\n}');
  });
});
