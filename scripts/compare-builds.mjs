#!/usr/bin/env node
/**
 * Behaviour comparison of two builds (issue 19, "Behaviour unchanged"): runs a fixed table of
 * command lines with an old and a new build against the same sandbox and compares, per command
 * line, the exit code, the stdout bytes, the normalised stderr and the files written.
 *
 *   node scripts/compare-builds.mjs --old <dir> --new <dir> [--keep] [--only <regexp>] [--skip-files <regexp>]
 *
 * `<dir>` is a checkout that has been built; building is the caller's job, e.g. for the old side:
 *   git worktree add /tmp/old <commit> && (cd /tmp/old && npm ci && npm run build)
 * (a worktree of the same repository may share node_modules: `ln -s <repo>/node_modules /tmp/old/`).
 *
 * Each (command line, build) pair gets a fresh sandbox, started from the NEW build's
 * `collections sandbox` with the same options (fixed seed and sizes; a day-long window so that no
 * window ends mid-run; rate-limited cases use a 1 s window, whose waits are deterministic), and a
 * fresh temporary folder: cwd, COLLECTIONS_CONFIG_DIR and HOME inside it, and the same environment
 * otherwise (NO_COLOR=1, TZ=UTC, COLUMNS=100, COLLECTIONS_CHECKPOINT_MS=0, the key and base URL of
 * that sandbox; nothing of the caller's environment but PATH). A case of several steps (a run, then `--resume`) runs them in one
 * folder against one sandbox. --keep keeps the folders (and each step's streams in `result/`).
 *
 * What is compared, per step:
 * - the exit code;
 * - stdout bytes, once the run's own temporary folder and sandbox port are replaced (they differ
 *   between the two runs by construction); a case marked `volatile` (ratelimit, --dry-run: they
 *   print reset times and estimates) has its stdout normalised as stderr is;
 * - stderr normalised by {@link normalise};
 * - the files in the folder: names, and bytes (`.json` files that hold an object, i.e. manifests,
 *   checkpoints, state and config files, normalised as stderr is; the rate-limit caches, written
 *   in the order answers arrive, with their keys sorted).
 *
 * Prints one line per case (`same`, `DIFF` with the first differing line, or `CHECK` when both
 * builds agree but not with the exit code the table expects) and a total. Exit code: 0 when every
 * case is `same`, 1 otherwise, 2 for a usage error.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** Sandbox options of every run (the sizes keep each export to a few pages). */
const SANDBOX_FLAGS = ['--port', '0', '--seed', '7', '--limit', '1000', '--window', '86400'];
const SIZES = ['--entities', '25', '--events', '40', '--taxpayers', '3', '--invoices', '30', '--line-items', '2', '--payments', '20'];
/** A step that has not ended after this long is stopped and reported as exit `timeout`. */
const STEP_TIMEOUT_MS = 60_000;

/** Variables of the table, replaced in args, stdin and files: sandbox facts known only at run time. */
const TP0 = '$TP0';
const TP1 = '$TP1';
const TP2 = '$TP2';
const INVOICE = '$INVOICE';

const FAULTY = ['--faults', 'status status=503 requests=3 times=1'];
const RATE_1_PER_S = ['--limit', '1', '--window', '1'];
/** The fixed entity id of the sandbox's first taxpayer (the current path family). */
const ENTITY0 = '01869a77-fc00-7a1e-8c3b-5d6e7f8091a2';

/**
 * The table. A case is `{ args, code }` (one step) or `{ name, steps: [{ args, code, ... }] }`;
 * per step: `stdin`, `files` (written into the cwd first), `volatile` (normalise stdout too);
 * per case: `sandbox` (extra sandbox flags, or false for none), `env` (over the common environment;
 * null removes a variable), `racy` (several requests in flight at once: the sandbox's
 * request ids, numbered in arrival order, are not compared). `code` is the exit code the case is meant to show.
 */
