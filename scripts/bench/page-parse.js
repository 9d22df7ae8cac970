#!/usr/bin/env node
// Micro-benchmark of reading one collection page (issue 12, point 1): the byte path
// (pagination/page-scan.ts, JSON and NDJSON), the value path (hydra.ts parsePageText: the depth
// guard and one JSON.parse, CSV and table), JSON.parse alone, and decoding the body. Plain Node
// ESM over the build (run `npm run build` first); not part of `npm run bench`.
//
//   node scripts/bench/page-parse.js [--items N] [--runs N]
//
// The page is one the sandbox serves (N invoices, default 1000); each case runs N times (default
// 300) after a warm-up and prints its mean in ms.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
if (!existsSync(join(ROOT, 'dist/pagination/page-scan.js'))) {
  console.error('page-parse: dist/ is missing; run `npm run build` first');
  process.exit(2);
}
const { values } = parseArgs({ options: { items: { type: 'string', default: '1000' }, runs: { type: 'string', default: '300' } } });
const items = Number(values.items);
const runs = Number(values.runs);

const { createSandbox } = await import(join(ROOT, 'dist/sandbox/app.js'));
const { createSandboxFetch } = await import(join(ROOT, 'dist/sandbox/fetch.js'));
const { scanPageText } = await import(join(ROOT, 'dist/pagination/page-scan.js'));
const { parsePageText } = await import(join(ROOT, 'dist/pagination/hydra.js'));

const sandbox = createSandbox({ apiKey: 'bench', limit: 0, sizes: { taxpayers: 1, invoicesPerTaxpayer: items } });
const fetch = createSandboxFetch(sandbox);
const taxpayer = sandbox.taxpayers()[0];
const res = await fetch(`http://127.0.0.1:9/taxpayers/${taxpayer}/invoices?page=1&itemsPerPage=${items}`, { headers: { 'X-Api-Key': 'bench' } });
const bytes = new Uint8Array(await res.arrayBuffer());
const text = new TextDecoder('utf-8').decode(bytes);
if (scanPageText(text)?.members.length !== items) throw new Error('page-parse: the byte path did not read the page');

/** Mean ms of `f` over `runs` calls after a warm-up. */
function time(name, f) {
  for (let i = 0; i < Math.min(50, runs); i++) f();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) f();
  const ms = Number(process.hrtime.bigint() - start) / runs / 1e6;
  console.log(`${name.padEnd(40)} ${ms.toFixed(3)} ms`);
}

console.log(`one page of ${items} invoices, ${bytes.length} bytes, ${runs} runs each`);
time('decode (TextDecoder)', () => new TextDecoder('utf-8').decode(bytes));
time('byte path: scanPageText', () => scanPageText(text));
time('value path: parsePageText', () => parsePageText(text, 'application/ld+json'));
time('JSON.parse alone', () => JSON.parse(text));
const members = scanPageText(text).members;
time('NDJSON join of the item texts', () => members.join('\n'));
