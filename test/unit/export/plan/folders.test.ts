/**
 * The folders an export makes before its first request (export/plan/folders.ts): `planFolders` says
 * what would be made, or why a file cannot be written, and creates nothing; `makeFolders` makes each
 * missing level on its own, so a read-only mount or a forbidden folder is reported with its real
 * cause rather than the ENOENT that `mkdir -p` semantics report in Node, then creates a file in
 * each folder, which `/proc` refuses even to root.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolders, planFolders, prepareOutputs, type FolderFileSystem } from '../../../../src/export/plan/folders.js';
import { isWrittenThrough } from '../../../../src/export/files/destination.js';
import type { ExportPlan } from '../../../../src/export/run/plan.js';
import { OutputError } from '../../../../src/errors.js';
import { removeTempDirs, tempDir } from '../../../helpers/world.js';

afterAll(removeTempDirs);

const coded = (code: string): Error => Object.assign(new Error(`${code}: failed`), { code });
const folder = { isDirectory: () => true, isFile: () => false };

/** A file system where `/` and `/mnt` exist, and `overrides` change one call. */
function fakeFs(overrides: Partial<FolderFileSystem> = {}): FolderFileSystem & { made: string[]; probed: string[] } {
  const made: string[] = [];
  const probed: string[] = [];
  return {
    made,
    probed,
    stat: (path) => (path === '/' || path === '/mnt' ? Promise.resolve(folder) : Promise.reject(coded('ENOENT'))),
    mkdir: (path) => {
      made.push(path);
      return Promise.resolve();
    },
    access: () => Promise.resolve(),
    probe: (path) => {
      probed.push(path);
      return Promise.resolve();
    },
    ...overrides,
  };
}

/** The error a promise rejects with. */
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('planFolders (creates nothing)', () => {
  it('lists the missing levels of every file once, parents first, and the folders the files go into', async () => {
    const fs = fakeFs();
    const plan = await planFolders(['/mnt/a/b/x.ndjson', '/mnt/a/c/state.json', '/mnt/a/b/run.json'], fs);
    expect(plan).toEqual({ create: ['/mnt/a', '/mnt/a/b', '/mnt/a/c'], folders: ['/mnt/a/b', '/mnt/a/c'] });
    expect(fs.made).toEqual([]);
    expect(fs.probed).toEqual([]);
  });

  it.each([
    [
      'a file in the way',
      {
        stat: (p: string) =>
          Promise.resolve(
            p === '/mnt/a' ? { isDirectory: () => false, isFile: () => true } : p === '/' || p === '/mnt' ? folder : Promise.reject(coded('ENOTDIR')),
          ),
      },
      '/mnt/a',
      '/mnt/a is a file, not a folder',
    ],
    [
      'the file is a folder',
      { stat: (p: string) => (p === '/mnt/a/b/x.ndjson' || p === '/mnt' ? Promise.resolve(folder) : Promise.reject(coded('ENOENT'))) },
      '/mnt/a/b/x.ndjson',
      'it is a folder',
    ],
    ['a read-only mount', { access: () => Promise.reject(coded('EROFS')) }, '/mnt', 'folder /mnt is not writable: read-only file system (EROFS)'],
    ['a forbidden folder', { access: () => Promise.reject(coded('EACCES')) }, '/mnt', 'folder /mnt is not writable: permission denied (EACCES)'],
  ] as const)('%s: the problem names the path and the cause in words, nothing to create', async (_name, overrides, path, cause) => {
    const plan = await planFolders(['/mnt/a/b/x.ndjson'], fakeFs(overrides));
    expect(plan).toEqual({ create: [], folders: [], problem: { file: '/mnt/a/b/x.ndjson', path, cause } });
  });

  it('skips a FIFO or device (written straight through)', async () => {
    const fs = fakeFs({ stat: () => Promise.resolve({ isDirectory: () => false, isFile: () => false }) });
    expect(await planFolders(['/dev/null'], fs)).toEqual({ create: [], folders: [] });
  });

  it('on the real file system: a missing folder is planned, not made', async () => {
    const dir = tempDir();
    const plan = await planFolders([join(dir.path, 'a', 'b', 'x.ndjson')]);
    expect(plan.create).toEqual([join(dir.path, 'a'), join(dir.path, 'a', 'b')]);
    expect(existsSync(join(dir.path, 'a'))).toBe(false);
  });
});

