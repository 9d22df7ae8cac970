// The `library` scenario of `npm run bench` (issue «The library»): `collection()` handing 200,000
// invoices to a Node program, with all its guarantees on, against the minimal loop that only
// fetches a page, JSON.parse's it, yields its members and follows `hydra:next`, on the same
// sandbox bytes (library-loop.js is every contender).
import { join } from 'node:path';
import { HERE, KEY, ROUNDS, SIZE, TMP } from './config.js';
import { record, rotate } from './rounds.js';
import { runProcess, startSandbox } from './tools.js';

/** The row names; the first and the last are compared by a target (report.js). */
export const LIBRARY = 'collection() (offset, its defaults)';
const LIBRARY_CURSOR = 'collection() cursor';
export const LIBRARY_MINIMAL = 'minimal loop: fetch, JSON.parse, yield members, follow next';

/** A contender: library-loop.js in `mode`, its output the ids of the items read. */
function loop(name, mode) {
  return {
    name,
    ext: 'ids',
    kind: 'node',
    command: (sb, out) => [process.execPath, [join(HERE, 'library-loop.js'), mode, sb.url, `/taxpayers/${sb.rfc}/invoices`, KEY, out]],
  };
}

export async function library() {
  const n = SIZE.throughput;
  const sb = await startSandbox({ invoices: n, limit: 0 });
  try {
    const contenders = [loop(LIBRARY, 'library'), loop(LIBRARY_CURSOR, 'cursor'), loop(LIBRARY_MINIMAL, 'minimal')];
    // One untimed pass, so every contender meets the same warm item cache.
    const [cmd, args] = contenders[2].command(sb, join(TMP, 'library-warm.ids'));
    const warm = await runProcess(cmd, args, { rss: false });
    if (warm.code !== 0) throw new Error(`warm-up of a ${n}-item sandbox failed: ${warm.stderr}`);
    const runs = await rotate('library', sb, contenders, ROUNDS, { items: n });
    for (const c of contenders) record('library', c.name, runs.get(c.name), { items: n });
  } finally {
    await sb.stop();
  }
}
