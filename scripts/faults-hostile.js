/**
 * The "Hostile server, hostile machine" section of `npm run faults` (scripts/faults-report.js): one
 * row per test of test/hostile (issue 11's suite), grouped under the item of the issue it proves.
 * A row's result is vitest's verdict on the test; its other cells are what the test observed, as
 * recorded by test/faults/harness.ts `recordHostile()` (`–` when the test recorded nothing). The
 * fault and expected cells are given on the first row of each item only.
 */
import { relative } from 'node:path';

/**
 * The items of the section, in order: [fault injected, what surviving it means, test file under
 * test/hostile, and optionally a pattern of the test's full name]. A test belongs to the first item
 * that matches it; tests no item claims are listed under "other hostile tests".
 * @type {[string, string, string, RegExp?][]}
 */
export const HOSTILE = [
  [
    'two exports to one `--out`; a stale or foreign lock',
    'exit 7 at once naming the holder, nothing sent or touched; a dead holder’s lock taken over with a note',
    'output-lock.test.ts',
  ],
  [
    'symlink or hard link planted at F.part or the checkpoint; FIFO or device as `--out`',
    'never written through a link (exit 7 / 2), target untouched; non-regular outputs written straight through',
    'safe-files.test.ts',
  ],
  [
    'ENOSPC, EDQUOT, EFBIG, EIO, EACCES, EROFS on data, checkpoint, config or cache; unexpected errors',
    'exit 7 with one line naming path and cause, checkpoint at the last page on disk; anything else exit 1, no stack',
    'write-errors.test.ts',
  ],
  ['', '', 'process.test.ts', /write errors of the config|process-wide guard/],
  [
    'escape sequences, controls and bidi overrides in server text, headers, field names, the cache',
    'inert on the terminal; data files byte-exact',
    'terminal-text.test.ts',
  ],
  [
    'endless or gzip-bomb body, JSON nested thousands deep, endless empty pages, reordered-query loop, drip',
    'exit 6 with a one-line reason, no output file, memory bounded',
    'bounds.test.ts',
  ],
  [
    'out-of-range numbers, prototype keys as `--fields`, `user:password@` in the base URL',
    'exit 2 before anything starts; plain keys only; credentials never echoed or stored',
    'inputs.test.ts',
  ],
  [
    'tampered checkpoint (origin, taxpayer, options, offset off a record); a checkpoint without `--resume`',
    'exit 2 saying what did not match, nothing sent or touched; `--restart` starts over',
    'checkpoint-trust.test.ts',
  ],
  [
    '`HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` in the environment',
    'requests go through the proxy (or bypass it); a bad proxy URL is exit 2',
    'proxy.test.ts',
  ],
  [
    'stdout closed by `head` or full; `sandbox` on a port in use or a bad port',
    'exit 0 quietly on EPIPE, exit 7 on a full device; exit 2 with one line',
    'process.test.ts',
  ],
];

/** A column header per cell of a hostile row. */
export const HOSTILE_HEADER = ['fault', 'scenario', 'expected', 'exit', 'message', 'files', 'output', 'memory', 'result'];

/** Joins the non-empty values of `key` among `records`. */
const joined = (records, key) =>
  [...new Set(records.map((r) => r[key]).filter((v) => v !== undefined && v !== null && v !== ''))].map(String).join('; ') || '–';

/**
 * The rows of the section.
 * @param {string} root the repository's folder
 * @param {{ testResults?: { name: string, assertionResults?: { fullName: string, status: string }[] }[] }} json vitest's JSON report
 * @param {{ test: string, file: string, exit?: number, message?: string, files?: string, output?: string, memory?: string }[]} records
 *   what the hostile tests recorded
 * @returns {{ table: string[][], total: number, passed: number, skipped: number, missing: string[] }}
 */
export function hostileRows(root, json, records) {
  const tests = [];
  for (const file of json.testResults ?? []) {
    const name = relative(root, file.name);
    if (!name.startsWith('test/hostile/')) continue;
    for (const a of file.assertionResults ?? []) tests.push({ file: name, base: name.slice('test/hostile/'.length), ...a });
  }
  const claimed = new Set();
  const table = [];
  const missing = [];
  let fault = '';
  let expected = '';
  const rowsOf = (mine) => {
    for (const t of mine) {
      claimed.add(t);
      const observed = records.filter((r) => relative(root, r.file) === t.file && r.test.replace(/ > /g, ' ') === t.fullName);
      const cells = ['exit', 'message', 'files', 'output', 'memory'].map((k) => joined(observed, k));
      const first = !table.some((r) => r[0] === fault);
      table.push([first ? fault : '', `${t.fullName} (${t.base})`, first ? expected : '', ...cells, t.status === 'passed' ? 'pass' : t.status]);
    }
  };
  for (const [f, e, file, pattern] of HOSTILE) {
    if (f) [fault, expected] = [f, e];
    const mine = tests.filter((t) => !claimed.has(t) && t.base === file && (!pattern || pattern.test(t.fullName)));
    if (mine.length === 0 && !pattern && f) {
      table.push([fault, '–', expected, '–', '–', '–', '–', '–', 'NO TEST']);
      missing.push(fault);
    }
    rowsOf(mine);
  }
  [fault, expected] = ['other hostile tests', '–'];
  rowsOf(tests.filter((t) => !claimed.has(t)));
  return {
    table,
    total: tests.length,
    passed: tests.filter((t) => t.status === 'passed').length,
    skipped: tests.filter((t) => t.status === 'skipped' || t.status === 'pending' || t.status === 'todo').length,
    missing,
  };
}
