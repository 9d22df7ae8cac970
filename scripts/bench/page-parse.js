#!/usr/bin/env node
// Micro-benchmark of reading one collection page: the page reader (pagination/page-scan.ts, one
// scan for the envelope and the members' texts), the members' values (CSV, table, `--fields`), the
// NDJSON copy of the texts, against JSON.parse and a naive loop (JSON.parse the page, JSON.stringify
// each member), on three encodings of the same page: JSON.stringify's bytes, API Platform's
// (`\/`, `\u0026`…, test/helpers/api-platform-json.js) and API Platform's pretty-printed (debug
// mode). Plain Node ESM over the build (run `npm run build` first); not part of `npm run bench`.
//
//   node scripts/bench/page-parse.js [--items N] [--runs N] [--encoding stringify|api|pretty]
//
// One encoding per process gives the figures of an export, whose pages all share one encoding (in
// one process, the code V8 optimised for the first encoding runs the others slower).
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
const { values } = parseArgs({
  options: { items: { type: 'string', default: '1000' }, runs: { type: 'string', default: '300' }, encoding: { type: 'string' } },
});
const items = Number(values.items);
const runs = Number(values.runs);

const { createSandbox } = await import(join(ROOT, 'dist/sandbox/app.js'));
const { createSandboxFetch } = await import(join(ROOT, 'dist/sandbox/fetch.js'));
const { scanPageText } = await import(join(ROOT, 'dist/pagination/page-scan.js'));
const { joinBytes } = await import(join(ROOT, 'dist/output/formats/ndjson.js'));
const { csv } = await import(join(ROOT, 'dist/output/formats/csv.js'));
const createCsvFormatter = csv.create;
const { encodeApiPlatform } = await import(join(ROOT, 'test/helpers/api-platform-json.js'));

const sandbox = createSandbox({ apiKey: 'bench', limit: 0, sizes: { taxpayers: 1, invoicesPerTaxpayer: items } });
const fetch = createSandboxFetch(sandbox);
const taxpayer = sandbox.taxpayers()[0];
const res = await fetch(`http://127.0.0.1:9/taxpayers/${taxpayer}/invoices?page=1&itemsPerPage=${items}`, { headers: { 'X-Api-Key': 'bench' } });
const stringified = Buffer.from(await res.arrayBuffer());
const value = JSON.parse(stringified.toString('utf8'));
const all = {
  stringify: ['JSON.stringify', () => stringified],
  api: ['API Platform', () => Buffer.from(encodeApiPlatform(value), 'utf8')],
  pretty: ['API Platform, pretty', () => Buffer.from(encodeApiPlatform(value, { pretty: true }), 'utf8')],
};
const chosen = values.encoding === undefined ? Object.keys(all) : [values.encoding];
if (!chosen.every((k) => k in all)) {
  console.error('page-parse: --encoding is stringify, api or pretty');
  process.exit(2);
}
const encodings = Object.fromEntries(chosen.map((k) => [all[k][0], all[k][1]()]));

/** Mean ms of `f` over `runs` calls after a warm-up. */
function time(name, f) {
  for (let i = 0; i < Math.min(50, runs); i++) f();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) f();
  const ms = Number(process.hrtime.bigint() - start) / runs / 1e6;
  console.log(`  ${name.padEnd(46)} ${ms.toFixed(3)} ms`);
  return ms;
}

console.log(`one page of ${items} invoices, ${runs} runs each`);
for (const [name, bytes] of Object.entries(encodings)) {
  const byteText = bytes.toString('latin1');
  const check = scanPageText(byteText, true);
  if (check?.members.length !== items) throw new Error(`page-parse: the reader did not read the ${name} page`);
  console.log(`${name}: ${bytes.length} bytes`);
  const naive = time('naive: decode, JSON.parse, JSON.stringify each', () => {
    const page = JSON.parse(bytes.toString('utf8'));
    const lines = (page.member ?? page['hydra:member']).map((m) => JSON.stringify(m));
    return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  });
  time('JSON.parse alone (decoded)', () => JSON.parse(bytes.toString('utf8')));
  time('latin1 read of the body', () => bytes.toString('latin1'));
  const scan = time('reader: scanPageText', () => scanPageText(byteText, true));
  const ndjson = time('NDJSON: latin1 read, scan, joinBytes', () => {
    const texts = scanPageText(bytes.toString('latin1'), true).members.texts();
    return joinBytes(texts, '', '\n', '\n');
  });
  const values = time('values: latin1 read, scan, values()', () => scanPageText(bytes.toString('latin1'), true).members.values());
  // CSV after its header page, as every page but the first of an export: the columns are known.
  const csv = createCsvFormatter();
  csv.page(check.members);
  const csvMs = time('CSV: latin1 read, scan, csv page', () => csv.page(scanPageText(bytes.toString('latin1'), true).members));
  console.log(`  → NDJSON ${(naive / ndjson).toFixed(2)}x the naive loop; values ${(values / scan).toFixed(2)}x the scan alone`);
  console.log(`  → CSV items/s ${(ndjson / csvMs).toFixed(2)}x NDJSON's`);
}
