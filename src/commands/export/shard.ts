/**
 * `--shard I/N` (docs/nightly-sync.md, "Several hosts"): a run's stable share of the listed
 * taxpayers. A taxpayer's shard is the SHA-256 of its id modulo N, so it depends on nothing but the
 * id and N: the same taxpayer always goes to the same shard whatever the list's order or length,
 * the shards are disjoint, and together they are the whole list. No coordinator: Kubernetes
 * (an Indexed Job's `JOB_COMPLETION_INDEX`) or the cron lines of several hosts pick I.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import { inertText } from '../../io/terminal-text.js';

/** More shards than this is a typo, not a fleet. */
export const MAX_SHARDS = 10_000;

export interface Shard {
  /** 0 to count − 1, as Kubernetes counts completions. */
  index: number;
  count: number;
}

const WHOLE = /^(0|[1-9]\d{0,8})$/;

/**
 * `I/N`, or `auto/N` with I from `JOB_COMPLETION_INDEX`.
 * @throws {UsageError} (exit 2) for any other text, I outside 0…N−1, N outside 1…{@link MAX_SHARDS},
 *   or `auto` without a whole `JOB_COMPLETION_INDEX`
 */
export function parseShard(text: string, env: Readonly<Record<string, string | undefined>>): Shard {
  const shown = inertText(text.slice(0, 40));
  const m = /^\s*([^/\s]+)\s*\/\s*(\S+)\s*$/.exec(text);
  const hint = { hint: 'e.g. --shard 0/4 … --shard 3/4, or --shard auto/4 in a Kubernetes Indexed Job' };
  if (m === null) throw new UsageError(`--shard takes I/N, e.g. 0/4 (got '${shown}')`, hint);
  const [, rawIndex, rawCount] = m as unknown as [string, string, string];
  const count = WHOLE.test(rawCount) ? Number(rawCount) : Number.NaN;
  if (!(count >= 1 && count <= MAX_SHARDS)) throw new UsageError(`--shard ${shown}: N must be a whole number from 1 to ${MAX_SHARDS}`, hint);
  let index: number;
  if (rawIndex === 'auto') {
    const fromEnv = env.JOB_COMPLETION_INDEX;
    if (fromEnv === undefined || fromEnv === '') {
      throw new UsageError(`--shard ${shown}: JOB_COMPLETION_INDEX is not set`, {
        hint: 'auto reads the completion index a Kubernetes Indexed Job gives each pod; elsewhere give --shard I/N',
      });
    }
    if (!WHOLE.test(fromEnv.trim()))
      throw new UsageError(`--shard ${shown}: JOB_COMPLETION_INDEX is not a whole number (got '${inertText(fromEnv.slice(0, 20))}')`);
    index = Number(fromEnv.trim());
    if (index >= count) throw new UsageError(`--shard ${shown}: JOB_COMPLETION_INDEX ${index} is not below N (${count})`, hint);
  } else {
    index = WHOLE.test(rawIndex) ? Number(rawIndex) : Number.NaN;
    if (!(index >= 0 && index < count)) throw new UsageError(`--shard ${shown}: I must be a whole number from 0 to ${count - 1}`, hint);
  }
  return { index, count };
}

/** The shard of `taxpayer` among `count`: the first 48 bits of SHA-256(id) modulo count. */
export function shardOfTaxpayer(taxpayer: string, count: number): number {
  const digest = createHash('sha256').update(taxpayer, 'utf8').digest();
  return digest.readUIntBE(0, 6) % count;
}

/** The taxpayers of `shard`, in the list's order. */
export function takeShard(taxpayers: readonly string[], shard: Shard): string[] {
  return taxpayers.filter((t) => shardOfTaxpayer(t, shard.count) === shard.index);
}
