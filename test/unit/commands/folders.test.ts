/**
 * The folders an export makes before its first request (commands/folders.ts): each missing level
 * made on its own, so a read-only mount or a forbidden folder is reported with its real cause
 * rather than the ENOENT that `mkdir -p` semantics report in Node.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolder, planFolders, type FolderFileSystem } from '../../../src/commands/folders.js';
import { OutputError } from '../../../src/errors.js';
import { removeTempDirs, tempDir } from '../../helpers/world.js';

afterAll(removeTempDirs);

const coded = (code: string): Error => Object.assign(new Error(`${code}: failed`), { code });

/** A file system where `/mnt` exists and making anything under it fails with `code`. */
function failingUnder(code: string): FolderFileSystem & { made: string[] } {
  const made: string[] = [];
  return {
    made,
    stat: (path) => (path === '/' || path === '/mnt' ? Promise.resolve({ isDirectory: () => true }) : Promise.reject(coded('ENOENT'))),
    mkdir: (path) => {
      made.push(path);
      return Promise.reject(coded(code));
    },
    access: () => Promise.resolve(),
  };
}

describe('makeFolder', () => {
  it.each([
    ['EROFS', 'read-only file system (EROFS)'],
    ['EACCES', 'permission denied (EACCES)'],
  ])('%s while making a level: exit 7 with that cause and the level that failed, not ENOENT', async (code, words) => {
    const fs = failingUnder(code);
    const err = await makeFolder('/mnt/a/b', '/mnt/a/b/x.ndjson', fs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutputError);
    expect((err as OutputError).exitCode).toBe(7);
    expect((err as OutputError).message).toBe(`cannot create the folder /mnt/a: ${words}`);
    expect(fs.made).toEqual(['/mnt/a']);
  });

  it('a folder that exists but is not writable: exit 7 naming it', async () => {
    const fs: FolderFileSystem = {
      stat: () => Promise.resolve({ isDirectory: () => true }),
      mkdir: () => Promise.reject(new Error('not called')),
      access: () => Promise.reject(coded('EACCES')),
    };
    await expect(makeFolder('/ro', '/ro/state.json', fs)).rejects.toThrow('cannot write /ro/state.json: folder /ro is not writable (EACCES)');
  });

  it('makes every missing level on the real file system, and accepts one that exists', async () => {
    const dir = tempDir();
    const deep = join(dir.path, 'a', 'b', 'c');
    await makeFolder(deep, join(deep, 'x.ndjson'));
    expect(statSync(deep).isDirectory()).toBe(true);
    await makeFolder(deep, join(deep, 'x.ndjson'));
  });
});

describe('planFolders (the dry run: which folders would be made, and would it fail)', () => {
  it('the missing levels from the deepest existing folder down, once each, making nothing', async () => {
    const fs = failingUnder('EROFS');
    expect(await planFolders(['/mnt/a/b/x.csv', '/mnt/a/c/y.csv', '/mnt/z.json'], fs)).toEqual({ create: ['/mnt/a', '/mnt/a/b', '/mnt/a/c'] });
    expect(fs.made).toEqual([]);
  });

  it('a read-only or forbidden folder where one must be made: the problem, naming it and the cause', async () => {
    const fs: FolderFileSystem = { ...failingUnder('EROFS'), access: () => Promise.reject(coded('EROFS')) };
    expect(await planFolders(['/mnt/a/x.csv'], fs)).toEqual({
      create: [],
      problem: { file: '/mnt/a/x.csv', path: '/mnt', cause: 'folder /mnt is not writable (EROFS)' },
    });
  });

  it('a file in the way: the problem', async () => {
    const fs: FolderFileSystem = {
      ...failingUnder('EROFS'),
      stat: (path) => (path.startsWith('/mnt/') ? Promise.reject(coded('ENOENT')) : Promise.resolve({ isDirectory: () => path === '/' })),
    };
    expect((await planFolders(['/mnt/a/x.csv'], fs)).problem?.cause).toBe('/mnt is not a folder');
  });
});
