import { describe, expect, it } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import { BrokenPipeError, createStreamSink } from '../../../src/output/stream-sink.js';
import { OutputError } from '../../../src/errors.js';

/** A writable whose writes fail with the given error code, as stdout does once `head` has exited. */
function failingStream(code: string): Writable {
  return new Writable({
    write(_chunk, _enc, cb) {
      cb(Object.assign(new Error(`write ${code}`), { code }));
    },
  });
}

/** A slow reader: tiny buffer, every chunk acknowledged only when `release()` is called. */
function slowStream(): { stream: Writable; chunks: string[]; release: () => void } {
  const chunks: string[] = [];
  const pending: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      pending.push(cb);
    },
  });
  return {
    stream,
    chunks,
    release: () => {
      for (const cb of pending.splice(0)) cb();
    },
  };
}

describe('createStreamSink', () => {
  it('writes text, counts bytes as UTF-8 and commits once flushed', async () => {
    const out = new PassThrough();
    const got: Buffer[] = [];
    out.on('data', (c: Buffer) => got.push(c));
    const sink = createStreamSink(out);
    await sink.write('{"a":"ñ"}\n');
    await sink.write('');
    await sink.write('日本\n');
    await sink.sync();
    await sink.commit();
    expect(Buffer.concat(got).toString()).toBe('{"a":"ñ"}\n日本\n');
    expect(sink.bytes).toBe(Buffer.byteLength('{"a":"ñ"}\n日本\n'));
    expect(sink.name).toBe('stdout');
  });

  it('waits for drain when the reader is slow, and commit waits until the last chunk is taken', async () => {
    const { stream, chunks, release } = slowStream();
    const sink = createStreamSink(stream);
    let wrote = false;
    const writing = sink.write('a long page of text').then(() => {
      wrote = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(wrote).toBe(false);
    release();
    await writing;
    expect(wrote).toBe(true);
    await sink.write('x');
    let committed = false;
    const committing = sink.commit().then(() => {
      committed = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(committed).toBe(false);
    release();
    await committing;
    expect(chunks.join('')).toBe('a long page of textx');
  });

  it.each(['EPIPE', 'ERR_STREAM_DESTROYED'])('turns %s into BrokenPipeError', async (code) => {
    const sink = createStreamSink(failingStream(code));
    // The error arrives after the write was accepted; the next write or the commit reports it.
    const first = await sink
      .write('page 1\n')
      .then(() => sink.commit())
      .catch((e: unknown) => e);
    expect(first).toBeInstanceOf(BrokenPipeError);
    await expect(sink.write('page 2\n')).rejects.toBeInstanceOf(BrokenPipeError);
    await sink.abort();
  });

  it('turns a write into a destroyed stream into BrokenPipeError instead of hanging', async () => {
    const out = new PassThrough({ highWaterMark: 1 });
    const sink = createStreamSink(out);
    out.destroy();
    const error = await sink
      .write('x'.repeat(100))
      .then(() => sink.commit())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokenPipeError);
  });

  it('turns other stream errors into OutputError (exit 7)', async () => {
    const sink = createStreamSink(failingStream('EIO'));
    const error = await sink
      .write('x')
      .then(() => sink.commit())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputError);
    expect((error as OutputError).exitCode).toBe(7);
    expect((error as Error).message).toMatch(/cannot write to stdout/);
  });

  it('survives an error event after abort (no unhandled error)', async () => {
    const out = new PassThrough();
    const sink = createStreamSink(out);
    await sink.abort();
    out.emit('error', Object.assign(new Error('late'), { code: 'EPIPE' }));
  });
});
