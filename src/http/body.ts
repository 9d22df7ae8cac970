/**
 * Reading a response body within bounds (docs/security.md, "Security and safety"): the body is streamed and
 * its decoded (decompressed) bytes counted while they arrive, so an endless or oversized body is
 * stopped at the limit instead of being buffered whole.
 */
import { isUtf8 } from 'node:buffer';
import { HostileResponseError } from '../errors.js';

/** Default largest body accepted per response, bytes (256 MiB; README, `--max-body-size`). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;

/** `n` bytes in the largest binary unit that divides it (`8 MiB`, `1536 KiB`, `100 bytes`). */
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

/**
 * Reads a body as UTF-8 text (as `Response.text()` does: a leading BOM is dropped, invalid
 * sequences become U+FFFD), counting its bytes as they arrive.
 * @param maxBytes the largest body accepted, bytes
 * @param what how to name the response in the message, e.g. `GET /entities?page=2`
 * @throws {HostileResponseError} (exit 6) as soon as more than `maxBytes` bytes arrived; the rest
 *   of the body is cancelled, never read
 * @throws what the stream throws (a network error, an abort, the transport's ratio guard)
 */
export async function readBoundedText(res: Response, maxBytes: number, what: string): Promise<string> {
  return new TextDecoder('utf-8').decode(await readBoundedBytes(res, maxBytes, what));
}

/** A body read by {@link readBoundedByteText}. */
export interface ByteText {
  /** The body: its bytes one per UTF-16 code unit when {@link byteText}, else decoded as UTF-8. */
  text: string;
  /** Whether `text` holds the bytes (Latin-1 reading: `Buffer.from(text, 'latin1')` gives them back). */
  byteText: boolean;
}

/**
 * Reads a body as a "byte text" when it is valid UTF-8 without a BOM: a string with one code unit
 * per byte (`latin1`), so that slices of it written back as `latin1` are the received bytes, and
 * character offsets are byte offsets. Our own code because it is the hot path (every page, ~1 MB):
 * a Latin-1 read is a plain copy into a one-byte string, several times cheaper than decoding UTF-8
 * (`TextDecoder`), and the slices need no re-encoding on output. JSON's structural characters are
 * ASCII and every byte of a multi-byte UTF-8 sequence is 0x80 or more, so a JSON scanner reads the
 * byte text as it reads the text (RFC 8259 §8.1, RFC 3629 §3). Any other body (a BOM, invalid
 * UTF-8) is decoded as {@link readBoundedText} does, `byteText` false.
 * @param asBytes false: always decode, as {@link readBoundedText} does
 * @throws what {@link readBoundedText} throws
 */
export async function readBoundedByteText(res: Response, maxBytes: number, what: string, asBytes = true): Promise<ByteText> {
  const bytes = await readBoundedBytes(res, maxBytes, what);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (asBytes && !bom && isUtf8(bytes)) return { text: bytes.toString('latin1'), byteText: true };
  return { text: new TextDecoder('utf-8').decode(bytes), byteText: false };
}

/** The body's bytes (see {@link readBoundedText} for the bounds and errors). */
async function readBoundedBytes(res: Response, maxBytes: number, what: string): Promise<Buffer> {
  const body = res.body;
  if (body === null) return Buffer.alloc(0);
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new HostileResponseError(`the response to ${what} is larger than ${describeBytes(maxBytes)}`, {
          hint: 'raise --max-body-size if the API really sends pages that large',
        });
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, total);
}
