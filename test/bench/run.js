#!/usr/bin/env node
// `npm run bench`: the benchmark of the issue «As fast as Node allows». Plain Node ESM, no build
// step of its own: it runs the built CLI (bin/ + dist/) and the sandbox (dist/sandbox) in separate
// processes, alternates the contenders within each round (the order rotates from round to round),
// takes medians, prints one table and writes test/bench/results.md.
//
//   node test/bench/run.js [--quick] [--only throughput,csv,memory,ratelimit,latency,startup]
//                          [--rounds N] [--out FILE]
//
// --quick: small collections and one round, a smoke run of the harness (results go to
// test/bench/tmp/results-quick.md unless --out says otherwise). The benchmark is not part of `npm test`.
import { fork, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, createReadStream, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, release } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = join(ROOT, 'test/bench');
const TMP = join(HERE, 'tmp');
const BIN = join(ROOT, 'bin/collections.js');
const KEY = 'sandbox-key';

// ---- arguments --------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const QUICK = flag('--quick');
const ONLY = value('--only')?.split(',').map((s) => s.trim()).filter(Boolean);
const ROUNDS = Number(value('--rounds') ?? (QUICK ? 1 : 3));
const OUT = value('--out') ?? (QUICK ? join(TMP, 'results-quick.md') : join(HERE, 'results.md'));

/** Sizes: the issue's in a full run, a tenth or less in --quick. */
const SIZE = QUICK
  ? { throughput: 20_000, memory: 100_000, rlPages: 30, latencyPages: 30, startupRounds: 5 }
  : { throughput: 200_000, memory: 1_000_000, rlPages: 100, latencyPages: 100, startupRounds: 15 };
const RL = { limit: 10, windowSeconds: 2, itemsPerPage: 100 };
const LATENCY = { ms: 100, itemsPerPage: 100 };
/** A contender run that takes longer than this is killed and counted as failed. */
const RUN_TIMEOUT_MS = 5 * 60_000;