const CASES = [
  // Help, version, completion: no sandbox needed.
  ...[[], ['invoices'], ['line-items'], ['sandbox']].map((rest) => ({ args: ['help', ...rest], code: 0, sandbox: false })),
  ...['entities', 'events', 'payments', 'ratelimit', 'config', 'completion', 'verify'].map((c) => ({ args: [c, '--help'], code: 0, sandbox: false })),
  { args: ['--version'], code: 0, sandbox: false },
  { args: ['get', '--help'], code: 0, sandbox: false },
  ...['bash', 'zsh', 'fish'].map((shell) => ({ args: ['completion', shell], code: 0, sandbox: false })),
  // Usage errors: exit 2 before any request.
  { args: ['invoices', '--taxpayer', TP0, '--bogus'], code: 2 },
  { args: ['invoices'], code: 2 },
  { args: ['invoices', '--taxpayer', TP0, '--items-per-page', '0'], code: 2 },
  { args: ['invoices', '--taxpayer', TP0, '--format', 'xml'], code: 2 },
  { args: ['invoices', '--taxpayer', TP0, '-q', '-v'], code: 2 },
  { args: ['entities', '--cursor'], code: 2 },
  { args: ['entities', '--param', 'page=2'], code: 2 },
  { args: ['entities', '--max-items', 'abc'], code: 2 },
  { args: ['invoices', '--taxpayer', `${TP0},${TP1}`, '--out', 'one.ndjson'], code: 2 },
  { args: ['entities', '--resume', '--out', 'never.ndjson'], code: 0 },
  { args: ['completion', 'powershell'], code: 2, sandbox: false },
  { args: ['entities'], code: 2, env: { COLLECTIONS_BASE_URL: null } },
  // Answers of the API: 401, 404, 422.
  { args: ['entities', '--api-key', 'wrong-key'], code: 3 },
  { args: ['invoices', '--taxpayer', 'XAXX010101000'], code: 4 },
  { args: ['line-items', '--invoice', '00000000-0000-7000-8000-000000000000'], code: 4 },
  { args: ['invoices', '--taxpayer', TP0, '--param', 'updatedAt[after]=yesterday-ish'], code: 2 },
  { args: ['entities', '--api-key', 'wrong-key', '--log-format', 'json'], code: 3 },
  // Formats, fields and files.
  { args: ['entities'], code: 0 },
  { args: ['entities', '--format', 'json'], code: 0 },
  { args: ['entities', '--format', 'csv'], code: 0 },
  { args: ['entities', '--format', 'table', '--fields', 'id,type,taxpayer.id,taxpayer.name'], code: 0 },
  { args: ['events', '--format', 'csv', '--fields', 'id,type,taxpayer.id,data.object.status'], code: 0 },
  { args: ['events', '--fields', 'id,type,createdAt', '--out', 'events.json'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--out', 'invoices.csv', '--csv-safe'], code: 0 },
  { args: ['invoices', '--taxpayer', TP2, '--cursor', '--out', 'invoices.ndjson'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--cursor', '--total', '--items-per-page', '7', '--out', 'invoices.ndjson.gz'], code: 0 },
  {
    args: ['invoices', '--taxpayer', TP0, '--items-per-page', '7', '--out', 'invoices.json', '--manifest', 'run.manifest.json'],
    code: 0,
    racy: true,
  },
  { args: ['invoices', '--taxpayer', TP0, '--out', 'invoices.json', '--manifest', 'no/such/folder/m.json'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--out', 'invoices.json', '--manifest', '/proc/collections/m.json'], code: 7 },
  { args: ['invoices', '--taxpayer', TP1, '--items-per-page', '10', '--page', '2', '--out', '-'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--max-items', '13', '--items-per-page', '5'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--cursor', '--max-items', '13', '--items-per-page', '5', '--format', 'csv'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--since', '2024-03-01', '--format', 'csv', '--fields', 'id,updatedAt'], code: 0 },
  { args: ['line-items', '--taxpayer', TP0, '--cursor', '--out', 'items.csv'], code: 0 },
  { args: ['line-items', '--taxpayer', TP0, '--invoice', INVOICE], code: 0 },
  { args: ['line-items', '--invoice', INVOICE, '--format', 'table'], code: 0 },
  { args: ['payments', '--taxpayer', TP1, '--format', 'csv', '--out', 'payments.csv.gz'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--out', 'no/such/folder/x.ndjson'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--out', '/proc/collections/x.ndjson'], code: 7 },
  { args: ['entities', '--format', 'csv', '--fields', 'ID,type,taxpayer.nope'], code: 0 },
  // The edges of issue 35: a URL that is no destination, a device, a format the name contradicts.
  { args: ['entities', '--out', 'postgress://etl:pw-canary@127.0.0.1:55432/mirror'], code: 2 },
  { args: ['entities', '--max-items', '3', '--out', '/dev/stdout'], code: 0 },
  { args: ['entities', '--max-items', '3', '--format', 'json', '--out', 'x.ndjson'], code: 0 },
  { args: ['entities', '-H', 'X-A: 1', '-H', 'x-a: 2'], code: 2 },
  // Any path (`get`), request headers, the real service's paging.
  { args: ['get', `/entities/${ENTITY0}/invoices`, '--cursor', '--items-per-page', '9', '--out', 'g.ndjson'], code: 0 },
  { args: ['get', '/invoices/payments', '--format', 'csv', '--items-per-page', '25'], code: 0 },
  { args: ['get', `/entities/${ENTITY0}/invoices?status=VIGENTE`, '--max-items', '5', '-H', 'Accept-Version: 2020-06-28', '-v'], code: 0 },
  { args: ['get', '/entities/nope/invoices'], code: 4 },
  { args: ['get', 'https://elsewhere.example/entities'], code: 2 },
  { args: ['invoices', '--taxpayer', TP0, '-H', 'X-Api-Key: other'], code: 2 },
  { args: ['invoices', '--taxpayer', TP0, '--items-per-page', '20', '--out', 'co.ndjson'], code: 0, sandbox: ['--cursor-only'] },
  { args: ['invoices', '--taxpayer', TP0, '--page', '2', '--out', 'co2.ndjson'], code: 2, sandbox: ['--cursor-only'] },
  {
    args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '20', '--out', 'ip.ndjson'],
    code: 0,
    sandbox: ['--ignore-pagination-style'],
  },
  { args: ['entities', '--format', 'csv'], code: 0, sandbox: ['--single-page', 'no-view', '--dates', 'naive'] },
  { args: ['invoices', '--taxpayer', 'XAXX010101000'], code: 4, sandbox: ['--errors', 'problem'] },
  // Logs.
  { args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '10', '-v'], code: 0 },
  { args: ['entities', '--items-per-page', '10', '--concurrency', '1', '-v', '--out', 'e.ndjson'], code: 0 },
  { args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '10', '--log-format', 'json', '--out', 'i.ndjson'], code: 0 },
  { args: ['entities', '-q', '--out', 'quiet.ndjson'], code: 0 },
  // Rate limits: one request a second, every wait announced by Remaining: 0.
  { args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '12', '--out', 'slow.ndjson'], code: 0, sandbox: RATE_1_PER_S },
  { args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '12', '--max-wait', '0'], code: 5, sandbox: RATE_1_PER_S },
  { args: ['ratelimit'], code: 0, volatile: true },
  { args: ['ratelimit', '--taxpayer', TP0, '--invoice', INVOICE, '--json'], code: 0, volatile: true, racy: true },
  // Dry runs.
  { args: ['invoices', '--taxpayer', TP0, '--dry-run'], code: 0, volatile: true },
  { args: ['invoices', '--taxpayer', TP0, '--dry-run', '-H', 'Authorization: Bearer abcdefghijkl'], code: 0, volatile: true },
  { args: ['invoices', '--taxpayer', `${TP0},${TP1}`, '--cursor', '--out', '{taxpayer}.csv', '--dry-run'], code: 0, volatile: true },
  // Many taxpayers.
  { args: ['invoices', '--taxpayer', `${TP0},${TP2}`, '--taxpayer', TP1, '--out', 'out/{taxpayer}-{endpoint}.ndjson'], code: 0 },
  {
    name: 'payments --taxpayers-file tps.txt --parallel 2 -q',
    // Two taxpayers at once: which one's request the sandbox numbers (and seeds the id of) first is a race.
    racy: true,
    steps: [
      {
        args: ['payments', '--taxpayers-file', 'tps.txt', '--parallel', '2', '-q', '--out', '{taxpayer}.csv'],
        files: { 'tps.txt': `# the sandbox's\n${TP0}\n${TP1}\n\n${TP2}\n` },
        code: 0,
      },
    ],
  },
  { args: ['invoices', '--taxpayers-file', '-', '--cursor', '--out', '{taxpayer}.json'], stdin: `${TP1}\n${TP2}\n`, code: 0 },
  { args: ['invoices', '--taxpayer', `${TP0},XAXX010101000`, '--out', '{taxpayer}.ndjson'], code: 4 },
  // Incremental, resume, verify: several steps in one folder against one sandbox.
  {
    name: 'entities --state state.json, twice',
    steps: [
      { args: ['entities', '--state', 'state.json', '--out', 'e.ndjson'], code: 0 },
      { args: ['entities', '--state', 'state.json', '--out', 'e2.ndjson'], code: 0 },
    ],
  },
  {
    name: 'invoices --cursor interrupted by a 503, then --resume',
    sandbox: FAULTY,
    steps: [
      { args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '6', '--retries', '0', '--out', 'inv.ndjson'], code: 6 },
      { args: ['invoices', '--taxpayer', TP0, '--cursor', '--items-per-page', '6', '--retries', '0', '--out', 'inv.ndjson', '--resume'], code: 0 },
    ],
  },
  {
    name: 'entities --out .gz interrupted by a 503, then --resume with other options, then --restart',
    sandbox: FAULTY,
    steps: [
      { args: ['entities', '--items-per-page', '5', '--concurrency', '1', '--retries', '0', '--out', 'e.csv.gz'], code: 6 },
      { args: ['entities', '--items-per-page', '6', '--concurrency', '1', '--out', 'e.csv.gz', '--resume'], code: 2 },
      { args: ['entities', '--items-per-page', '5', '--concurrency', '1', '--out', 'e.csv.gz', '--restart'], code: 0 },
    ],
  },
  {
    name: 'export, verify, verify after a change, verify of a missing manifest',
    steps: [
      { args: ['events', '--out', 'ev.ndjson'], code: 0 },
      { args: ['verify', 'ev.ndjson.manifest.json'], code: 0 },
      { args: ['verify', 'ev.ndjson.manifest.json'], files: { 'ev.ndjson': '{}\n' }, code: 8 },
      { args: ['verify', 'missing.manifest.json'], code: 8 },
    ],
  },
  {
    name: 'ratelimit --cached before and after a run',
    steps: [
      { args: ['ratelimit', '--cached'], code: 0, volatile: true },
      { args: ['entities', '--max-items', '3'], code: 0 },
      { args: ['ratelimit', '--cached'], code: 0, volatile: true },
    ],
  },
  {
    name: 'config set, get, list, set api-key from stdin, unset, path, profiles',
    sandbox: false,
    steps: [
      { args: ['config', 'set', 'base-url', 'http://127.0.0.1:9/'], code: 0 },
      { args: ['config', 'get', 'base-url'], code: 0 },
      { args: ['config', 'set', 'api-key'], stdin: 'a-stored-key-1234\n', code: 0 },
      { args: ['config', 'list'], code: 0 },
      { args: ['--profile', 'other', 'config', 'set', 'base-url', 'https://example.test'], code: 0 },
      { args: ['config', 'profiles'], code: 0 },
      { args: ['config', 'unset', 'api-key'], code: 0 },
      { args: ['config', 'path'], code: 0 },
      { args: ['config', 'set', 'colour', 'red'], code: 2 },
    ],
  },
];

// ---------------------------------------------------------------------------------------------

/**
 * The normaliser of stderr (and of volatile stdout and metadata files): what varies between two
 * runs of the same build, in order. Keep it small: each rule hides a class of differences.
 */
const RULES = [
  // ISO 8601 date-times (manifests, state, JSON logs; `ratelimit`'s with a space) and HTTP-dates.
  [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<date>'],
  [/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g, '<date>'],
  // Clock times (a reset or resume time on the local clock).
  [/\b\d{2}:\d{2}:\d{2}\b/g, '<time>'],
  // The sandbox's X-Request-ID carries the epoch second (its random part is seeded).
  [/\bRoot=1-[0-9a-f]{8}-/g, 'Root=1-<t>-'],
  // Epoch seconds and milliseconds (X-RateLimit-Reset in logs).
  [/\b1\d{9}(?:\d{3})?\b/g, '<epoch>'],
  // Durations as pretty-ms or our own words print them: 453ms, 1.2 s, 1m 3s, 8h 2m.
  [/\b\d+(?:[.,]\d+)?\s?(?:ms|s|m|h|d)\b/g, '<dur>'],
  [/<dur>(?:,? <dur>)+/g, '<dur>'],
  // Millisecond and second counts in JSON: "elapsedMs": 387, "ms": 12.
  [/("(?:\w*Ms|ms|\w*Seconds|seconds)"\s*:\s*)-?\d+(?:\.\d+)?/g, '$1<n>'],
  // Process ids (lock owners).
  [/\bpid\b(\W{1,3})\d+/gi, 'pid$1<pid>'],
  // Columns realign around the placeholders: runs of blanks count as one.
  [/[ \t]+/g, ' '],
  [/ +$/gm, ''],
];

/** Replaces the run's own temporary folder and sandbox port, the two facts that differ by construction. */
function substitute(text, run) {
  let out = text.replaceAll(run.root, '<tmp>');
  if (run.port) out = out.replace(new RegExp(`(127\\.0\\.0\\.1|localhost):${run.port}\\b`, 'g'), '$1:<port>');
  return out;
}

/** stderr, volatile stdout and metadata files: {@link substitute}, then every rule of {@link RULES}. */
function normalise(text, run) {
  const out = RULES.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), substitute(text, run));
  // A `racy` case has several requests in flight at once: the sandbox numbers them in arrival order.
  return run.racy ? out.replace(/\bRoot=1-<t>-[0-9a-f]{24}\b/g, '<request-id>') : out;
}

/**
 * Files compared after {@link normalise} rather than byte for byte: `.json` files that hold an object
 * (manifests, checkpoints, state, config); an export in JSON is an array and is compared as bytes.
 */
const isMetadata = (name, bytes) => name.endsWith('.json') && bytes[0] === 0x7b;

/**
 * The rate-limit caches of the config folder record endpoints in the order their answers arrived
 * (`ratelimit` sends its checks at once): their keys are sorted before they are compared.
 */
const CACHES = /^config\/(?:ratelimit|rate-budget)\.json$/;

/** `value` with the keys of every object sorted. */
const sortKeys = (value) =>
  Array.isArray(value)
    ? value.map(sortKeys)
    : typeof value === 'object' && value !== null
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sortKeys(value[k])]),
        )
      : value;

