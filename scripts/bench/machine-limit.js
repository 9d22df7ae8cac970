#!/usr/bin/env node
// "The limit of the machine" contender of `npm run bench` (issue «The real wire»): the least work a
// client can do and still fetch every page. It reads the first page's total with one regular
// expression (no JSON.parse), then fetches the remaining offset pages 4 at a time (keep-alive
// fetch) and writes each page's body to the file in page order, as bytes, without parsing,
// decoding or splitting it. Its output is bodies, not NDJSON; what separates it from our NDJSON
// contender is the parsing and writing of items, and the durability of `--out`.
//
// Usage: node machine-limit.js URL API_KEY OUT_FILE  (URL with itemsPerPage; `page` is added)
// Prints one JSON line on stdout: { pages, bytes, totalItems }.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const [url, apiKey, outFile] = process.argv.slice(2);
const IN_FLIGHT = 4;
const headers = { Accept: 'application/ld+json', 'X-Api-Key': apiKey };
const out = createWriteStream(outFile);
const pageUrl = (n) => {
  const u = new URL(url);
  u.searchParams.set('page', String(n));
  return u.href;
};
const body = async (n) => {
  const res = await fetch(pageUrl(n), { headers });
  if (!res.ok) throw new Error(`HTTP ${res.status} for page ${n}`);
  return Buffer.from(await res.arrayBuffer());
};

const first = await body(1);
// The only read of a body: `"hydra:totalItems":N` (or unprefixed), in its first bytes.
const head = first.subarray(0, 512).toString('latin1');
const totalItems = Number(/"(?:hydra:)?totalItems":\s*(\d+)/.exec(head)?.[1] ?? NaN);
const perPage = Number(new URL(url).searchParams.get('itemsPerPage') ?? 30);
if (!Number.isFinite(totalItems)) throw new Error('no totalItems on the first page');
const pages = Math.max(1, Math.ceil(totalItems / perPage));
let bytes = first.length;
if (!out.write(first)) await once(out, 'drain');
for (let n = 2; n <= pages; n += IN_FLIGHT) {
  const batch = [];
  for (let k = n; k < n + IN_FLIGHT && k <= pages; k++) batch.push(body(k));
  for (const b of await Promise.all(batch)) {
    bytes += b.length;
    if (!out.write(b)) await once(out, 'drain');
  }
}
out.end();
await once(out, 'finish');
process.stdout.write(`${JSON.stringify({ pages, bytes, totalItems })}\n`);
