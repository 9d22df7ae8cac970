// Process tools of `npm run bench`: finding programs, running a contender with its peak RSS,
// hashing outputs, and the sandbox in its own process (scripts/bench/sandbox.js).
import { fork, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HERE, RUN_TIMEOUT_MS, TMP } from './config.js';

/** The path of an executable on PATH, or undefined. */
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
export const GNU_TIME = (() => {
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
export const JQ = which('jq');
export const CURL = which('curl');

/**
 * The median of the finite numbers of `xs` (NaN when there are none).
 * @param {number[]} xs
 */
export const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  // The middle value, and for an even count the one before it (read only then, when it exists).
  const middle = /** @type {number} */ (s[m]);
  const before = /** @type {number} */ (s[m - 1]);
  return s.length % 2 ? middle : (before + middle) / 2;
};

/**
 * Runs one contender process to completion.
 * @returns `ms`: wall time from spawn to exit; `rssKiB`: peak RSS of the process (GNU time's %M:
 *   the largest of the processes it waited for); `code`; `stdout`; `stderr`; `spawnAt`: epoch ms
 *   (sub-ms) just before the spawn
 */
export async function runProcess(cmd, args, { env = {}, rss = true, node = false, stdoutFd } = {}) {
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
  const spawnAt = performance.timeOrigin + started;
  const child = spawn(file, fileArgs, { env: { ...process.env, ...env, ...extraEnv }, stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  // stdout is piped (and read) only when it does not go to `stdoutFd`.
  if (stdoutFd === undefined) child.stdout.setEncoding('utf8').on('data', (/** @type {string} */ d) => (stdout = (stdout + d).slice(-20_000)));
  child.stderr.setEncoding('utf8').on('data', (/** @type {string} */ d) => (stderr = (stderr + d).slice(-20_000)));
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
  return { ms, rssKiB, code, stdout, stderr, spawnAt };
}

/** md5 and line count of a file (the outputs of all contenders must be identical). */
export async function digest(path) {
  if (!existsSync(path)) return { hash: undefined, lines: 0, bytes: 0 };
  const hash = createHash('md5');
  let lines = 0;
  /** @type {AsyncIterable<Buffer>} */
  const chunks = createReadStream(path, { highWaterMark: 1 << 20 });
  for await (const chunk of chunks) {
    hash.update(chunk);
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { hash: hash.digest('hex'), lines, bytes: statSync(path).size };
}

/** Starts a sandbox process; resolves with { url, rfc, taxpayers, stats(), firstRequestAt(), requestLog(), stop() }. */
export async function startSandbox(options) {
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
    taxpayers: ready.taxpayers,
    stats: async () => (await ask('stats')).stats,
    /** Epoch ms of the first request since the last call (undefined: none), then forgets it. */
    firstRequestAt: async () => (await ask('first')).at ?? undefined,
    /** The requests answered since the last call ({ at, done, status }, epoch ms), then forgets them. */
    requestLog: async () => (await ask('log')).log,
    stop: async () => {
      child.send({ type: 'stop' });
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
