import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileSink, FILE_SINK_HIGH_WATER_BYTES } from '../../../../src/export/files/file-sink.js';
import { sidecarPaths } from '../../../../src/export/files/sidecar.js';
import { OutputError, UsageError } from '../../../../src/errors.js';
import { failingFs } from '../../../helpers/failing-fs.js';

let dir: string;
let target: string;
let sidecar: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collections-sink-'));
  target = join(dir, 'invoices.ndjson');
  sidecar = sidecarPaths(target).sidecar;
});

afterEach(async () => {
  await chmod(dir, 0o700).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe('createFileSink', () => {
  it("writes to the sidecar, leaves the target (yesterday's export) untouched until commit, then renames", async () => {
    await writeFile(target, 'yesterday\n');
    const sink = await createFileSink({ target, sidecar });
    await sink.write('{"a":1}\n');
    await sink.write('{"ñ":"日本"}\n');
    await sink.sync();
    expect(await readFile(target, 'utf8')).toBe('yesterday\n');
    expect(await readFile(sidecar, 'utf8')).toBe('{"a":1}\n{"ñ":"日本"}\n');
    expect(sink.bytes).toBe(Buffer.byteLength('{"a":1}\n{"ñ":"日本"}\n'));
    expect(sink.name).toBe(target);
    await sink.commit();
    expect(await readFile(target, 'utf8')).toBe('{"a":1}\n{"ñ":"日本"}\n');
    expect(await readdir(dir)).toEqual(['invoices.ndjson']);
  });

  it('truncates a stale sidecar when starting afresh', async () => {
    await writeFile(sidecar, 'old partial export that is longer');
    const sink = await createFileSink({ target, sidecar });
    await sink.write('new');
    await sink.commit();
    expect(await readFile(target, 'utf8')).toBe('new');
  });

  it('abort closes and keeps the sidecar for --resume, and never throws', async () => {
    const sink = await createFileSink({ target, sidecar });
    await sink.write('page 1\n');
    await sink.abort();
    await sink.abort();
    expect(await readFile(sidecar, 'utf8')).toBe('page 1\n');
    await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('resume truncates the sidecar to the checkpointed length and continues from there', async () => {
    await writeFile(sidecar, 'page 1\npage 2 half-writ');
    const sink = await createFileSink({ target, sidecar, resumeAtBytes: 7 });
    expect(sink.bytes).toBe(7);
    await sink.write('page 2\n');
    expect(sink.bytes).toBe(14);
    await sink.commit();
    expect(await readFile(target, 'utf8')).toBe('page 1\npage 2\n');
  });

  it('refuses to resume from a sidecar shorter than the checkpoint, or a missing one', async () => {
    await writeFile(sidecar, 'short');
    await expect(createFileSink({ target, sidecar, resumeAtBytes: 100 })).rejects.toThrow(UsageError);
    await expect(createFileSink({ target, sidecar, resumeAtBytes: 100 })).rejects.toThrow(/checkpoint does not match the partial file/);
    expect(await readFile(sidecar, 'utf8')).toBe('short');
    await rm(sidecar);
    await expect(createFileSink({ target, sidecar, resumeAtBytes: 0 })).rejects.toThrow(UsageError);
  });

  it('refuses a target that is a folder with an OutputError naming it, touching nothing', async () => {
    await mkdir(target);
    const error = await createFileSink({ target, sidecar }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as OutputError).exitCode).toBe(7);
    expect((error as Error).message).toContain(target);
    expect((error as Error).message).not.toContain('\n');
    await expect(stat(sidecar)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a sidecar path that is a folder, and a missing folder', async () => {
    await mkdir(sidecar);
    await expect(createFileSink({ target, sidecar })).rejects.toThrow(OutputError);
    const elsewhere = join(dir, 'no-such-folder', 'x.csv');
    await expect(createFileSink({ target: elsewhere, sidecar: `${elsewhere}.part` })).rejects.toThrow(/does not exist/);
  });

  it.skipIf(process.getuid?.() === 0 || process.platform === 'win32')('refuses an unwritable folder with an OutputError', async () => {
    await chmod(dir, 0o500);
    const error = await createFileSink({ target, sidecar }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toMatch(/not writable/);
    expect((error as Error).message).toContain(dir);
  });

  it('maps a failing write to an OutputError naming the file (here: writing after the handle closed)', async () => {
    const sink = await createFileSink({ target, sidecar });
    await sink.abort();
    const error = await sink.write('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toContain(sidecar);
  });

  it('maps ENOSPC (disk full) to an OutputError', async () => {
    const fs = failingFs({ code: 'ENOSPC' });
    const sink = await createFileSink({ target, sidecar, fs });
    // Writes are queued: the failure comes from the next write, sync or commit.
    const error = await sink
      .write('data')
      .then(() => sink.sync())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as Error).message).toMatch(/no space left/);
    await sink.abort();
  });

  describe('write queue', () => {
    it('counts accepted bytes at once; sync() returns only once every queued byte is in the file, in order', async () => {
      const sink = await createFileSink({ target, sidecar });
      const pages = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(3, '0')}:${'é'.repeat(1000)}\n`);
      let expected = 0;
      for (const p of pages) {
        await sink.write(p);
        expected += Buffer.byteLength(p);
        expect(sink.bytes).toBe(expected);
      }
      await sink.sync();
      expect(await readFile(sidecar, 'utf8')).toBe(pages.join(''));
      await sink.commit();
      expect(await readFile(target, 'utf8')).toBe(pages.join(''));
    });

    it('applies backpressure: a write that takes the queue past the high-water mark waits until it is written', async () => {
      const sink = await createFileSink({ target, sidecar });
      const big = 'x'.repeat(FILE_SINK_HIGH_WATER_BYTES + 1);
      await sink.write(big);
      expect((await stat(sidecar)).size).toBe(big.length);
      await sink.abort();
    });

    it('reports a failed queued write from the next call and writes nothing after it', async () => {
      const sink = await createFileSink({ target, sidecar: '/dev/full' }).catch(() => undefined);
      if (sink === undefined) return; // /dev/full's folder is not writable here (not root)
      await sink.write('first');
      const error = await sink
        .write('second')
        .then(() => sink.sync())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputError);
      await expect(sink.write('third')).rejects.toBe(error);
      await expect(sink.commit()).rejects.toBe(error);
      await sink.abort();
    });
  });
});