// ---- tools ------------------------------------------------------------------------------------
function which(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** GNU time (Debian package `time`) gives every contender's peak RSS, shell pipelines included. */
const GNU_TIME = (() => {
  const p = existsSync('/usr/bin/time') ? '/usr/bin/time' : which('time');
  if (!p) return undefined;
  try {
    const probe = join(TMP, 'time-probe');
    mkdirSync(TMP, { recursive: true });
    const r = spawnSync(p, ['-f', '%M', '-o', probe, 'true'], { stdio: 'ignore' }).status;
    return r === 0 && /^\d+/.test(readFileSync(probe, 'utf8')) ? p : undefined;
  } catch {
    return undefined;
  }
})();
const JQ = which('jq');
const CURL = which('curl');

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs one contender process to completion.
 * @returns { ms: wall time from spawn to exit, rssKiB: peak RSS of the process (GNU time's %M:
 *   the largest of the processes it waited for), code, stdout, stderr }
 */
async function runProcess(cmd, args, { env = {}, rss = true, node = false, stdoutFd } = {}) {
  mkdirSync(TMP, { recursive: true });
  const rssFile = join(TMP, `rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  let file = cmd;
  let fileArgs = args;
  const extraEnv = {};
  if (rss && GNU_TIME) {
    file = GNU_TIME;
    fileArgs = ['-f', '%M', '-o', rssFile, cmd, ...args];
  } else if (rss && node) {
    fileArgs = ['--import', pathToFileURL(join(HERE, 'maxrss.js')).href, ...args];
    extraEnv.BENCH_MAXRSS_FILE = rssFile;
  }
  const started = performance.now();
  const child = spawn(file, fileArgs, { env: { ...process.env, ...env, ...extraEnv }, stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d) => (stdout = (stdout + d).slice(-20_000)));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const code = await new Promise((resolve) => child.on('close', (c, signal) => resolve(c ?? signal)));
  const ms = performance.now() - started;
  clearTimeout(timer);
  let rssKiB = NaN;
  if (existsSync(rssFile)) {
    const m = /(\d+)\s*$/.exec(readFileSync(rssFile, 'utf8').trim());
    if (m) rssKiB = Number(m[1]);
    rmSync(rssFile, { force: true });
  }
  return { ms, rssKiB, code, stdout, stderr };
}

/** md5 and line count of a file (the outputs of all contenders must be identical). */
async function digest(path) {
  if (!existsSync(path)) return { hash: undefined, lines: 0, bytes: 0 };
  const hash = createHash('md5');
  let lines = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk);
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { hash: hash.digest('hex'), lines, bytes: statSync(path).size };
}

// ---- the sandbox --------------------------------------------------------------------------------
/** Starts a sandbox process; resolves with { url, rfc, stats(), stop() }. */
async function startSandbox(options) {
  const child = fork(join(HERE, 'sandbox.js'), [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (c) => reject(new Error(`sandbox exited with ${c}`)));
  });
  const ask = (type) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m.type === type) {
          child.off('message', on);
          resolve(m);
        }
      };
      child.on('message', on);
      child.send({ type });
    });
  return {
    url: ready.url,
    rfc: ready.taxpayers[0],
    stats: async () => (await ask('stats')).stats,
    stop: async () => {
      child.send({ type: 'stop' });
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

// ---- contenders -------------------------------------------------------------------------------
const CONFIG_DIR = join(TMP, 'config');
const outFile = (name, ext) => join(TMP, `${name.replace(/[^a-z0-9]+/gi, '-')}.${ext}`);

/**
 * `collections invoices …` against a sandbox, writing `out` (`--out`: sidecar, fsync and checkpoint
 * per page, rename at the end), or with `stdout` true its standard output redirected to `out`
 * (no checkpoint: what the durability of `--out` costs).
 */
function collections(name, extra, ext = 'ndjson', stdout = false) {
  return {
    name,
    ext,
    kind: 'node',
    stdout,
    command: (sb, out) => [
      process.execPath,
      [BIN, 'invoices', '--taxpayer', sb.rfc, '--base-url', sb.url, '--api-key', KEY, ...(stdout ? [] : ['--out', out]), '--quiet', ...extra],
    ],
    env: { COLLECTIONS_CONFIG_DIR: CONFIG_DIR },
  };
}

function minimalLoop(name, itemsPerPage, extra = []) {
  return {
    name,
    ext: 'ndjson',
    kind: 'node',
    command: (sb, out) => [
      process.execPath,
      [join(HERE, 'minimal-loop.js'), `${sb.url}/taxpayers/${sb.rfc}/invoices?itemsPerPage=${itemsPerPage}`, KEY, out, ...extra],
    ],
  };
}

const curlJq = {
  name: 'curl + jq loop',
  ext: 'ndjson',
  kind: 'shell',
  command: (sb, out) => ['sh', [join(HERE, 'curl-jq.sh'), `${sb.url}/taxpayers/${sb.rfc}/invoices?itemsPerPage=1000`, KEY, out]],
};

// ---- scenarios --------------------------------------------------------------------------------
const notes = [];
const rows = [];
/** Medians by `scenario/contender`, for the targets. */
const results = new Map();

function record(scenario, contender, runs, extra = {}) {
  const ok = runs.filter((r) => r.ok);
  const entry = {
    scenario,
    contender,
    runs: runs.length,
    failed: runs.length - ok.length,
    ms: median(ok.map((r) => r.ms)),
    samples: ok.map((r) => r.ms),
    rssMiB: median(ok.map((r) => r.rssKiB / 1024)),
    items: extra.items,
    ...extra,
  };
  entry.itemsPerSecond = entry.items ? entry.items / (entry.ms / 1000) : undefined;
  results.set(`${scenario}/${contender}`, entry);
  rows.push(entry);
  return entry;
}

/**
 * Runs `contenders` for `rounds` rounds against one sandbox, rotating the order each round, and
 * checks that every output is identical to the first contender's (same bytes for the same format).
 */
async function rotate(scenario, sb, contenders, rounds, { items, before, after } = {}) {
  const runs = new Map(contenders.map((c) => [c.name, []]));
  const reference = new Map();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + round) % contenders.length];
      const out = outFile(`${scenario}-${c.name}`, c.ext);
      rmSync(out, { force: true });
      const context = before ? await before(c) : {};
      const [cmd, args] = c.command(sb, out);
      const stdoutFd = c.stdout ? openSync(out, 'w') : undefined;
      const r = await runProcess(cmd, args, { env: c.env, node: c.kind === 'node', stdoutFd });
      if (stdoutFd !== undefined) closeSync(stdoutFd);
      const extra = after ? await after(c, r, context) : {};
      const d = await digest(out);
      rmSync(out, { force: true });
      let ok = r.code === 0;
      const problems = [];
      if (!ok) problems.push(`exit ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
      if (ok && items !== undefined && c.ext === 'ndjson' && d.lines !== items) {
        ok = false;
        problems.push(`${d.lines} lines, expected ${items}`);
      }
      if (ok) {
        const ref = reference.get(c.ext);
        if (ref === undefined) reference.set(c.ext, { hash: d.hash, by: c.name });
        else if (ref.hash !== d.hash) problems.push(`output differs from ${ref.by}'s`);
      }
      if (problems.length > 0) notes.push(`${scenario} / ${c.name}, round ${round + 1}: ${problems.join('; ')}`);
      runs.get(c.name).push({ ...r, ok, ...extra });
      const rss = Number.isFinite(r.rssKiB) ? `${(r.rssKiB / 1024).toFixed(0)} MiB` : '';
      process.stderr.write(`  ${scenario.padEnd(10)} round ${round + 1}  ${c.name.padEnd(42)} ${(r.ms / 1000).toFixed(2).padStart(7)} s ${rss.padStart(9)}${ok ? '' : '  FAILED'}\n`);
    }
  }
  return runs;
}

