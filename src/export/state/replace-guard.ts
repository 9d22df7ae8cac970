/**
 * What an incremental export may replace: replacing a complete output that starts earlier would drop
 * the items in between, for good once a `--state` watermark has passed them.
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
import { readManifest, type ManifestOutput } from '../manifest/manifest.js';
import { formatFilterTime, parseSince } from './since.js';

/** An export about to replace its output (paths absolute). */
export interface ReplaceCheck {
  target: string;
  manifest: string;
  /** The `--since` / `--state` filter the export sends (ISO 8601); undefined for a full export. */
  since: string | undefined;
}

/** The entry of a readable manifest at `path` that describes `target` as it is now (`bytes` long). */
async function entryFor(path: string, target: string, bytes: number): Promise<ManifestOutput | undefined> {
  return (await readManifest(path))?.outputs.find((o) => resolvePath(dirname(path), o.file) === target && o.bytes === bytes);
}

/** Where an output starts by its manifest's `watermark.before`, epoch ms: null for a full export, undefined when unsaid. */
function startOf(entry: ManifestOutput): number | null | undefined {
  const before: unknown = (entry.watermark as Partial<ManifestOutput['watermark']> | undefined)?.before;
  if (before === null) return null;
  if (typeof before !== 'string') return undefined;
  try {
    return parseSince(before);
  } catch {
    return undefined;
  }
}

/**
 * Refuses an incremental export over an output that starts earlier, or whose manifest is missing;
 * a missing output, a FIFO or device, or a full export passes.
 * @throws {UsageError} (exit 2) naming the output and both starts, with the way out
 */
export async function checkReplace(check: ReplaceCheck): Promise<void> {
  const { target, since } = check;
  if (since === undefined) return;
  const info = await stat(target).catch(() => undefined);
  if (info === undefined || !info.isFile()) return;
  const manifests = [...new Set([check.manifest, `${target}.manifest.json`])];
  let entry: ManifestOutput | undefined;
  for (const path of manifests) entry ??= await entryFor(path, target, info.size);
  const start = entry === undefined ? undefined : startOf(entry);
  if (start !== undefined && start !== null && parseSince(since) <= start) return;
  const holds =
    entry === undefined
      ? 'has no manifest that describes it, so what it holds is unknown'
      : start === null
        ? 'holds a full export (its manifest says so)'
        : start === undefined
          ? 'has a manifest that does not say where its items start'
          : `holds what changed since ${formatFilterTime(start)} (its manifest says so)`;
  throw new UsageError(`${target} ${holds}; this export asks only for what changed since ${since}, so replacing it would lose the items before`, {
    hint: 'move it away once it is consumed, or write each run to its own path (e.g. a folder per run)',
  });
}
