// The report of `npm run bench`: the targets met or missed, the terminal tables and results.md.
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { LATENCY, ONLY, QUICK, RL, ROUNDS, SIZE } from './config.js';
import { results, rows } from './rounds.js';
import { GNU_TIME } from './tools.js';

/** The targets of the benchmark, each measured, with its goal and whether it was met. */
export function targets() {
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
      add(
        `peak RSS, ${s}: ${name} vs minimal loop`,
        `${a?.toFixed(0)} vs ${b?.toFixed(0)} MiB = ${(a / b).toFixed(2)}x`,
        '<= 1.30x',
        a / b <= 1.3,
        Number.isFinite(a) && Number.isFinite(b),
      );
    }
  }
  {
    const a = get(`memory/${offset}`)?.rssMiB;
    const b = get(`throughput/${offset}`)?.rssMiB;
    add(
      `peak RSS flat: ${SIZE.memory.toLocaleString('en')} vs ${SIZE.throughput.toLocaleString('en')} items`,
      `${a?.toFixed(0)} - ${b?.toFixed(0)} = ${(a - b).toFixed(1)} MiB`,
      '<= 20 MB',
      a - b <= (20 * 1e6) / 2 ** 20,
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
    add(
      'start-up: --version vs node -e 0',
      `${a?.toFixed(0)} vs ${b?.toFixed(0)} ms = ${(a / b).toFixed(2)}x`,
      '<= 1.50x',
      a / b <= 1.5,
      a !== undefined && b !== undefined,
    );
  }
  return t;
}

/** `n` with thousands separators and `digits` decimals; – when not finite. */
export function fmt(n, digits = 0) {
  return Number.isFinite(n) ? n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';
}

/** The rows of the results table, one per scenario and contender. */
export function tableRows() {
  return rows.map((e) => {
    const wall = e.scenario === 'startup' ? `${fmt(e.ms, 1)} ms` : `${fmt(e.ms / 1000, 2)} s`;
    const more = [];
    if (e.status429 !== undefined) more.push(`${fmt(e.status429)} x 429, minimum ${fmt(e.minimumMs / 1000, 2)} s (${fmt(e.ratioToMinimum, 3)}x)`);
    if (e.failed) more.push(`${e.failed} failed`);
    const samples = e.samples.map((ms) => (e.scenario === 'startup' ? fmt(ms, 0) : fmt(ms / 1000, 2))).join(' ');
    return [
      e.scenario,
      e.contender,
      wall,
      e.itemsPerSecond ? fmt(e.itemsPerSecond) : '–',
      Number.isFinite(e.rssMiB) ? fmt(e.rssMiB, 0) : '–',
      more.join('; '),
      samples,
    ];
  });
}

/** Header of the results table. */
export const HEAD = ['scenario', 'contender', 'median wall', 'items/s', 'peak RSS MiB', 'notes', 'samples'];

/** Prints a fixed-width table on stdout. */
export function printTable(header, body) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of body) console.log(line(r));
}

/** A Markdown table. */
function markdown(header, body) {
  const esc = (c) => String(c).replace(/\|/g, '\\|');
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

/** What the benchmark ran on. */
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

/**
 * The text of results.md: how and where it ran, the scenarios, the table and the targets.
 * @param body rows of {@link tableRows}; t: {@link targets}; notes: strings; elapsed: seconds
 */
export function renderMarkdown(body, t, notes, elapsed) {
  const m = machine();
  return `# Benchmark results

Written by \`${QUICK ? 'node scripts/bench/run.js --quick' : 'npm run bench'}\`${ONLY ? ` (--only ${ONLY.join(',')})` : ''} on ${new Date().toISOString()}; took ${fmt(elapsed / 60, 1)} min.

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

${markdown(
  ['target', 'measured', 'goal', 'status'],
  t.map((x) => [x.name, x.measured, x.goal, x.status]),
)}
${notes.length > 0 ? `\n## Notes\n\n${notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
}