async function throughput() {
  const n = SIZE.throughput;
  const sb = await startSandbox({ invoices: n, limit: 0 });
  try {
    const contenders = [
      collections('collections offset (default concurrency)', []),
      collections('collections cursor', ['--cursor']),
      minimalLoop('minimal Node loop', 1000),
      collections('collections offset, stdout > file', [], 'ndjson', true),
    ];
    if (JQ && CURL) contenders.push(curlJq);
    else notes.push(`curl + jq contender skipped: ${JQ ? '' : 'jq'}${!JQ && !CURL ? ' and ' : ''}${CURL ? '' : 'curl'} not on PATH (install jq, e.g. apt-get install jq, to include it)`);
    await warm(sb, n);
    const runs = await rotate('throughput', sb, contenders, ROUNDS, { items: n });
    for (const c of contenders) record('throughput', c.name, runs.get(c.name), { items: n });

    // CSV, against our own NDJSON in the same rounds.
    const csv = [collections('collections offset CSV', [], 'csv'), collections('collections offset NDJSON', [])];
    const csvRuns = await rotate('csv', sb, csv, ROUNDS, { items: n });
    for (const c of csv) record('csv', c.name, csvRuns.get(c.name), { items: n });
  } finally {
    await sb.stop();
  }
}

/** Fills the sandbox's item cache so every contender meets the same warm server. */
async function warm(sb, n) {
  const out = join(TMP, 'warm.ndjson');
  const [cmd, args] = minimalLoop('warm', 1000).command(sb, out);
  const r = await runProcess(cmd, args, { rss: false });
  rmSync(out, { force: true });
  if (r.code !== 0) throw new Error(`warm-up of a ${n}-item sandbox failed: ${r.stderr}`);
}

async function memory() {
  const n = SIZE.memory;
  const sb = await startSandbox({ invoices: n, limit: 0 });
  try {
    const contenders = [collections('collections offset (default concurrency)', []), minimalLoop('minimal Node loop', 1000)];
    await warm(sb, n);
    const runs = await rotate('memory', sb, contenders, ROUNDS, { items: n });
    for (const c of contenders) record('memory', c.name, runs.get(c.name), { items: n });
  } finally {
    await sb.stop();
  }
}