/** A file as compared: metadata normalised (caches with sorted keys), anything else its bytes. */
function comparable(path, bytes, run) {
  if (!isMetadata(path, bytes)) return bytes;
  const text = bytes.toString('utf8');
  if (!CACHES.test(path)) return normalise(text, run);
  try {
    return normalise(JSON.stringify(sortKeys(JSON.parse(text)), null, 1), run);
  } catch {
    return normalise(text, run);
  }
}

// ---------------------------------------------------------------------------------------------

function usage(message) {
  process.stderr.write(
    `compare-builds: ${message}\nusage: node scripts/compare-builds.mjs --old <built checkout> --new <built checkout> [--keep] [--only <regexp>]\n`,
  );
  process.exit(2);
}

/** Spawns `node <bin> ...args`; resolves with the exit code (or `timeout`/signal name) and both streams as Buffers. */
function runNode(bin, args, { cwd, env, stdin }) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.stdin.on('error', () => {});
    child.stdin.end(stdin ?? '');
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, STEP_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: timedOut ? 'timeout' : (code ?? signal), stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
}

/** Starts `collections sandbox` of `bin` with the common and `extra` flags; resolves once it prints its URL. */
function startSandbox(bin, extra, env) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, 'sandbox', ...SANDBOX_FLAGS, ...SIZES, ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`the sandbox did not start in 30 s: ${stderr}`)), 30_000);
    child.stderr.on('data', (b) => (stderr += String(b)));
    child.stdout.on('data', (b) => {
      text += String(b);
      if (!text.includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      const url = /listening on (\S+)/.exec(text)[1];
      const key = /API key: (\S+)/.exec(text)[1];
      const taxpayers = text.split('\n').filter((line) => line.startsWith('  ') && !line.includes('collections '));
      const stop = () =>
        new Promise((stopped) => {
          child.once('close', () => stopped());
          child.kill('SIGTERM');
        });
      done({ url, key, port: new URL(url).port, taxpayers: taxpayers.map((t) => t.trim()), stop });
    });
    child.once('close', (code) => fail(new Error(`the sandbox exited (${code}): ${stderr}`)));
  });
}

