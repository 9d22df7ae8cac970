/**
 * What `collections get <path>` does: a named command's lone export (commands/export.ts
 * `runLoneExport`) of the endpoint built from the path (commands/collection-path.ts).
 */
import type { Context } from '../context.js';
import { GET_COMMAND } from '../path-family.js';
import { checkQuietVerbose, runLoneExport } from './export.js';
import type { ExportFlags } from './flags.js';

/** What `get`'s definition hands {@link runGet}: the path as typed, the flags with the global ones, the resume argv. */
export interface GetCommandOptions {
  path: string;
  flags: ExportFlags;
  argv: readonly string[];
}

/**
 * @throws {UsageError} (exit 2) before any request for an invalid path or flags; {@link CollectionsError} subclasses as any export
 */
export async function runGet(ctx: Context, { path, flags, argv }: GetCommandOptions): Promise<number> {
  checkQuietVerbose(flags);
  return runLoneExport(GET_COMMAND, { ...flags, path }, argv, ctx);
}