async function rateLimit() {
  const pages = SIZE.rlPages;
  const n = pages * RL.itemsPerPage;
  const W = RL.windowSeconds * 1000;
  const sb = await startSandbox({ invoices: n, limit: RL.limit, window: RL.windowSeconds });
  try {
    const contenders = [
      collections('collections offset (default concurrency)', ['--items-per-page', String(RL.itemsPerPage)]),
      minimalLoop('minimal Node loop, naive 429 handling', RL.itemsPerPage, ['--naive-429']),
    ];
    const windows = Math.ceil(pages / RL.limit);
    const runs = await rotate('ratelimit', sb, contenders, ROUNDS, {
      items: n,
      // Start 100 ms into a fresh window (the sandbox's windows are aligned on multiples of W),
      // so the theoretical minimum is the same for everyone: the first window's rest, then
      // windows − 2 whole windows until the last window opens.
      before: async () => {
        const now = Date.now();
        const start = Math.ceil(now / W) * W + 100;
        await sleep(start - now);
        const stats = await sb.stats();
        const spawnAt = Date.now();
        const firstReset = Math.ceil(spawnAt / W) * W;
        return { count429: stats.byStatus[429] ?? 0, minimumMs: firstReset + (windows - 2) * W - spawnAt };
      },
      after: async (c, r, ctx) => {
        const stats = await sb.stats();
        return { status429: (stats.byStatus[429] ?? 0) - ctx.count429, minimumMs: ctx.minimumMs };
      },
    });
    for (const c of contenders) {
      const rs = runs.get(c.name).filter((r) => r.ok);
      record('ratelimit', c.name, runs.get(c.name), {
        items: n,
        status429: median(rs.map((r) => r.status429)),
        minimumMs: median(rs.map((r) => r.minimumMs)),
        ratioToMinimum: median(rs.map((r) => r.ms / r.minimumMs)),
      });
    }
  } finally {
    await sb.stop();
  }
}

async function latency() {
  const pages = SIZE.latencyPages;
  const n = pages * LATENCY.itemsPerPage;
  const sb = await startSandbox({ invoices: n, limit: 0, latency: LATENCY.ms });
  try {
    const contenders = [1, 4, 8].map((c) =>
      collections(`collections offset --concurrency ${c}`, ['--concurrency', String(c), '--items-per-page', String(LATENCY.itemsPerPage)]),
    );
    const runs = await rotate('latency', sb, contenders, ROUNDS, { items: n });
    for (const c of contenders) record('latency', c.name, runs.get(c.name), { items: n });
  } finally {
    await sb.stop();
  }
}

async function startup() {
  const contenders = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'collections --version', args: [BIN, '--version'] },
    { name: 'collections --help', args: [BIN, '--help'] },
  ];
  const runs = new Map(contenders.map((c) => [c.name, []]));
  // One untimed pass so the file system cache is warm for everyone.
  for (const c of contenders) await runProcess(process.execPath, c.args, { rss: false });
  for (let round = 0; round < SIZE.startupRounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + round) % contenders.length];
      const r = await runProcess(process.execPath, c.args, { rss: false, env: { COLLECTIONS_CONFIG_DIR: CONFIG_DIR } });
      runs.get(c.name).push({ ...r, ok: r.code === 0 });
    }
  }
  for (const c of contenders) {
    const entry = record('startup', c.name, runs.get(c.name));
    process.stderr.write(`  startup    ${c.name.padEnd(42)} ${entry.ms.toFixed(1).padStart(7)} ms (median of ${entry.samples.length})\n`);
  }
}

