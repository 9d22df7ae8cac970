// Contenders and rounds of `npm run bench`: the commands compared, and running them in rotating
// order against one sandbox while checking that their outputs are identical.
import { closeSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, CONFIG_DIR, HERE, KEY, TMP } from './config.js';
import { digest, median, runProcess } from './tools.js';

const outFile = (name, ext) => join(TMP, `${name.replace(/[^a-z0-9]+/gi, '-')}.${ext}`);

/**
 * `collections invoices …` against a sandbox, writing `out` (`--out`: sidecar, fsync and checkpoint
 * per page, rename at the end), or with `stdout` true its standard output redirected to `out`
 * (no checkpoint: what the durability of `--out` costs).
 */
export function collections(name, extra, ext = 'ndjson', stdout = false) {
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

/**
 * The minimal hand-written Node loop (minimal-loop.js) reading `itemsPerPage` items a page. Its
 * items are JSON.stringify's re-serialisation (`\/` becomes `/`, a 64-bit integer loses digits), so
 * its output is compared with the other re-serialising contenders only (`compare`).
 */
export function minimalLoop(name, itemsPerPage, extra = []) {
  return {
    name,
    ext: 'ndjson',
    compare: 'ndjson, re-serialised',
    kind: 'node',
    command: (sb, out) => [
      process.execPath,
      [join(HERE, 'minimal-loop.js'), `${sb.url}/taxpayers/${sb.rfc}/invoices?itemsPerPage=${itemsPerPage}`, KEY, out, ...extra],
    ],
  };
}

/**
 * "The limit of the machine" (machine-limit.js): 4 offset pages at a time, bodies written unparsed.
 * Its output is the page bodies, so its line count is not checked.
 */
export function machineLimit(name, itemsPerPage) {
  return {
    name,
    ext: 'bodies',
    kind: 'node',
    command: (sb, out) => [
      process.execPath,
      [join(HERE, 'machine-limit.js'), `${sb.url}/taxpayers/${sb.rfc}/invoices?itemsPerPage=${itemsPerPage}`, KEY, out],
    ],
  };
}

/** The curl + jq shell loop (curl-jq.sh); jq re-serialises items in its own way (number literals by jq version). */
export const curlJq = {
  name: 'curl + jq loop',
  ext: 'ndjson',
  compare: 'ndjson, jq',
  kind: 'shell',
  command: (sb, out) => ['sh', [join(HERE, 'curl-jq.sh'), `${sb.url}/taxpayers/${sb.rfc}/invoices?itemsPerPage=1000`, KEY, out]],
};

/** Notes for the report (failures, skipped contenders). */
export const notes = [];
/** One entry per scenario and contender, in the order run. */
export const rows = [];
/** Medians by `scenario/contender`, for the targets. */
export const results = new Map();

/** Records the medians of `runs` of a contender in a scenario; returns the entry. */
export function record(scenario, contender, runs, extra = {}) {
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
 * checks that every output is identical to the first contender's of its group (same bytes for the
 * same format, or for the same `compare` group).
 */
export async function rotate(scenario, sb, contenders, rounds, { items, before, after } = {}) {
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
        const group = c.compare ?? c.ext;
        const ref = reference.get(group);
        if (ref === undefined) reference.set(group, { hash: d.hash, by: c.name });
        else if (ref.hash !== d.hash) problems.push(`output differs from ${ref.by}'s`);
      }
      if (problems.length > 0) notes.push(`${scenario} / ${c.name}, round ${round + 1}: ${problems.join('; ')}`);
      runs.get(c.name).push({ ...r, ok, ...extra });
      const rss = Number.isFinite(r.rssKiB) ? `${(r.rssKiB / 1024).toFixed(0)} MiB` : '';
      process.stderr.write(
        `  ${scenario.padEnd(10)} round ${round + 1}  ${c.name.padEnd(42)} ${(r.ms / 1000).toFixed(2).padStart(7)} s ${rss.padStart(9)}${ok ? '' : '  FAILED'}\n`,
      );
    }
  }
  return runs;
}
