/**
 * The manifest of a run with many taxpayers (`--manifest FILE`; docs/many-taxpayers.md, "Many taxpayers in one
 * run"): one file listing every output of the run, each entry a per-output manifest object
 * (export/manifest/manifest.ts), plus when the run started and finished. `collections verify` reads it like
 * any manifest.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { MANIFEST_VERSION, writeManifest, type Manifest, type ManifestOutput } from './manifest.js';
import { parseManifest } from './verify-output.js';

/** What a run manifest says about the run itself. */
export interface RunManifestInfo {
  /** The tool's version. */
  version: string;
  /** When the run started, local epoch ms. */
  startedMs: number;
  /** When it finished, local epoch ms. */
  finishedMs: number;
}

/**
 * The outputs of an earlier run manifest at `path` whose file is one of `targets` (absolute), for
 * a `--resume` that skips the taxpayers finished earlier: their entries are carried over.
 * @returns the entries by absolute target; empty when there is no readable manifest there
 */
export async function earlierOutputs(path: string, targets: readonly string[]): Promise<Map<string, ManifestOutput>> {
  const found = new Map<string, ManifestOutput>();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return found;
  }
  const manifest = parseManifest(text);
  if (typeof manifest === 'string') return found;
  for (const output of manifest.outputs) {
    const target = resolvePath(dirname(path), output.file);
    if (targets.includes(target)) found.set(target, output);
  }
  return found;
}

/**
 * Writes the run manifest atomically (export/manifest/manifest.ts `writeManifest`): `run` holds the start
 * and finish, `outputs` the outputs in the order given.
 * @throws {OutputError} (exit 7) naming the path when it cannot be written
 */
export async function writeRunManifest(path: string, outputs: readonly ManifestOutput[], info: RunManifestInfo): Promise<void> {
  const manifest: Manifest = {
    manifestVersion: MANIFEST_VERSION,
    tool: 'collections',
    toolVersion: info.version,
    run: { started: new Date(info.startedMs).toISOString(), finished: new Date(info.finishedMs).toISOString() },
    outputs: [...outputs],
  };
  await writeManifest(path, manifest);
}