/** The environment of every run: nothing of the caller's but PATH. */
function baseEnv(root) {
  return {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    COLLECTIONS_CONFIG_DIR: join(root, 'config'),
    // A checkpoint (and a gzip member) after every page, not after every second: the bytes of a
    // .gz output would otherwise depend on how fast the machine is.
    COLLECTIONS_CHECKPOINT_MS: '0',
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '100',
  };
}

/** Every file under `dir`, as [relative path, Buffer] sorted by path (folders as `name/` with no bytes). */
async function snapshot(dir, prefix = '') {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) files.push([`${rel}/`, Buffer.alloc(0)], ...(await snapshot(dir, rel)));
    else files.push([rel, await readFile(join(dir, rel))]);
  }
  return files;
}

/** Runs every step of `testCase` with `bin` in a fresh folder under `base`, against a fresh sandbox from `sandboxBin`. */
async function runCase(testCase, label, bin, sandboxBin, base, facts) {
  const root = await mkdtemp(join(base, `${label}-`));
  const cwd = join(root, 'cwd');
  // The config folder is left to the tool (which creates it 0700).
  await Promise.all(['cwd', 'home', 'result'].map((d) => mkdir(join(root, d))));
  const env = baseEnv(root);
  const sandbox = testCase.sandbox === false ? undefined : await startSandbox(sandboxBin, testCase.sandbox ?? [], env);
  const vars = { ...facts, ...(sandbox ? { $URL: sandbox.url } : {}) };
  const expand = (s) => Object.entries(vars).reduce((acc, [k, v]) => acc.replaceAll(k, v), s);
  const runEnv = Object.fromEntries(
    Object.entries({ ...env, ...(sandbox ? { COLLECTIONS_BASE_URL: sandbox.url, COLLECTIONS_API_KEY: sandbox.key } : {}), ...testCase.env }).filter(
      ([, v]) => v !== null,
    ),
  );
  const run = { root, port: sandbox?.port, racy: testCase.racy === true };
  const results = [];
  try {
    const steps = stepsOf(testCase);
    for (let n = 0; n < steps.length; n++) {
      const step = steps[n];
      for (const [name, text] of Object.entries(step.files ?? {})) await writeFile(join(cwd, name), expand(text));
      const r = await runNode(bin, step.args.map(expand), { cwd, env: runEnv, stdin: step.stdin === undefined ? undefined : expand(step.stdin) });
      await writeFile(join(root, 'result', `${n + 1}.stdout`), r.stdout);
      await writeFile(join(root, 'result', `${n + 1}.stderr`), r.stderr);
      const files = [];
      for (const d of ['cwd', 'config', 'home']) {
        for (const [rel, bytes] of await snapshot(join(root, d))) {
          files.push([`${d}/${rel}`, comparable(`${d}/${rel}`, bytes, run)]);
        }
      }
      const stdout = step.volatile ? normalise(r.stdout.toString('utf8'), run) : substitute(r.stdout.toString('latin1'), run);
      results.push({ code: r.code, stdout, stderr: normalise(r.stderr.toString('utf8'), run), files });
    }
  } finally {
    await sandbox?.stop();
  }
  return results;
}

