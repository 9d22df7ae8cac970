#!/usr/bin/env node
// The "minimal hand-written Node loop" contender of `npm run bench` (issue «As fast as Node allows»):
// what a competent Node user writes without a library. Global fetch (keep-alive by default),
// JSON.parse of each page, JSON.stringify of each item, one write per page to a file stream with
// backpressure, following hydra:next. With --naive-429: on a 429, sleep until X-RateLimit-Reset
// by the LOCAL clock and retry the same URL (no pacing on Remaining, no use of Date).
//
// Usage: node minimal-loop.js URL API_KEY OUT_FILE [--naive-429]
// Prints one JSON line on stdout: { items, pages, requests, status429 }.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const [url, apiKey, outFile, ...flags] = process.argv.slice(2);
const naive429 = flags.includes('--naive-429');
const out = createWriteStream(outFile);
const headers = { Accept: 'application/ld+json', 'X-Api-Key': apiKey };

let next = url;
let items = 0;
let pages = 0;
let requests = 0;
let status429 = 0;
while (next) {
  requests++;
  const res = await fetch(next, { headers });
  if (res.status === 429 && naive429) {
    status429++;
    await res.arrayBuffer();
    const reset = Number(res.headers.get('x-ratelimit-reset')) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, reset - Date.now())));
    continue;
  }
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${next}`);
  const page = JSON.parse(await res.text());
  /** @type {unknown[]} */
  const members = page['hydra:member'] ?? page.member ?? [];
  let text = '';
  for (const item of members) text += JSON.stringify(item) + '\n';
  if (!out.write(text)) await once(out, 'drain');
  items += members.length;
  pages++;
  const link = (page['hydra:view'] ?? page.view ?? {})['hydra:next'] ?? (page['hydra:view'] ?? page.view ?? {}).next;
  next = link ? new URL(link, next).href : undefined;
}
out.end();
await once(out, 'finish');
process.stdout.write(`${JSON.stringify({ items, pages, requests, status429 })}\n`);
