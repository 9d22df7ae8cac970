/**
 * Reading a response body within bounds (README, "Security and safety"): the body is streamed and
 * its decoded (decompressed) bytes counted while they arrive, so an endless or oversized body is
 * stopped at the limit instead of being buffered whole.
 */
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
  const body = res.body;
  if (body === null) return '';
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
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks, total));
}
