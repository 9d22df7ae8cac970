/**
 * Compressed output, in process on the sandbox: `--out F.gz` and `--compress gzip` write gzip that
 * decompresses (all members, RFC 1952) to exactly the plain export; an interrupted gzip export
 * resumes at a member end; a tampered checkpoint offset is refused; unknown compression suffixes
 * and `--format table` with gzip are usage errors.
 */
import { writeFileSync } from 'node:fs';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runInProcess, interruptAt, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld();

const invoices = (): string[] => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10'];

/**
 * How many gzip members a file holds, walking them: zlib writes a 10-byte header (no optional
 * fields), the deflate data (its length is what raw inflate consumed), an 8-byte trailer.
 */
function memberCount(file: Buffer): number {
  let count = 0;
  for (let at = 0; at < file.length; count += 1) {
    expect([file[at], file[at + 1], file[at + 2], file[at + 3]]).toEqual([0x1f, 0x8b, 0x08, 0x00]);
    const { engine } = inflateRawSync(file.subarray(at + 10), { info: true }) as unknown as { engine: { bytesWritten: number } };
    at += 10 + engine.bytesWritten + 8;
  }
  return count;
}

describe('gzip output', () => {
  // A member per commit: the 4 pages are one group within a second (the fake clock stands still),
  // and one each with COLLECTIONS_CHECKPOINT_MS=0 (a checkpoint per page); JSON's closing `]` is
  // the last member.
  it.each([
    ['ndjson', '', 1],
    ['json', '', 2],
    ['csv', '', 1],
    ['ndjson', '0', 4],
    ['json', '0', 5],
    ['csv', '0', 4],
  ])('%s: F.ext.gz decompresses to the bytes of the plain export, one member per commit (COLLECTIONS_CHECKPOINT_MS=%j)', async (ext, ms, members) => {
    const plain = await runInProcess(world, dir, [...invoices(), '--max-items', '35', '--out', `plain.${ext}`]);
    expect(plain.code, plain.stderr).toBe(0);
    const env = ms === '' ? {} : { COLLECTIONS_CHECKPOINT_MS: ms };
    const r = await runInProcess(world, dir, [...invoices(), '--max-items', '35', '--out', `x.${ext}.gz`], { env });
    expect(r.code, r.stderr).toBe(0);
    const gz = dir.read(`x.${ext}.gz`);
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
    expect(gunzipSync(gz).equals(dir.read(`plain.${ext}`))).toBe(true);
    expect(memberCount(gz)).toBe(members);
    expect(dir.has(`x.${ext}.gz.part`) || dir.has(`x.${ext}.gz.checkpoint.json`)).toBe(false);
  });

  it('--compress gzip compresses any --out, and stdout', async () => {
    const plain = await runInProcess(world, dir, [...invoices(), '--max-items', '25', '--format', 'csv']);
    const file = await runInProcess(world, dir, [...invoices(), '--max-items', '25', '--compress', 'gzip', '--out', 'x.csv']);
    expect(file.code, file.stderr).toBe(0);
    expect(gunzipSync(dir.read('x.csv')).toString()).toBe(plain.stdout);
    const out = await runInProcess(world, dir, [...invoices(), '--max-items', '25', '--format', 'csv', '--compress', 'gzip']);
    expect(out.code, out.stderr).toBe(0);
    expect(gunzipSync(Buffer.concat(out.t.stdout.chunks)).toString()).toBe(plain.stdout);
  });

  it('an empty export is one empty member, valid gzip', async () => {
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--cursor',
      '--param',
      'total[gt]=1000000000',
      '--out',
      'e.ndjson.gz',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const gz = dir.read('e.ndjson.gz');
    expect(gz.length).toBeGreaterThan(0);
    expect(gunzipSync(gz).length).toBe(0);
  });

  it('an interrupted gzip export resumes at the last member end and decompresses to the plain bytes', async () => {
    const plain = await runInProcess(world, dir, [...invoices(), '--out', 'plain.ndjson']);
    const first = await runInProcess(world, dir, [...invoices(), '--out', 'x.ndjson.gz'], interruptAt(4));
    expect(first.code).toBe(130);
    const checkpoint = JSON.parse(dir.read('x.ndjson.gz.checkpoint.json').toString()) as { bytes: number; items: number; fingerprint: object };
    expect(checkpoint.fingerprint).toMatchObject({ compress: 'gzip', format: 'ndjson' });
    expect(checkpoint.items).toBe(30);
    const part = dir.read('x.ndjson.gz.part');
    // The checkpoint's offset is the end of a member: the bytes before it decompress on their own.
    expect(gunzipSync(part.subarray(0, checkpoint.bytes)).toString().split('\n')).toHaveLength(31);
    // Bytes written after the checkpoint (a torn member) are cut by the resume.
    writeFileSync(dir.file('x.ndjson.gz.part'), Buffer.concat([part.subarray(0, checkpoint.bytes), Buffer.from([0x1f, 0x8b, 0x08, 0x00])]));
    const resumed = await runInProcess(world, dir, [...invoices(), '--out', 'x.ndjson.gz', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^collections: resuming after 30 items \(3 pages\)$/m);
    expect(gunzipSync(dir.read('x.ndjson.gz')).equals(dir.read('plain.ndjson'))).toBe(true);
    expect(plain.code).toBe(0);
  });

  it.each([
    ['inside a member', -3],
    ['past the end of a member', 0],
  ])('--resume refuses a checkpoint whose offset is %s (exit 2) and keeps the files', async (_what, shift) => {
    const first = await runInProcess(world, dir, [...invoices(), '--out', 'x.ndjson.gz'], interruptAt(4));
    expect(first.code).toBe(130);
    const path = dir.file('x.ndjson.gz.checkpoint.json');
    const checkpoint = JSON.parse(dir.read('x.ndjson.gz.checkpoint.json').toString()) as { bytes: number };
    const part = dir.read('x.ndjson.gz.part');
    if (shift === 0) writeFileSync(dir.file('x.ndjson.gz.part'), Buffer.concat([part, Buffer.from('torn')]));
    const bytes = shift === 0 ? checkpoint.bytes + 2 : checkpoint.bytes + shift;
    writeFileSync(path, JSON.stringify({ ...checkpoint, bytes }));
    const before = dir.read('x.ndjson.gz.part');
    const r = await runInProcess(world, dir, [...invoices(), '--out', 'x.ndjson.gz', '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`checkpoint does not match the partial file: byte ${bytes} of .*x\\.ndjson\\.gz\\.part is not the end of a gzip member`),
    );
    expect(dir.read('x.ndjson.gz.part').equals(before)).toBe(true);
    expect(r.requests).toHaveLength(0);
  });

  it('--resume with gzip checks the options: a plain resume of a gzip checkpoint is refused', async () => {
    await runInProcess(world, dir, [...invoices(), '--out', 'x.ndjson', '--compress', 'gzip'], interruptAt(3));
    const r = await runInProcess(world, dir, [...invoices(), '--out', 'x.ndjson', '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--resume with different options than the interrupted export \(its ≠ this run's\): --compress gzip ≠ not given;/);
  });
});

describe('compression usage errors (exit 2, nothing sent)', () => {
  it.each(['x.ndjson.zst', 'x.csv.bz2', 'x.json.xz', 'x.zip', 'X.NDJSON.BR'])('--out %s names gzip as the supported one', async (out) => {
    const r = await runInProcess(world, dir, [...invoices(), '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/compression is not supported; the supported one is gzip/);
    expect(r.requests).toHaveLength(0);
    expect(dir.has(out)).toBe(false);
  });

  it('--compress with another type is refused by its choices', async () => {
    const r = await runInProcess(world, dir, [...invoices(), '--compress', 'zstd', '--out', 'x.ndjson']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gzip/);
    expect(r.requests).toHaveLength(0);
  });

  it('gzip to stdout on a terminal', async () => {
    const r = await runInProcess(world, dir, [...invoices(), '--compress', 'gzip'], { stdoutIsTTY: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gzip output is not written to a terminal/);
    expect(r.stdout).toBe('');
    expect(r.requests).toHaveLength(0);
  });

  it.each([
    ['--out', 'x.gz'],
    ['--compress', 'gzip'],
  ])('--format table with %s %s', async (flag, value) => {
    const r = await runInProcess(world, dir, [...invoices(), '--format', 'table', flag, value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--format table cannot be compressed/);
    expect(r.requests).toHaveLength(0);
  });
});
