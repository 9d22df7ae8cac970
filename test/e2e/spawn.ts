/**
 * Helpers of the spawned end-to-end tests: the built bin against a sandbox served on 127.0.0.1 by
 * the test process, clean reference exports run in process against the same server, and a way to
 * stop a run after its k-th request (`--verbose` prints one stderr line per response).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { main } from '../../src/cli/main.js';
import { systemClock } from '../../src/time/clock.js';
import { createTestContext } from '../helpers/context.js';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { CANARY, type TempDir } from './harness.js';

/** Fails early, with the fix, when the bin has not been built. */
export function requireBuild(): void {
  if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url))) {
    throw new Error(`${BIN} needs dist/: run \`npm run build\` first (npm test does)`);
  }
}

/** Environment of every spawned run: a temp config folder, no CI, the key in the environment. */
export function cliEnv(dir: TempDir, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { COLLECTIONS_CONFIG_DIR: dir.file('config'), COLLECTIONS_API_KEY: CANARY, CI: undefined, NO_COLOR: undefined, ...extra };
}

/**
 * Runs a clean export in process against a real server (real fetch, real clock) and returns the
 * bytes of `--out`.
 */
export async function referenceExport(baseUrl: string, dir: TempDir, args: readonly string[], out: string): Promise<Buffer> {
  const t = createTestContext({ fetch: globalThis.fetch, clock: systemClock, cwd: dir.path, configDir: dir.file('config') });
  const code = await main([...args, '--out', out, '--base-url', baseUrl, '--api-key', CANARY, '--quiet'], t.ctx);
  if (code !== 0) throw new Error(`reference export failed (${code}): ${t.stderr.text()}`);
  return dir.read(out);
}

/** Response lines of `--verbose` in a stderr chunk. */
export function countResponses(chunk: string): number {
  return (chunk.match(/^GET \S+ \d{3} /gm) ?? []).length;
}

/** Pages recorded in a checkpoint file, 0 when there is none (or it is being replaced). */
export function checkpointPages(path: string): number {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { pages?: number }).pages ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Spawns `collections ...args` and sends `signal` `delayMs` after the checkpoint at `checkpoint`
 * first records at least `pages` pages (polled every 2 ms): the moment lands anywhere in the
 * write / fsync / checkpoint / next request cycle of the pages that follow.
 */
export function runAndSignalAtCheckpoint(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; signal: NodeJS.Signals; checkpoint: string; pages: number; delayMs: number },
): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  return runCli(args, {
    cwd: options.cwd,
    env: options.env,
    onSpawn: (child) => {
      timer = setInterval(() => {
        if (checkpointPages(options.checkpoint) >= options.pages) {
          clearInterval(timer);
          setTimeout(() => child.kill(options.signal), options.delayMs);
        }
      }, 2);
    },
  }).finally(() => clearInterval(timer));
}

/**
 * Spawns `collections ...args --verbose` and sends `signal` once `afterResponses` response lines
 * were printed, `delayMs` later (0: at once). `afterResponses` 0 sends it `delayMs` after spawning.
 */
export function runAndSignal(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; signal: NodeJS.Signals; afterResponses: number; delayMs?: number },
): Promise<CliResult & { responsesBeforeSignal: number }> {
  let seen = 0;
  let sent = false;
  let atSignal = 0;
  const fire = (child: ChildProcess): void => {
    if (sent) return;
    sent = true;
    const go = (): void => {
      atSignal = seen;
      child.kill(options.signal);
    };
    if (options.delayMs) setTimeout(go, options.delayMs);
    else go();
  };
  return runCli([...args, '--verbose'], {
    cwd: options.cwd,
    env: options.env,
    onSpawn: (child) => {
      if (options.afterResponses === 0) fire(child);
    },
    onStderr: (chunk, child) => {
      seen += countResponses(chunk);
      if (seen >= options.afterResponses) fire(child);
    },
  }).then((r) => ({ ...r, responsesBeforeSignal: atSignal }));
}
