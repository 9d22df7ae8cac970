import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileSink } from '../../../../src/export/files/file-sink.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collections-digest-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('the digest of a file sink', () => {
  it('is the length and SHA-256 of the published file, hashed as the bytes were written', async () => {
    const target = join(dir, 'x.ndjson');
    const sink = await createFileSink({ target, sidecar: `${target}.part` });
    await sink.write('{"a":1}\n');
    await sink.write('{"ñ":"日本"}\n');
    await sink.commit();
    const file = await readFile(target);
    expect(sink.digest()).toEqual({ bytes: file.length, sha256: sha256(file) });
  });

  it('on resume, hashes the kept prefix first (read back after the truncation)', async () => {
    const target = join(dir, 'x.ndjson');
    await writeFile(`${target}.part`, 'page 1\npage 2 half-writ');
    const sink = await createFileSink({ target, sidecar: `${target}.part`, resumeAtBytes: 7 });
    await sink.write('page 2\n');
    await sink.commit();
    const file = await readFile(target);
    expect(file.toString()).toBe('page 1\npage 2\n');
    expect(sink.digest()).toEqual({ bytes: file.length, sha256: sha256(file) });
  });
});