const stepsOf = (testCase) => testCase.steps ?? [testCase];
const nameOf = (testCase) => testCase.name ?? [...Object.entries(testCase.env ?? {}).map(([k, v]) => `${k}=${v ?? ''}`), ...testCase.args].join(' ');
/** Up to 100 characters of `line` from a little before `at`, JSON-quoted. */
const clip = (line, at) => {
  const from = Math.max(0, at - 30);
  return JSON.stringify(`${from > 0 ? '…' : ''}${line.slice(from, from + 100)}${line.length > from + 100 ? '…' : ''}`);
};

/** The first line where `a` and `b` differ, as `line n: old "…" new "…"` from near the first differing character. */
function firstDiff(a, b) {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] === lb[i]) continue;
    const x = la[i] ?? '<none>';
    const y = lb[i] ?? '<none>';
    let at = 0;
    while (at < x.length && x[at] === y[at]) at++;
    return `line ${i + 1}: old ${clip(x, at)} new ${clip(y, at)}`;
  }
  return 'same text';
}

/** Describes the first difference between two runs' step results, or undefined when they are the same. */
function compareSteps(old, neu) {
  for (let i = 0; i < old.length; i++) {
    const o = old[i];
    const n = neu[i];
    const at = old.length > 1 ? `step ${i + 1} ` : '';
    if (o.code !== n.code) return `${at}exit code: old ${o.code} new ${n.code}`;
    if (o.stdout !== n.stdout) return `${at}stdout ${firstDiff(o.stdout, n.stdout)}`;
    if (o.stderr !== n.stderr) return `${at}stderr ${firstDiff(o.stderr, n.stderr)}`;
    const names = (r) => r.files.map(([name]) => name).join(', ');
    if (names(o) !== names(n)) return `${at}files: old [${names(o)}] new [${names(n)}]`;
    for (const [j, [name, bytes]] of o.files.entries()) {
      const other = n.files[j][1];
      const same = typeof bytes === 'string' ? bytes === other : Buffer.compare(bytes, other) === 0;
      if (!same)
        return `${at}file ${name} ${typeof bytes === 'string' ? firstDiff(bytes, other) : `bytes differ (${bytes.length} / ${other.length})`}`;
    }
  }
  return undefined;
}

