// The scenarios of `npm run bench`, one function each: throughput (with CSV), memory, rate limit,
// latency, start-up (with the time to the first request); table and nightly are in scenarios-more.js. Each starts its own sandbox process and records its rows (rounds.js).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN, CONFIG_DIR, CURSOR, FIRST_REQUEST, KEY, LATENCY, MACHINE_LIMIT, RL, ROUNDS, SIZE, TMP } from './config.js';
import { nightly, table } from './scenarios-more.js';
import { library } from './scenarios-library.js';
import { hosts } from './scenarios-hosts.js';
import { collections, curlJq, machineLimit, minimalLoop, notes, record, rotate } from './rounds.js';
import { CURL, JQ, median, runProcess, startSandbox } from './tools.js';

/**
 * Against the sandbox's default bytes (API Platform's escapes): our offset and cursor modes, stdout
 * redirected, the minimal loop and "the limit of the machine" on the same bytes, and curl + jq;
 * then CSV vs NDJSON. Then, so a regression on either encoding shows, our offset NDJSON and the
 * minimal loop again against `--wire compact` (JSON.stringify's bytes), in `throughput-compact`.
 */
async function throughput() {
  const n = SIZE.throughput;
  const sb = await startSandbox({ invoices: n, limit: 0 });
  try {
    const contenders = [
      collections('collections offset (default concurrency)', []),
      collections(CURSOR, ['--cursor']),
      minimalLoop('minimal Node loop', 1000),
      machineLimit(MACHINE_LIMIT, 1000),
      collections('collections offset, stdout > file', [], 'ndjson', true),
    ];
    if (JQ && CURL) contenders.push(curlJq);
    else
      notes.push(
        `curl + jq contender skipped: ${JQ ? '' : 'jq'}${!JQ && !CURL ? ' and ' : ''}${CURL ? '' : 'curl'} not on PATH (install jq, e.g. apt-get install jq, to include it)`,
      );
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
  const compact = await startSandbox({ invoices: n, limit: 0, wire: 'compact' });
  try {
    const contenders = [collections('collections offset (default concurrency)', []), minimalLoop('minimal Node loop', 1000)];
    await warm(compact, n);
    const runs = await rotate('throughput-compact', compact, contenders, ROUNDS, { items: n });
    for (const c of contenders) record('throughput-compact', c.name, runs.get(c.name), { items: n });
  } finally {
    await compact.stop();
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

/** Peak RSS on a collection ten times larger, against the minimal loop. */
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

/** Wall time against the theoretical minimum under a small rate limit, and the 429s met. */
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

/** Offset mode at concurrency 1, 4 and 8 against a slow server. */
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

/**
 * Start-up time of `--version` and `--help` against `node -e 0`, and the time from spawning an
 * export to its first request reaching the sandbox (the sandbox process notes its arrival).
 */
async function startup() {
  const sb = await startSandbox({ invoices: 10, limit: 0 });
  const exportArgs = [BIN, 'invoices', '--taxpayer', sb.rfc, '--base-url', sb.url, '--api-key', KEY, '--max-items', '1', '--quiet'];
  const contenders = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'collections --version', args: [BIN, '--version'] },
    { name: 'collections --help', args: [BIN, '--help'] },
    { name: FIRST_REQUEST, args: exportArgs, first: true },
  ];
  const runs = new Map(contenders.map((c) => [c.name, []]));
  try {
    // One untimed pass so the file system cache is warm for everyone.
    for (const c of contenders) await runProcess(process.execPath, c.args, { rss: false, env: { COLLECTIONS_CONFIG_DIR: CONFIG_DIR } });
    await sb.firstRequestAt();
    for (let round = 0; round < SIZE.startupRounds; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(k + round) % contenders.length];
        const r = await runProcess(process.execPath, c.args, { rss: false, env: { COLLECTIONS_CONFIG_DIR: CONFIG_DIR } });
        const at = c.first ? await sb.firstRequestAt() : undefined;
        const ms = c.first ? (at ?? NaN) - r.spawnAt : r.ms;
        runs.get(c.name).push({ ...r, ms, ok: r.code === 0 && Number.isFinite(ms) });
      }
    }
  } finally {
    await sb.stop();
  }
  for (const c of contenders) {
    const entry = record('startup', c.name, runs.get(c.name));
    process.stderr.write(`  startup    ${c.name.padEnd(42)} ${entry.ms.toFixed(1).padStart(7)} ms (median of ${entry.samples.length})\n`);
  }
}

/** The scenarios by their `--only` name (`csv` runs within `throughput`). */
export const SCENARIOS = { throughput, memory, ratelimit: rateLimit, latency, startup, table, nightly, library, hosts };
