#!/usr/bin/env node
/**
 * `npm run faults`: runs the fault suite (test/faults, plus the signal and pipe tests of test/e2e
 * when they exist) and the hostile suite (test/hostile), collects the row each scenario records
 * (test/faults/harness.ts `report()` and `recordHostile()`), prints the table of faults injected and
 * survived, and writes test/faults/results.md (linked from the README, "Test"). The hostile rows
 * are a section of their own (./faults-hostile.js).
 *
 * Figures per row: items lost and duplicated (by `id`, against the fault-free run of the same
 * seed), requests sent before a reset by the server's clock, the most 429s in one window,
 * requests that reached another origin, the exit code, and whether every check of the row held.
 *
 * Exit code: vitest's (non-zero when any test failed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOSTILE_HEADER, hostileRows } from './faults-hostile.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const resultsFile = join(root, 'test', 'faults', 'results.md');
const rowsFile = join(tmpdir(), `collections-faults-${process.pid}.jsonl`);
const jsonFile = join(tmpdir(), `collections-faults-${process.pid}.json`);

/**
 * The rows of the fault table, in order: [fault, what surviving it means, and for rows tested by the
 * e2e suite a pattern of their test names]. Each scenario's row (`fault` of test/faults/harness.ts
 * `ResultRow`) must name one of these exactly.
 */
const FAULTS = [
  [
    'limit reached; 429 with Reset and Date',
    'one 429 at most per window; next request not before Reset by the server’s clock; output identical to a fault-free run',
  ],
  ['client clock 5 min fast, or 10 min slow', 'same as above; wait within ±1.5 s of what is required'],
  ['`Remaining: 0` on a 200', 'zero 429s'],
  ['`Retry-After` seconds or HTTP-date, no Reset', 'waits at least that long'],
  ['Reset 0, in the past, garbage, in milliseconds, 2 hours away', '1 s floor and growth; ms understood; far reset → exit 5 with checkpoint'],
  ['a 429 forever', 'bounded attempts, then exit 5'],
  ['500/502/503/504 now and then, connection reset, refused for 3 s', 'retried; output identical'],
  ['one page always 503', 'exit 6 after `--retries`; earlier pages kept in the checkpoint'],
  ['truncated body, invalid JSON, HTML 200, headers never sent, slow drip', 'retried within per-attempt timeouts; nothing from the bad page written'],
  ['hydra:next to another host, port or scheme; //evil/; userinfo tricks; a 302 elsewhere', 'the other origin receives nothing; exit 6'],
  ['next pointing to itself or to an earlier page', 'exit 6 promptly, no duplicate items'],
  ['unprefixed keys, relative or absolute links', 'byte-identical output'],
  ['items inserted and deleted while paging', 'cursor mode: nothing lost, nothing duplicated'],
  [
    'SIGINT / SIGTERM after page k; SIGKILL anywhere',
    '130 / 143 with checkpoint; after `--resume` the file is byte-identical to a clean run',
    /SIGINT|SIGTERM|SIGKILL/i,
  ],
  ['`--resume` with a corrupt or foreign checkpoint', 'clear refusal, exit 2, nothing mixed'],
  ['stdout piped into `head`; a slow reader', 'quiet end; all bytes delivered otherwise', /\bhead\b|\bpipe\b|EPIPE|slow reader/i],
  ['disk full, unwritable path, path is a folder', 'exit 7; yesterday’s file untouched'],
  ['ids `..`, `a/b`, `a?b#c`, empty; `--items-per-page` 0, 1.5, abc, 5000; unknown format', 'exit 2, zero requests'],
  ['missing key or base URL; plain `http://` to a non-loopback host', 'exit 2 / a warning before the key is sent in clear'],
];

