/**
 * One gzip member per group of pages: a gzip file decompresses to its members one after the other
 * (RFC 1952 §2.2), so every checkpoint falls on the end of a member, where `--resume` goes on.
 */
import type { Destination, PageMark } from './destination.js';

/** The compressions of `--compress` (and of an `--out` ending in `.gz`). */
export const COMPRESSIONS = ['gzip'] as const;

export type Compression = (typeof COMPRESSIONS)[number];

/**
 * A group's text is held until the group is marked written, then written to `inner` as one member and
 * only then marked on it. An export that wrote no member still gets an empty one (valid gzip).
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
