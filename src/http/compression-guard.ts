/**
 * The compression-ratio guard of the transport (docs/security.md, "Security and safety"): fetch decompresses
 * `Content-Encoding: gzip`/`deflate`/`br` bodies transparently, so a few kilobytes on the wire can
 * become gigabytes in memory (a "zip bomb"). The bytes received on the socket are counted by a
 * dispatcher interceptor ({@link countWireBytes}); the decompressed stream is checked against them
 * ({@link guardCompressionRatio}) and stopped once it grows past the ratio.
 */
import type { Dispatcher } from 'undici';
import { HostileResponseError } from '../errors.js';

/** Decompressed bytes per byte received accepted, once past {@link RATIO_FLOOR_BYTES}. */
const MAX_COMPRESSION_RATIO = 100;
/** Decompressed bytes below which the ratio is not checked (small pages compress well), bytes (1 MiB). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/** Bytes of one response's body as received on the socket (before decompression). */
export interface WireCount {
  bytes: number;
}

/** Passes every callback on to the inner handler, counting the body bytes as they arrive. */
class CountingHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly count: WireCount,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.inner.onResponseStart?.(...args);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.count.bytes += chunk.byteLength;
    this.inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.inner.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.inner.onResponseError?.(...args);
  }
}

/**
 * A dispatcher interceptor (undici's `Dispatcher.compose`) adding the body bytes of every response
 * it sees, as received on the socket, to `count`. Compose one per request.
 */
export function countWireBytes(count: WireCount): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => dispatch(opts, new CountingHandler(handler, count));
}

/**
 * A pass-through stream of a decompressed body that errors with a {@link HostileResponseError}
 * (exit 6, not retried) once more than {@link RATIO_FLOOR_BYTES} came out and they are more than
 * {@link MAX_COMPRESSION_RATIO} times the bytes received (`wire`); erroring cancels the body.
 * @param what names the response in the message, e.g. `GET /entities?page=2`
 */
export function guardCompressionRatio(wire: WireCount, what: string): TransformStream<Uint8Array, Uint8Array> {
  let decoded = 0;
  return new TransformStream({
    transform(chunk, controller) {
      decoded += chunk.byteLength;
      if (decoded > RATIO_FLOOR_BYTES && decoded > MAX_COMPRESSION_RATIO * Math.max(1, wire.bytes)) {
        throw new HostileResponseError(
          `the response to ${what} decompresses to more than ${MAX_COMPRESSION_RATIO} times its size (a compression bomb?)`,
          { hint: 'the server sent a body no collection page needs; not retried' },
        );
      }
      controller.enqueue(chunk);
    },
  });
}
