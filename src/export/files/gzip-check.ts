/**
 * The resume check of a gzip partial file (export/files/checkpoint-check.ts `boundaryCheck`): its first
 * `bytes` bytes must be whole gzip members (RFC 1952, section 2.2: members one after the other),
 * each with its header, its deflate data, and the CRC-32 and ISIZE trailer that zlib checks. Loaded
 * only when a gzip export is resumed.
 */
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

/** What the members of a gzip file decompress to, as far as the record boundary check needs. */
export interface GzipEnd {
  /** Decompressed bytes, in total. */
  length: number;
  /** The last decompressed byte; undefined when there is none. */
  lastByte: number | undefined;
}

/** Whether `error` is zlib's: a corrupt or truncated member (`Z_DATA_ERROR`, `Z_BUF_ERROR`…). */
function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * Decompresses the first `bytes` bytes of `file` as a stream (nothing but the last byte is kept)
 * and tells how long the text is and how it ends. `bytes` 0 is an empty file: no member, no text.
 * @param file open for reading; it stays open
 * @param bytes the compressed length a checkpoint counts
 * @returns undefined when those bytes are not whole gzip members: no gzip magic (`1f 8b`) at 0, a
 *   member cut short (the offset is not the end of a member), a CRC-32 or ISIZE mismatch, or bytes
 *   that are no member after the last one
 * @throws the read error of the file (e.g. EIO) as Node gives it
 */
export async function readGzipEnd(file: FileHandle, bytes: number): Promise<GzipEnd | undefined> {
  const end: GzipEnd = { length: 0, lastByte: undefined };
  if (bytes === 0) return end;
  const counter = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (chunk.length > 0) {
        end.length += chunk.length;
        end.lastByte = chunk[chunk.length - 1];
      }
      done();
    },
  });
  try {
    await pipeline(file.createReadStream({ start: 0, end: bytes - 1, autoClose: false }), createGunzip(), counter);
  } catch (error) {
    if (isZlibError(error)) return undefined;
    throw error;
  }
  return end;
}