// ---- targets ----------------------------------------------------------------------------------
function targets() {
  const get = (k) => results.get(k);
  const t = [];
  const add = (name, measured, goal, pass, available = true) =>
    t.push({ name, measured: available ? measured : 'not run', goal, status: available ? (pass ? 'met' : 'MISSED') : 'not run' });
  const ips = (k) => get(k)?.itemsPerSecond;
  const offset = 'collections offset (default concurrency)';
  {
    const a = ips(`throughput/${offset}`);
    const b = ips('throughput/minimal Node loop');
    add('NDJSON offset mode vs minimal loop (items/s)', `${(a / b).toFixed(2)}x`, '>= 1.10x', a / b >= 1.1, a !== undefined && b !== undefined);
  }
  {
    const a = ips('throughput/collections cursor');
    const b = ips('throughput/minimal Node loop');
    add('NDJSON cursor mode vs minimal loop (items/s)', `${(a / b).toFixed(2)}x`, '>= 0.90x', a / b >= 0.9, a !== undefined && b !== undefined);
  }
  {
    const a = ips('csv/collections offset CSV');
    const b = ips('csv/collections offset NDJSON');
    add('CSV vs our NDJSON (items/s)', `${(a / b).toFixed(2)}x`, '>= 0.50x', a / b >= 0.5, a !== undefined && b !== undefined);
  }
  for (const s of ['throughput', 'memory']) {
    for (const name of [offset, ...(s === 'throughput' ? ['collections cursor'] : [])]) {
      const a = get(`${s}/${name}`)?.rssMiB;
      const b = get(`${s}/minimal Node loop`)?.rssMiB;
      add(`peak RSS, ${s}: ${name} vs minimal loop`, `${a?.toFixed(0)} vs ${b?.toFixed(0)} MiB = ${(a / b).toFixed(2)}x`, '<= 1.30x', a / b <= 1.3, Number.isFinite(a) && Number.isFinite(b));
    }
  }
  {
    const a = get(`memory/${offset}`)?.rssMiB;
    const b = get(`throughput/${offset}`)?.rssMiB;
    add(
      `peak RSS flat: ${SIZE.memory.toLocaleString('en')} vs ${SIZE.throughput.toLocaleString('en')} items`,
      `${a?.toFixed(0)} - ${b?.toFixed(0)} = ${(a - b).toFixed(1)} MiB`,
      '<= 20 MB',
      a - b <= 20 * 1e6 / 2 ** 20,
      Number.isFinite(a) && Number.isFinite(b),
    );
  }
  {
    const e = get(`ratelimit/${offset}`);
    add(
      'rate limit: wall time vs minimum, 429s',
      e ? `${e.ratioToMinimum.toFixed(3)}x (${(e.ms / 1000).toFixed(2)} s vs ${(e.minimumMs / 1000).toFixed(2)} s), ${e.status429} x 429` : '',
      '<= 1.05x, 0 x 429',
      e && e.ratioToMinimum <= 1.05 && e.status429 === 0,
      e !== undefined,
    );
  }
  {
    const a = get('latency/collections offset --concurrency 8')?.ms;
    const b = get('latency/collections offset --concurrency 1')?.ms;
    add('latency: --concurrency 8 vs 1 (speed-up)', `${(b / a).toFixed(2)}x`, '>= 6x', b / a >= 6, a !== undefined && b !== undefined);
  }
  {
    const a = get('startup/collections --version')?.ms;
    const b = get('startup/node -e 0')?.ms;
    add('start-up: --version vs node -e 0', `${a?.toFixed(0)} vs ${b?.toFixed(0)} ms = ${(a / b).toFixed(2)}x`, '<= 1.50x', a / b <= 1.5, a !== undefined && b !== undefined);
  }
  return t;
}

// ---- report -----------------------------------------------------------------------------------
function fmt(n, digits = 0) {
  return Number.isFinite(n) ? n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';
}