describe('makeFolders', () => {
  it.each([
    ['EROFS', 'read-only file system (EROFS)'],
    ['EACCES', 'permission denied (EACCES)'],
  ])('%s while making a level: exit 7 with that cause and the level that failed, not ENOENT', async (code, words) => {
    const fs = fakeFs({ mkdir: () => Promise.reject(coded(code)) });
    const err = await rejection(makeFolders(['/mnt/a/b/x.ndjson'], fs));
    expect(err).toBeInstanceOf(OutputError);
    expect((err as OutputError).exitCode).toBe(7);
    expect((err as OutputError).message).toBe(`cannot create the folder /mnt/a: ${words}`);
  });

  it('a folder that exists but is not writable: exit 7 naming the file, the folder and the cause', async () => {
    const fs = fakeFs({ access: () => Promise.reject(coded('EACCES')) });
    await expect(makeFolders(['/mnt/state.json'], fs)).rejects.toThrow(
      'cannot write /mnt/state.json: folder /mnt is not writable: permission denied (EACCES)',
    );
    expect(fs.made).toEqual([]);
  });

  it('a folder that access(2) calls writable but that takes no file (/proc as root): exit 7 with the cause', async () => {
    const fs = fakeFs({ probe: () => Promise.reject(coded('ENOENT')) });
    await expect(makeFolders(['/mnt/state.json'], fs)).rejects.toThrow(
      'cannot write /mnt/state.json: creating a file in /mnt failed: no such file or folder (ENOENT)',
    );
  });

  it('makes every missing level on the real file system, accepts one that exists, and leaves no probe file', async () => {
    const dir = tempDir();
    const deep = join(dir.path, 'a', 'b', 'c');
    await makeFolders([join(deep, 'x.ndjson'), join(dir.path, 'state.json')]);
    expect(statSync(deep).isDirectory()).toBe(true);
    await makeFolders([join(deep, 'x.ndjson')]);
    expect(readdirSync(deep)).toEqual([]);
    expect(readdirSync(dir.path)).toEqual(['a']);
  });

  it('on the real file system, a file in the way or a folder at the path: exit 7, nothing made', async () => {
    const dir = tempDir();
    writeFileSync(join(dir.path, 'plain'), 'x');
    mkdirSync(join(dir.path, 'sub'));
    await expect(makeFolders([join(dir.path, 'plain', 'a', 'x.ndjson')])).rejects.toThrow(`${join(dir.path, 'plain')} is a file, not a folder`);
    await expect(makeFolders([join(dir.path, 'sub')])).rejects.toThrow(`cannot write ${join(dir.path, 'sub')}: it is a folder`);
    expect(readdirSync(dir.path).sort()).toEqual(['plain', 'sub']);
  });
});

describe('the check-only plan and the run agree', () => {
  it('a problem the dry run finds reads as the error makeFolders throws, and it makes nothing', async () => {
    const fs = fakeFs({ access: () => Promise.reject(coded('EROFS')) });
    const dry = await rejection(makeFolders(['/mnt/a/x.ndjson'], fs, true));
    const thrown = await rejection(makeFolders(['/mnt/a/x.ndjson'], fs));
    expect((dry as Error).message).toBe((thrown as Error).message);
    await expect(makeFolders(['/mnt/a/b/x.ndjson'], fakeFs(), true)).resolves.toEqual(['/mnt/a', '/mnt/a/b']);
  });

  it('prepareOutputs: the folders of the output, the state file and the manifest of a plan; none for stdout', async () => {
    const plan = (files: boolean): Pick<ExportPlan, 'output' | 'state' | 'manifest'> =>
      ({
        output: { files: files ? { target: '/mnt/d/x.ndjson' } : undefined },
        state: { path: '/mnt/s/state.json', key: 'invoices A' },
        manifest: files ? { path: '/mnt/m/run.json', output: { watermark: { before: null } } } : undefined,
      }) as unknown as Pick<ExportPlan, 'output' | 'state' | 'manifest'>;
    expect(await prepareOutputs([plan(true)], { dryRun: true, fs: fakeFs() })).toEqual(['/mnt/d', '/mnt/s', '/mnt/m']);
    expect(await prepareOutputs([plan(false)], { dryRun: true, fs: fakeFs() })).toEqual(['/mnt/s']);
  });

  it('prepareOutputs: an output written straight through (a device, /dev/stdout) has no folder or manifest to check, as any user', async () => {
    const device = { isDirectory: () => false, isFile: () => false };
    const plan = (target: string) =>
      ({
        output: { files: { target } },
        state: undefined,
        manifest: { path: `${target}.manifest.json`, output: { watermark: { before: null } } },
      }) as unknown as Pick<ExportPlan, 'output' | 'state' | 'manifest'>;
    // /dev is not writable, as for any user but root.
    const fs = fakeFs({
      stat: (path) => Promise.resolve(path === '/dev/null' ? device : path === '/dev' || path === '/' ? folder : Promise.reject(coded('ENOENT'))),
      access: (path) => (path === '/dev' ? Promise.reject(coded('EACCES')) : Promise.resolve()),
    });
    await expect(prepareOutputs([plan('/dev/null')], { fs })).resolves.toEqual([]);
    expect(fs.probed).toEqual([]);
    await expect(prepareOutputs([plan('/dev/missing.ndjson')], { fs })).rejects.toThrow(
      'cannot write /dev/missing.ndjson: folder /dev is not writable',
    );
  });
});

describe('isWrittenThrough', () => {
  const regular = { isFile: () => true, isDirectory: () => false };
  const device = { isFile: () => false, isDirectory: () => false };
  const dir = { isFile: () => false, isDirectory: () => true };
  it.each([
    ['/dev/null', device, true],
    ['/tmp/pipe', device, true],
    ['/dev/stdout', device, true],
    // A shell's `>` made /dev/stdout a regular file: still the process's descriptor, never replaced.
    ['/dev/stdout', regular, true],
    ['/dev/stderr', regular, true],
    ['/dev/fd/3', regular, true],
    ['/proc/self/fd/1', regular, true],
    ['/tmp/x.ndjson', regular, false],
    ['/dev/stdoutx', regular, false],
    ['/tmp', dir, false],
  ])('%s (%#) → %s', (path, info, through) => {
    expect(isWrittenThrough(path, info)).toBe(through);
  });
});
