/**
 * Compressed output (docs/files.md, "Compressed output"): one gzip member per group of pages. A
 * gzip file decompresses to its members' contents one after the other (RFC 1952 §2.2), so every
 * checkpoint falls on the end of a member: `--resume` truncates the partial file there and goes on
 * with a new member.
 */
import type { Destination, PageMark } from './destination.js';

/** The compressions of `--compress` (and of an `--out` ending in `.gz`). */
export const COMPRESSIONS = ['gzip'] as const;

export type Compression = (typeof COMPRESSIONS)[number];

/**
 * Wraps `inner` so that it receives gzip members: the text of a group of pages is held until the
 * group is marked written, then compressed into one member, written to `inner`, and only then
 * marked on `inner` (so a checkpoint counts the compressed bytes up to the end of that member). An
 * export that wrote no member (an empty NDJSON or CSV export) still gets one empty member, so the
 * file is valid gzip. `abort()` drops text not yet compressed: no checkpoint counts it. Without
 * `compress`, `inner` itself (and no zlib loaded).
 * @throws what `inner` throws (OutputError, exit 7; BrokenPipeError on stdout)
 */
export async function withCompression(inner: Destination, compress: Compression | undefined): Promise<Destination> {
  if (compress === undefined) return inner;
  const zlib = await import('node:zlib');
  const { promisify } = await import('node:util');
  const gzip: (text: Buffer) => Promise<Buffer> = promisify(zlib.gzip);
  let pending: Buffer[] = [];
  // Whether the file holds a member: one written by this run, or resumed bytes (whole members).
  let hasMember = (inner.resumed?.bytes ?? 0) > 0;
  const take = (): Buffer => {
    const text = Buffer.concat(pending);
    pending = [];
    return text;
  };
  const endMember = async (): Promise<void> => {
    const text = take();
    if (text.length === 0) return;
    const member = await gzip(text);
    hasMember = true;
    await inner.write(member);
  };
  const digest = inner.digest?.bind(inner);
  return {
    name: inner.name,
    resumed: inner.resumed,
    // The digest of the members as stored; without it the manifest of a compressed file would never be written.
    ...(digest ? { digest } : {}),
    write(text) {
      pending.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
      return Promise.resolve();
    },
    async pageWritten(mark: PageMark) {
      await endMember();
      await inner.pageWritten(mark);
    },
    settle: () => inner.settle(),
    async finish(text) {
      pending.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
      const last = take();
      await inner.finish(last.length > 0 || !hasMember ? await gzip(last) : '');
    },
    async abort(wrotePage) {
      pending = [];
      await inner.abort(wrotePage);
    },
  };
}
