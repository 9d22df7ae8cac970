/**
 * Helpers of the spawned end-to-end tests: clean reference exports run in process against the
 * served world, and ways to stop a spawned run after its k-th request (`--verbose` prints one
 * stderr line per response) or once its checkpoint holds k pages.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { runCli, type CliResult } from '../helpers/cli.js';
import { runInProcess, type ServedWorld, type TempDir } from '../helpers/world.js';

/**
 * Runs a clean export in process against a served world (real fetch, real clock) and returns the
 * bytes of `--out` (relative to `dir`).
 * @throws {Error} when the export does not exit 0
 */
export async function referenceExport(world: ServedWorld, dir: TempDir, args: readonly string[], out: string): Promise<Buffer> {
  const r = await runInProcess(world, dir, [...args, '--out', out, '--quiet']);
  if (r.code !== 0) throw new Error(`reference export failed (${r.code}): ${r.stderr}`);
  return dir.read(out);
}

/** Response lines of `--verbose` in a stderr chunk. */
function countResponses(chunk: string): number {
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
