/** `--since` and `--state` (docs/nightly-sync.md) turned into the filter parameter and the state file's key. */
import { resolve as resolvePath } from 'node:path';
import { idsFromFlags, type Endpoint, type Ids } from '../../endpoints.js';
import { resolveSource } from './collection-path.js';
import { UsageError } from '../../errors.js';
import { conflictsWithSince, formatFilterTime, parseSince, sinceParameter } from '../../export/state/since.js';
import { readState, stateKey, storedWatermark } from '../../export/state/state.js';
import type { ExportFlags } from '../flags.js';

export interface IncrementalPlan {
  readonly incremental: boolean;
  /** e.g. `['updatedAt[after]', '2024-05-01T00:00:00+00:00']`; undefined = a full export. */
  readonly filter: readonly [string, string] | undefined;
  /** The path is absolute. */
  readonly state: { readonly path: string; readonly key: string } | undefined;
}

/**
 * An explicit `--since` wins: the file is then only written.
 * @returns epoch ms; undefined without `--state`, with `--since`, or when the file or entry is missing
 * @throws {UsageError} (exit 2) for a corrupt state file or an unknown command / id set
 */
export function readStoredSince(command: string, flags: ExportFlags, cwd: string): number | undefined {
  if (flags.state === undefined || flags.since !== undefined) return undefined;
  const { endpoint, ids } = resolveSource(command, idsFromFlags(flags), flags.path, flags.sinceField);
  if (endpoint.watermark === undefined) return undefined;
  const path = resolvePath(cwd, flags.state);
  return storedWatermark(readState(path), stateKey(endpoint, ids), path);
}

/**
 * @param storedSince epoch ms
 * @param query of `get`'s path
 * @throws {UsageError} (exit 2) for `--since`/`--state` on an endpoint without a documented date
 *   filter (line items, payments) or a path of `get` without `--since-field`, an invalid `--since`,
 *   a `--param` or query pair that sets the same filter, and `--since-field` without either
 */
export function planIncremental(
  endpoint: Endpoint,
  ids: Ids,
  flags: ExportFlags,
  cwd: string,
  storedSince?: number,
  query: ReadonlyArray<readonly [string, string]> = [],
): IncrementalPlan {
  const incremental = flags.since !== undefined || flags.state !== undefined || flags.incremental === true;
  if (!incremental) {
    if (flags.sinceField !== undefined)
      throw new UsageError('--since-field goes with --since, --state or --incremental (it names the field they filter on)');
    return { incremental, filter: undefined, state: undefined };
  }
  const flag = flags.since !== undefined ? '--since' : flags.state !== undefined ? '--state' : '--incremental';
  const parameter = sinceParameter(endpoint, flag);
  const clash = (flags.param ?? []).find(([key]) => conflictsWithSince(endpoint, key));
  if (clash) throw new UsageError(`--param ${clash[0]} and ${flag} set the same filter; give one of them`);
  const inPath = query.find(([key]) => conflictsWithSince(endpoint, key));
  if (inPath) throw new UsageError(`the path's ${inPath[0]} and ${flag} set the same filter; give one of them`);
  const since = flags.since !== undefined ? parseSince(flags.since) : storedSince;
  return {
    incremental,
    filter: since === undefined ? undefined : [parameter, formatFilterTime(since)],
    state: flags.state === undefined ? undefined : { path: resolvePath(cwd, flags.state), key: stateKey(endpoint, ids) },
  };
}
