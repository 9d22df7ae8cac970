/** A body is streamed and its decompressed bytes counted as they arrive, so an endless one stops at the limit. */
import { isUtf8 } from 'node:buffer';
import { HostileResponseError, hint, option } from '../errors.js';

/** bytes (README, `--max-body-size`) */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;

/** In the largest binary unit that divides it: `8 MiB`, `1536 KiB`, `100 bytes`. */
function describeBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${n} bytes`;
}

export interface ByteText {
  text: string;
  /** `text` holds the bytes: `Buffer.from(text, 'latin1')` gives them back. */
  byteText: boolean;
}

/**
 * A body valid as UTF-8 without a BOM is read as a "byte text", one code unit per byte: on the hot
 * path (every page, ~1 MB) a Latin-1 read is a plain copy, cheaper than decoding UTF-8, and its
 * slices need no re-encoding on output. JSON's structural characters are ASCII and every byte of a
 * multi-byte UTF-8 sequence is 0x80 or more, so a JSON scanner reads it as it reads the text (RFC
 * 8259 §8.1, RFC 3629 §3). Other bodies are decoded as `Response.text()` does (BOM dropped, U+FFFD).
 * @param what names the response in the message, e.g. `GET /entities?page=2`
 * @param asBytes false: always decode
 * @throws {HostileResponseError} (exit 6) as soon as more than `maxBytes` bytes arrived; the rest is never read
 * @throws what the stream throws (a network error, an abort, the transport's ratio guard)
 */
export async function readBoundedByteText(res: Response, maxBytes: number, what: string, asBytes = true): Promise<ByteText> {
  const bytes = await readBoundedBytes(res, maxBytes, what);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (asBytes && !bom && isUtf8(bytes)) return { text: bytes.toString('latin1'), byteText: true };
  return { text: new TextDecoder('utf-8').decode(bytes), byteText: false };
}

async function readBoundedBytes(res: Response, maxBytes: number, what: string): Promise<Buffer> {
  const body = res.body;
  if (body === null) return Buffer.alloc(0);
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new HostileResponseError(`the response to ${what} is larger than ${describeBytes(maxBytes)}`, {
          hint: hint`raise ${option('maxBodyBytes')} if the API really sends pages that large`,
        });
      }
      chunks.push(value);
    }
  } finally {
    // An ended stream has nothing left to hand over. Node's first `releaseLock()` builds the error for
    // reads still pending in a new VM context: slow (test/bench/results.md, «Start-up: the HTTP
    // parser compiled ahead»).
    if (!ended) reader.releaseLock();
  }
  return Buffer.concat(chunks, total);
}
