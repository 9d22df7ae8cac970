// Settings of `npm run bench` (scripts/bench/run.js): paths, command-line arguments, sizes.
//
//   node scripts/bench/run.js [--quick] [--only throughput,csv,memory,ratelimit,latency,startup,table,nightly,library,hosts]
//                             [--rounds N] [--out FILE]
//
// --quick (or BENCH_QUICK=1): small collections and one round, a smoke run of the harness for
// development (results go to test/bench/tmp/results-quick.md unless --out says otherwise); with
// --only, a subset of the scenarios.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** This folder: the contender scripts and the sandbox process. */
export const HERE = join(ROOT, 'scripts/bench');
/** Where the results go (README, "Test", links results.md there). */
export const RESULTS_DIR = join(ROOT, 'test/bench');
/** Scratch files: outputs, peak-RSS files, the config folder (ignored by git). */
export const TMP = join(RESULTS_DIR, 'tmp');
export const BIN = join(ROOT, 'bin/collections.js');
/** The sandbox's default key (src/sandbox/defaults.ts). */
export const KEY = 'sandbox-key';
/** The config folder of every collections run, so none touches the user's settings. */
export const CONFIG_DIR = join(TMP, 'config');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
/** `--quick` or `BENCH_QUICK=1`: small collections and one round, for development. */
export const QUICK = flag('--quick') || process.env.BENCH_QUICK === '1';
/** Scenarios to run (all when undefined). */
export const ONLY = value('--only')
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
export const ROUNDS = Number(value('--rounds') ?? (QUICK ? 1 : 3));
export const OUT = value('--out') ?? (QUICK ? join(TMP, 'results-quick.md') : join(RESULTS_DIR, 'results.md'));

/** Sizes: the in a full run, a tenth or less in --quick. */
export const SIZE = QUICK
  ? { throughput: 20_000, memory: 100_000, rlPages: 30, latencyPages: 30, startupRounds: 5, table: 10_000, nightly: 5_000, nightlyChurn: 600 }
  : { throughput: 200_000, memory: 1_000_000, rlPages: 100, latencyPages: 100, startupRounds: 15, table: 10_000, nightly: 50_000, nightlyChurn: 600 };
export const RL = { limit: 10, windowSeconds: 2, itemsPerPage: 100 };
/** The hosts scenario (scenarios-hosts.js): the figures; --quick runs the same sizes, once. */
export const HOSTS = { counts: [1, 2, 4], taxpayers: 40, pages: 3, itemsPerPage: 10, limit: 10, windowSeconds: 2 };
export const LATENCY = { ms: 100, itemsPerPage: 100 };
/** A contender run that takes longer than this is killed and counted as failed. */
export const RUN_TIMEOUT_MS = 5 * 60_000;

/** "The limit of the machine" contender's name (scenarios.js, report.js). */
export const MACHINE_LIMIT = 'the limit of the machine (4 pages in flight, bodies unparsed)';
/** Our cursor-mode contender's name (scenarios.js, report.js). */
export const CURSOR = 'collections cursor (next page fetched ahead)';
/** The time-to-first-request row's name (scenarios.js, report.js). */
export const FIRST_REQUEST = 'collections invoices: spawn to first request';
