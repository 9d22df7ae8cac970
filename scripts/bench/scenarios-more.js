// More scenarios of `npm run bench`: table output of 10,000 items, and the nightly scenario (a
// full `--state` run against an incremental one on a sandbox whose items keep changing).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, CONFIG_DIR, KEY, ROUNDS, SIZE, TMP } from './config.js';
import { collections, notes, record, rotate } from './rounds.js';
import { median, runProcess, startSandbox } from './tools.js';

/** `--format table` of 10,000 invoices, stdout redirected to a file (the table needs no terminal). */
export async function table() {
  const n = SIZE.table;
  const sb = await startSandbox({ invoices: n, limit: 0 });
  try {
    const contenders = [collections('collections offset --format table, stdout > file', ['--format', 'table'], 'txt', true)];
    const runs = await rotate('table', sb, contenders, ROUNDS, { items: n });
    for (const c of contenders) record('table', c.name, runs.get(c.name), { items: n });
  } finally {
    await sb.stop();
  }
}

/**
 * The nightly scenario (docs/nightly-sync.md, "Nightly sync"): per round, a first `--state` run (no watermark
 * yet: the whole collection), then an incremental one with the watermark it stored, against a
 * sandbox that changes `SIZE.nightlyChurn` items a minute. Rows: wall time and requests of each.
 */
export async function nightly() {
  const n = SIZE.nightly;
  const sb = await startSandbox({ invoices: n, limit: 0, churn: SIZE.nightlyChurn });
  const state = join(TMP, 'nightly-state.json');
  const out = join(TMP, 'nightly.ndjson');
  const run = async () => {
    const before = (await sb.stats()).requests;
    const args = [BIN, 'invoices', '--taxpayer', sb.rfc, '--base-url', sb.url, '--api-key', KEY, '--state', state, '--out', out, '--quiet'];
    const r = await runProcess(process.execPath, args, { node: true, env: { COLLECTIONS_CONFIG_DIR: CONFIG_DIR } });
    const requests = (await sb.stats()).requests - before;
    if (r.code !== 0) notes.push(`nightly: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-1).join('')}`);
    return { ...r, ok: r.code === 0, requests };
  };
  const full = [];
  const incremental = [];
  try {
    // One filtered request first, untimed: the sandbox reads its items' dates once (its date index).
    await fetch(`${sb.url}/taxpayers/${sb.rfc}/invoices?itemsPerPage=1&updatedAt%5Bafter%5D=2000-01-01T00%3A00%3A00%2B00%3A00`, {
      headers: { 'X-Api-Key': KEY },
    });
    for (let round = 0; round < ROUNDS; round++) {
      rmSync(state, { force: true });
      full.push(await run());
      incremental.push(await run());
      process.stderr.write(
        `  nightly    round ${round + 1}  full ${(full.at(-1).ms / 1000).toFixed(2)} s, ${full.at(-1).requests} requests; incremental ${(incremental.at(-1).ms / 1000).toFixed(2)} s, ${incremental.at(-1).requests} requests\n`,
      );
    }
  } finally {
    rmSync(state, { force: true });
    rmSync(out, { force: true });
    await sb.stop();
  }
  const requests = (rs) => median(rs.filter((r) => r.ok).map((r) => r.requests));
  record('nightly', 'collections --state, first run (everything)', full, { items: n, requests: requests(full) });
  record('nightly', 'collections --state, incremental run', incremental, { requests: requests(incremental) });
}
