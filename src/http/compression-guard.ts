/**
 * fetch decompresses bodies transparently, so a few kilobytes on the wire can become gigabytes in
 * memory (a "zip bomb"): the bytes received on the socket are counted, and the decompressed stream
 * is stopped once it grows past a ratio of them.
 */
import type { Dispatcher } from 'undici';
import { HostileResponseError } from '../errors.js';

/** Decompressed bytes per byte received. */
const MAX_COMPRESSION_RATIO = 100;
/** bytes: small pages compress well. */
const RATIO_FLOOR_BYTES = 1024 * 1024;

export interface WireCount {
  bytes: number;
}

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

/** An interceptor for undici's `Dispatcher.compose`, one per request. */
export function countWireBytes(count: WireCount): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => dispatch(opts, new CountingHandler(handler, count));
}

/** Errors with a {@link HostileResponseError} (exit 6, not retried), which cancels the body. */
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