/** Test files under test/e2e (issue 3's suite), recursively. */
function e2eFiles() {
  const dir = join(root, 'test', 'e2e');
  if (!existsSync(dir)) return [];
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

// Issue 3's e2e files that mention a row's pattern run along; their tests are matched by full name
// (describe titles included) in vitest's JSON report.
const externalFiles = e2eFiles()
  .filter((file) => FAULTS.some(([, , pattern]) => pattern && pattern.test(readFileSync(file, 'utf8'))))
  .map((file) => relative(root, file));

rmSync(rowsFile, { force: true });
rmSync(jsonFile, { force: true });
const started = Date.now();
const vitest = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--config',
    'test/vitest.config.ts',
    'test/faults',
    'test/hostile',
    ...externalFiles,
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${jsonFile}`,
  ],
  { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, FAULTS_RESULTS: rowsFile } },
);
const seconds = Math.round((Date.now() - started) / 1000);

const raw = existsSync(rowsFile)
  ? readFileSync(rowsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
const hostileRecords = raw.filter((r) => r.kind === 'hostile');
rmSync(rowsFile, { force: true });

/**
 * A row as test/faults/harness.ts `record()` writes it (`ResultRow`), one JSON line each; the
 * figures may be missing or null, and are then shown as `–` and counted as 0.
 * @typedef {{ fault: string, mode: string, expected: string, pass: boolean, note?: string, lost?: number | null,
 *   duplicated?: number | null, early?: number | null, max429?: number | null, foreign?: number | null,
 *   exit?: number | null }} ResultRow
 */

// A scenario recorded twice (a check split over a passing test and an it.fails) is one row: it
// passes only if every record passed.
/** @type {Map<string, ResultRow>} */
const merged = new Map();
for (const row of raw.filter((r) => r.kind !== 'hostile')) {
  const key = `${row.fault}\u0000${row.mode}`;
  const prev = merged.get(key);
  if (!prev) merged.set(key, { ...row });
  else {
    prev.pass = prev.pass && row.pass;
    if (row.note && row.note !== prev.note) prev.note = prev.note ? `${prev.note}; ${row.note}` : row.note;
  }
}
const rows = [...merged.values()];

/** Tests of the e2e files run along: file, full name (describe titles and title), status. */
const externalTests = [];
const json = existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, 'utf8')) : {};
{
  for (const file of json.testResults ?? []) {
    const name = relative(root, file.name);
    if (!externalFiles.includes(name)) continue;
    for (const a of file.assertionResults ?? []) externalTests.push({ file: name, fullName: a.fullName, status: a.status });
  }
  rmSync(jsonFile, { force: true });
}
const hostile = hostileRows(root, json, hostileRecords);

const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const num = (v) => (v === null || v === undefined ? '–' : String(v));
const header = ['fault', 'mode', 'expected', 'lost', 'dup', 'early', '429/window', 'other origin', 'exit', 'result'];

const table = [];
const missing = [];
for (const [fault, expected, pattern] of FAULTS) {
  const mine = rows.filter((r) => r.fault === fault);
  if (pattern) {
    const tests = externalTests.filter((t) => pattern.test(t.fullName));
    if (tests.length === 0) {
      table.push([fault, 'issue 3 e2e suite', expected, '–', '–', '–', '–', '–', '–', 'no test under test/e2e yet']);
      missing.push(fault);
    }
    for (const t of tests) {
      table.push([fault, `${t.fullName} (${t.file})`, expected, '–', '–', '–', '–', '–', '–', t.status === 'passed' ? 'pass' : t.status]);
    }
    continue;
  }
  if (mine.length === 0) {
    table.push([fault, '–', expected, '–', '–', '–', '–', '–', '–', 'NO TEST']);
    missing.push(fault);
  }
  for (const r of mine) {
    table.push([
      fault,
      r.mode,
      r.expected,
      num(r.lost),
      num(r.duplicated),
      num(r.early),
      num(r.max429),
      num(r.foreign),
      num(r.exit),
      r.pass ? 'pass' : `FAIL${r.note ? ` (${r.note})` : ''}`,
    ]);
  }
}

const totals = {
  rows: rows.length,
  passed: rows.filter((r) => r.pass).length,
  lost: rows.reduce((s, r) => s + (r.lost ?? 0), 0),
  duplicated: rows.reduce((s, r) => s + (r.duplicated ?? 0), 0),
  early: rows.reduce((s, r) => s + (r.early ?? 0), 0),
  foreign: rows.reduce((s, r) => s + (r.foreign ?? 0), 0),
};
const hostileSummary = `hostile server, hostile machine: ${hostile.passed}/${hostile.total} tests pass${hostile.skipped ? ` (${hostile.skipped} skipped)` : ''}`;
const summary = `${totals.passed}/${totals.rows} scenarios pass; items lost ${totals.lost}, duplicated ${totals.duplicated}, requests before a reset ${totals.early}, requests to another origin ${totals.foreign}; ${hostileSummary}; vitest exit ${vitest.status}; ${seconds} s`;

// Terminal: a compact fixed-width table (long cells cut), then the summary.
const widths = [34, 44, 0, 4, 3, 5, 10, 12, 4, 0];
const fit = (s, w) => (w === 0 ? '' : s.length > w ? `${s.slice(0, w - 1)}…` : s.padEnd(w));
const termCols = [0, 1, 3, 4, 5, 6, 7, 8, 9];
const line = (cells) => termCols.map((i) => (widths[i] ? fit(cells[i], widths[i]) : cells[i])).join('  ');
console.log('');
console.log(line(header));
console.log(line(header.map((h, i) => '-'.repeat(widths[i] || h.length))));
for (const r of table) console.log(line(r));
console.log('');
const hostileWidths = [34, 60, 0, 4, 50, 0, 0, 0, 0];
const hostileCols = [0, 1, 3, 4, 8];
const hostileLine = (cells) => hostileCols.map((i) => (hostileWidths[i] ? fit(cells[i], hostileWidths[i]) : cells[i])).join('  ');
console.log('Hostile server, hostile machine');
console.log(hostileLine(HOSTILE_HEADER));
console.log(hostileLine(HOSTILE_HEADER.map((h, i) => '-'.repeat(hostileWidths[i] || h.length))));
for (const r of hostile.table) console.log(hostileLine(r));
console.log('');
console.log(summary);
missing.push(...hostile.missing);
if (missing.length) console.log(`rows without a test in this suite: ${missing.join(' / ')}`);

const notes = rows.filter((r) => r.note).map((r) => `- **${cell(r.fault)}**, ${cell(r.mode)}: ${cell(r.note)}`);
const md = [
  '# Fault suite results',
  '',
  'Generated by `npm run faults` (scripts/faults-report.js) from the checks of test/faults/*.test.ts: each row is one',
  'export run with a fault injected by the sandbox, compared with a fault-free run of the same seed. In-process rows',
  'run the whole CLI (`main`) on a virtual clock shared with the sandbox; rows marked e2e run the built CLI against',
  'the sandbox on 127.0.0.1 over real sockets.',
  '',
  'Columns: items **lost** and **dup**licated (by `id`), **early** = requests sent before a reset by the server’s clock',
  '(– when the server announced no usable reset), most **429s in one window**, requests that reached **another origin**,',
  'process **exit** code, and whether every check of the row held.',
  '',
  `**Summary:** ${summary}.`,
  '',
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  '',
  `| ${header.join(' | ')} |`,
  `|${header.map(() => '---').join('|')}|`,
  ...table.map((r) => `| ${r.map(cell).join(' | ')} |`),
  '',
  '## Hostile server, hostile machine',
  '',
  'One row per test of test/hostile/*.test.ts (issue 11): a server or a machine that works against the tool, run in',
  'process or as the built bin against servers on 127.0.0.1. **result** is vitest’s verdict on the test; the other',
  'cells are what the test observed: process **exit** code, the one-line **message** on stderr, what happened to the',
  '**files** around the output, whether the **output** is complete or absent, and peak **memory** where measured',
  '(– when the test recorded nothing for that column).',
  '',
  `| ${HOSTILE_HEADER.join(' | ')} |`,
  `|${HOSTILE_HEADER.map(() => '---').join('|')}|`,
  ...hostile.table.map((r) => `| ${r.map(cell).join(' | ')} |`),
  '',
  '## Notes',
  '',
  ...notes,
  '',
].join('\n');
writeFileSync(resultsFile, md);
console.log(`wrote ${relative(process.cwd(), resultsFile)}`);
process.exitCode = vitest.status ?? 1;
