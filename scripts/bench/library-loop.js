#!/usr/bin/env node
// The contenders of the `library` scenario of `npm run bench` (issue «The library»): the items of a
// collection handed to a Node program, counted and their `id`s kept, and nothing else.
//   library   collection() of the built package (dist/index.js), with its defaults: offset mode,
//             4 pages in flight, pacing, waits, retries, the origin rule, loop guards, exact texts
//   cursor    the same in cursor mode (the next page fetched while the caller works)
//   minimal   what a competent Node user writes without it: an async generator that fetches a
//             page (global fetch), JSON.parse's it, yields its members and follows `hydra:next`
//
// Usage: node library-loop.js library|cursor|minimal BASE_URL PATH API_KEY OUT_FILE
// Writes the ids, one a line, to OUT_FILE (so the harness checks both read the same items) and
// prints one JSON line on stdout: { items }.
import { writeFileSync } from 'node:fs';

const [mode, baseUrl, path, apiKey, outFile] = process.argv.slice(2);

/** The minimal loop: fetch, JSON.parse, yield the members, follow next. */
async function* minimal(url) {
  const headers = { Accept: 'application/ld+json', 'X-Api-Key': apiKey };
  for (let next = url; next;) {
    const res = await fetch(next, { headers });
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${next}`);
    const page = JSON.parse(await res.text());
    yield* page['hydra:member'] ?? page.member ?? [];
    const view = page['hydra:view'] ?? page.view ?? {};
    const link = view['hydra:next'] ?? view.next;
    next = link ? new URL(link, next).href : undefined;
  }
}

async function items() {
  if (mode === 'minimal') return minimal(`${baseUrl}${path}?itemsPerPage=1000`);
  const { collection } = await import(new URL('../../dist/index.js', import.meta.url).href);
  return collection(path, { baseUrl, apiKey, cursor: mode === 'cursor' });
}

const ids = [];
for await (const item of await items()) ids.push(item.id);
writeFileSync(outFile, ids.length > 0 ? `${ids.join('\n')}\n` : '');
process.stdout.write(`${JSON.stringify({ items: ids.length })}\n`);