/** Facts of the sandbox the table refers to: its taxpayers and one invoice id (the same for every sandbox of the seed). */
async function probe(sandboxBin, base) {
  const dir = await mkdtemp(join(base, 'probe-'));
  const sandbox = await startSandbox(sandboxBin, [], baseEnv(dir));
  try {
    const response = await fetch(`${sandbox.url}/taxpayers/${encodeURIComponent(sandbox.taxpayers[0])}/invoices?itemsPerPage=1`, {
      headers: { 'X-Api-Key': sandbox.key, Accept: 'application/ld+json' },
    });
    const page = await response.json();
    const invoice = (page.member ?? page['hydra:member'])[0].id;
    const [tp0, tp1, tp2] = sandbox.taxpayers;
    return { [TP0]: tp0, [TP1]: tp1, [TP2]: tp2, [INVOICE]: invoice };
  } finally {
    await sandbox.stop();
  }
}

async function main() {
  let values = {};
  try {
    ({ values } = parseArgs({
      options: {
        old: { type: 'string' },
        new: { type: 'string' },
        keep: { type: 'boolean' },
        only: { type: 'string' },
        'skip-files': { type: 'string' },
      },
    }));
  } catch (err) {
    usage(err.message);
  }
  if (!values.old || !values.new) usage('--old and --new are required');
  const oldBin = join(resolve(values.old), 'bin', 'collections.js');
  const newBin = join(resolve(values.new), 'bin', 'collections.js');
  const only = values.only === undefined ? undefined : new RegExp(values.only);
  // A change that moves what a file keeps by design (a cache merged into another file) leaves those
  // files out; streams and exit codes are still compared.
  const skip = values['skip-files'] === undefined ? undefined : new RegExp(values['skip-files']);
  const kept = (steps) => (skip ? steps.map((step) => ({ ...step, files: step.files.filter(([name]) => !skip.test(name)) })) : steps);
  const base = await mkdtemp(join(tmpdir(), 'compare-builds-'));
  const facts = await probe(newBin, base);
  let same = 0;
  let failed = 0;
  let commandLines = 0;
  for (const [index, testCase] of CASES.entries()) {
    const name = nameOf(testCase);
    if (only && !only.test(name)) continue;
    const number = String(index + 1).padStart(2, '0');
    const [old, neu] = await Promise.all([
      runCase(testCase, `${number}-old`, oldBin, newBin, base, facts),
      runCase(testCase, `${number}-new`, newBin, newBin, base, facts),
    ]);
    commandLines += old.length;
    const diff = compareSteps(kept(old), kept(neu));
    const steps = stepsOf(testCase);
    let unexpected;
    for (let i = 0; i < steps.length && unexpected === undefined; i++) {
      if (steps[i].code !== neu[i].code) unexpected = `step ${i + 1} exit ${neu[i].code}, the table expects ${steps[i].code}`;
    }
    if (diff === undefined && unexpected === undefined) same++;
    else failed++;
    const label = diff !== undefined ? `DIFF  ${name}: ${diff}` : unexpected !== undefined ? `CHECK ${name}: ${unexpected}` : `same  ${name}`;
    process.stdout.write(`${number} ${label}\n`);
  }
  process.stdout.write(`${same + failed} cases (${commandLines} command lines): ${same} same, ${failed} not\n`);
  if (values.keep) process.stdout.write(`kept: ${base}\n`);
  else await rm(base, { recursive: true, force: true });
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
