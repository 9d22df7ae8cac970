#!/usr/bin/env node
// `npm run bench`: the benchmark of the issue «As fast as Node allows». Plain Node ESM, no build
// step of its own: it runs the built CLI (bin/ + dist/) and the sandbox (dist/sandbox) in separate
// processes, alternates the contenders within each round (the order rotates from round to round),
// takes medians, prints one table and appends a dated section to test/bench/results.md.
//
//   node scripts/bench/run.js [--quick] [--only throughput,csv,memory,ratelimit,latency,startup,table,nightly,library,hosts]
//                             [--rounds N] [--out FILE]
//
// --quick (or BENCH_QUICK=1): small collections and one round, a smoke run of the harness (results
// go to test/bench/tmp/results-quick.md unless --out says otherwise). The benchmark is not part of `npm test`.
//
// Files: config.js (paths, arguments, sizes), tools.js (processes, hashes, the sandbox process),
// rounds.js (contenders, rotating rounds), scenarios.js (scenarios-more.js, scenarios-library.js, scenarios-hosts.js), report.js (targets, tables, results.md).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_DIR, ONLY, OUT, ROOT, TMP } from './config.js';
import { appendSection, fmt, HEAD, printTable, renderSection, tableRows, targets } from './report.js';
import { notes } from './rounds.js';
import { SCENARIOS } from './scenarios.js';
import { GNU_TIME } from './tools.js';

if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
  console.error('bench: dist/ is missing; run `npm run build` first (npm run bench does)');
  process.exit(2);
}
mkdirSync(TMP, { recursive: true });
rmSync(CONFIG_DIR, { recursive: true, force: true });
mkdirSync(CONFIG_DIR, { recursive: true });
if (!GNU_TIME)
  notes.push('GNU time not found: peak RSS of the node contenders comes from process.resourceUsage().maxRSS at exit; none for curl + jq');
const began = Date.now();
const selected = Object.keys(SCENARIOS).filter((s) => !ONLY || ONLY.includes(s) || (s === 'throughput' && ONLY.includes('csv')));
for (const s of selected) {
  process.stderr.write(`bench: ${s}\n`);
  await SCENARIOS[s]();
}
const elapsed = (Date.now() - began) / 1000;

const body = tableRows();
const t = targets();
console.log();
printTable(
  HEAD.slice(0, 6),
  body.map((r) => r.slice(0, 6)),
);
console.log();
printTable(
  ['target', 'measured', 'goal', 'status'],
  t.map((x) => [x.name, x.measured, x.goal, x.status]),
);
for (const n of notes) console.log(`note: ${n}`);

// The results keep their history: this run is appended as a dated section.
writeFileSync(
  OUT,
  appendSection(OUT, renderSection(body, t, notes, elapsed), (p) => readFileSync(p, 'utf8')),
);
console.log(`\nbench: appended a section to ${OUT.startsWith(ROOT) ? OUT.slice(ROOT.length) : OUT} (${fmt(elapsed, 0)} s)`);
