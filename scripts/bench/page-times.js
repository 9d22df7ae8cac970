// Two builds of the command line, A and B, timed page by page from inside the process: each run
// records when each page's request left and when its last byte came (undici's diagnostics
// channels), and its `exit` event, in ms since the process started; the runs alternate A B A B on
// one bench sandbox (100 ms latency, 10,000 invoices, 100 pages of 100), and the medians per page
// are compared. A change of 10–20 ms in a 2 s run shows here; the bench's 3–5 samples of whole runs,
// on a machine whose speed drifts by several per cent within the hour, cannot show it
// (test/bench/results.md, sixth stop).
//
//   node scripts/bench/page-times.js <A: bin/collections.js> <B: other checkout's bin/collections.js> [--pairs 25] [--concurrency 8]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSandbox } from './tools.js';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args.splice(i, 2)[1]);
};
const pairs = option('--pairs', 25);
const concurrency = option('--concurrency', 8);
const [binA, binB] = args;
if (binA === undefined || binB === undefined) {
  process.stderr.write('usage: node scripts/bench/page-times.js <bin A> <bin B> [--pairs N] [--concurrency N]\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'page-times-'));
const preload = join(dir, 'times.mjs');
writeFileSync(
  preload,
  `import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
const t = {};
const page = (path) => /[?&]page=(\\d+)/.exec(path)?.[1] ?? '1';
dc.subscribe('undici:client:sendHeaders', (m) => { (t[page(m.request.path)] ??= {}).send ??= performance.now(); });
dc.subscribe('undici:request:trailers', (m) => { (t[page(m.request.path)] ??= {}).done ??= performance.now(); });
process.on('exit', () => { t.exit = performance.now(); writeFileSync(process.env.PAGE_TIMES_OUT, JSON.stringify(t)); });
`,
);

const median = (values) => {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length === 0 ? NaN : v[Math.floor(v.length / 2)];
};

const sb = await startSandbox({ invoices: 10_000, limit: 0, latency: 100 });
/** @type {{ A: Array<Record<string, { send?: number; done?: number } | undefined> & { exit?: number }>; B: Array<Record<string, { send?: number; done?: number } | undefined> & { exit?: number }> }} */
const runs = { A: [], B: [] };
try {
  for (let i = 0; i < pairs; i++) {
    for (const [name, bin] of [
      ['A', binA],
      ['B', binB],
    ]) {
      const out = join(dir, `${name}.json`);
      execFileSync(
        process.execPath,
        ['--import', pathToFileURL(preload).href, bin, 'invoices', '--taxpayer', sb.rfc, '--base-url', sb.url, '--api-key', 'sandbox-key'].concat([
          '--items-per-page',
          '100',
          '--concurrency',
          String(concurrency),
          '--quiet',
          '--out',
          join(dir, `${name}.ndjson`),
        ]),
        { env: { ...process.env, PAGE_TIMES_OUT: out, COLLECTIONS_CONFIG_DIR: join(dir, 'config') }, stdio: 'inherit' },
      );
      runs[name].push(JSON.parse(readFileSync(out, 'utf8')));
      rmSync(join(dir, `${name}.ndjson`), { force: true });
    }
  }
} finally {
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
}

const rows = [];
for (const key of ['1', '2', '4', '9', '12', '52', '92', '100']) {
  for (const event of ['send', 'done']) {
    const a = median(runs.A.map((r) => r[key]?.[event]));
    const b = median(runs.B.map((r) => r[key]?.[event]));
    rows.push(
      `page ${key.padStart(3)} ${event.padEnd(4)}  A ${a.toFixed(1).padStart(7)}  B ${b.toFixed(1).padStart(7)}  A−B ${(a - b).toFixed(1).padStart(6)} ms`,
    );
  }
}
const a = median(runs.A.map((r) => r.exit));
const b = median(runs.B.map((r) => r.exit));
rows.push(`exit           A ${a.toFixed(1).padStart(7)}  B ${b.toFixed(1).padStart(7)}  A−B ${(a - b).toFixed(1).padStart(6)} ms`);
process.stdout.write(`medians of ${pairs} pairs, ms since each process started (--concurrency ${concurrency})\n${rows.join('\n')}\n`);