function tableRows() {
  return rows.map((e) => {
    const wall = e.scenario === 'startup' ? `${fmt(e.ms, 1)} ms` : `${fmt(e.ms / 1000, 2)} s`;
    const more = [];
    if (e.status429 !== undefined) more.push(`${fmt(e.status429)} x 429, minimum ${fmt(e.minimumMs / 1000, 2)} s (${fmt(e.ratioToMinimum, 3)}x)`);
    if (e.failed) more.push(`${e.failed} failed`);
    const samples = e.samples.map((ms) => (e.scenario === 'startup' ? fmt(ms, 0) : fmt(ms / 1000, 2))).join(' ');
    return [e.scenario, e.contender, wall, e.itemsPerSecond ? fmt(e.itemsPerSecond) : '–', Number.isFinite(e.rssMiB) ? fmt(e.rssMiB, 0) : '–', more.join('; '), samples];
  });
}

const HEAD = ['scenario', 'contender', 'median wall', 'items/s', 'peak RSS MiB', 'notes', 'samples'];

function printTable(header, body) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of body) console.log(line(r));
}

function markdown(header, body) {
  const esc = (c) => String(c).replace(/\|/g, '\\|');
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

function machine() {
  const cpu = (() => {
    try {
      return /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
    } catch {
      return undefined;
    }
  })();
  return {
    cpus: cpus().length,
    cpu: cpu ?? cpus()[0]?.model ?? 'unknown',
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    os: `${process.platform} ${release()}`,
  };
}

// ---- main -------------------------------------------------------------------------------------
const SCENARIOS = { throughput, memory, ratelimit: rateLimit, latency, startup };
if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
  console.error('bench: dist/ is missing; run `npm run build` first (npm run bench does)');
  process.exit(2);
}
mkdirSync(TMP, { recursive: true });
rmSync(CONFIG_DIR, { recursive: true, force: true });
mkdirSync(CONFIG_DIR, { recursive: true });
if (!GNU_TIME) notes.push('GNU time not found: peak RSS of the node contenders comes from process.resourceUsage().maxRSS at exit; none for curl + jq');
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
printTable(HEAD.slice(0, 6), body.map((r) => r.slice(0, 6)));
console.log();
printTable(['target', 'measured', 'goal', 'status'], t.map((x) => [x.name, x.measured, x.goal, x.status]));
for (const n of notes) console.log(`note: ${n}`);

const m = machine();
const md = `# Benchmark results

Written by \`${QUICK ? 'node test/bench/run.js --quick' : 'npm run bench'}\`${ONLY ? ` (--only ${ONLY.join(',')})` : ''} on ${new Date().toISOString()}; took ${fmt(elapsed / 60, 1)} min.

Machine: ${m.cpus} CPUs (\`nproc\`), ${m.cpu}; ${m.memory} RAM; Node ${m.node}; ${m.os}.
The sandbox runs in its own process on the same machine (it shares the CPUs with the client).
${ROUNDS} round(s), contenders alternating within each round (order rotated per round), medians;
peak RSS is the client process's (${GNU_TIME ? 'GNU time %M' : 'process.resourceUsage().maxRSS'}). Items/s = items / wall time of the whole process (start-up included).

Scenarios: throughput = ${fmt(SIZE.throughput)} invoices, itemsPerPage 1000, no rate limit, to a file;
csv = the same to CSV, against our NDJSON in the same rounds; memory = ${fmt(SIZE.memory)} invoices;
ratelimit = ${RL.limit} requests per ${RL.windowSeconds} s window, ${SIZE.rlPages} pages of ${RL.itemsPerPage}, each run started 100 ms into a
fresh window (minimum = until the ${Math.ceil(SIZE.rlPages / RL.limit)}th window opens); latency = ${LATENCY.ms} ms per response,
${SIZE.latencyPages} pages of ${LATENCY.itemsPerPage}, offset mode; startup = ${SIZE.startupRounds} rounds.

${markdown(HEAD, body)}

## Targets

${markdown(['target', 'measured', 'goal', 'status'], t.map((x) => [x.name, x.measured, x.goal, x.status]))}
${notes.length > 0 ? `\n## Notes\n\n${notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
writeFileSync(OUT, md);
console.log(`\nbench: wrote ${OUT.startsWith(ROOT) ? OUT.slice(ROOT.length) : OUT} (${fmt(elapsed, 0)} s)`);
