/** `collections verify` (docs/files.md, "Manifests and `verify`"): `ok` lines on stdout, a line per mismatch on stderr. */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { ExitCode, VerifyError } from '../../errors.js';
import { inertText } from '../../io/terminal-text.js';
import { parseManifest, verifyOutput } from '../../export/manifest/manifest.js';
import { databaseAddress, type DatabaseAddress } from '../../export/destinations/address.js';
import { parseTableName } from '../../export/destinations/table-name.js';
import { shownPath } from '../export/batch-report.js';

interface Tally {
  files: number;
  failedFiles: number;
  /** Of databases: the tables checked and those that failed, by name. */
  tables: Set<string>;
  failedTables: Set<string>;
  mismatches: number;
  /** Of the mismatches, the arguments that are not what `verify` reads (an output, a Parquet file). */
  misnamed: number;
}

function mismatch(what: string, line: string, ctx: Context, tally: Tally): void {
  tally.mismatches++;
  ctx.io.stderr.write(`collections: ${inertText(`${what}: ${line}`)}\n`);
}

/**
 * A file that fails as a whole: counted as a failed file and a mismatch; `misnamed` for an
 * argument `verify` does not read, whose line names what to give instead.
 */
function failedFile(shown: string, line: string, ctx: Context, tally: Tally, misnamed = false): void {
  tally.files++;
  tally.failedFiles++;
  if (misnamed) tally.misnamed++;
  mismatch(shown, line, ctx, tally);
}

/** `F.manifest.json` beside `F`, when `path` is such an `F`. */
async function manifestBeside(path: string): Promise<string | undefined> {
  const beside = `${path}.manifest.json`;
  return (await stat(beside).catch(() => undefined))?.isFile() ? beside : undefined;
}

async function verifyManifest(manifestPath: string, ctx: Context, tally: Tally): Promise<void> {
  const shown = shownPath(manifestPath, ctx.cwd);
  // An output given in place of its manifest: named without reading it (it may be gigabytes).
  const beside = await manifestBeside(manifestPath);
  if (beside !== undefined) {
    failedFile(shown, `an output, not its manifest; give ${shownPath(beside, ctx.cwd)}`, ctx, tally, true);
    return;
  }
  let text: string;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    failedFile(shown, code === 'ENOENT' ? 'manifest missing' : `manifest cannot be read (${String(code ?? error)})`, ctx, tally);
    return;
  }
  const manifest = parseManifest(text);
  if (typeof manifest === 'string') {
    // Not JSON or not an object: an output (NDJSON, CSV, a JSON array), not a manifest of another version.
    const data = manifest === 'not JSON' || manifest === 'not an object';
    const instead = data ? '; an export writes its manifest beside its output F as F.manifest.json' : '';
    failedFile(shown, `not a collections manifest (${manifest})${instead}`, ctx, tally, data);
    return;
  }
  for (const output of manifest.outputs) {
    tally.files++;
    const check = await verifyOutput(output, dirname(manifestPath));
    const name = shownPath(check.path, ctx.cwd);
    if (check.mismatches.length > 0) tally.failedFiles++;
    for (const line of check.mismatches) mismatch(name, line, ctx, tally);
    if (check.mismatches.length === 0)
      ctx.io.stdout.write(`ok ${inertText(name)}: ${output.items} items, ${output.bytes} bytes, sha256 ${output.sha256}\n`);
  }
}

export interface VerifyCommandOptions {
  /** As typed, or database destinations; commander requires one. */
  manifests: readonly string[];
  table?: string;
}

/** Re-counts each source of a database's tables against its run log. */
async function verifyDatabase(
  address: Exclude<DatabaseAddress, { kind: 'parquet' }>,
  table: string | undefined,
  ctx: Context,
  tally: Tally,
): Promise<void> {
  const noTable = (line: string): void => {
    tally.tables.add(table ?? 'any table');
    tally.failedTables.add(table ?? 'any table');
    mismatch(address.shown, line, ctx, tally);
  };
  // As a missing output of a manifest: the export did not happen, or the file was moved.
  if (address.kind === 'duckdb' && !existsSync(address.path)) {
    noTable('missing');
    return;
  }
  const name = table === undefined ? undefined : parseTableName(table);
  if (address.kind === 'postgres') {
    ctx.secrets.add(address.password);
    ctx.secrets.add(ctx.env.PGPASSWORD);
  }
  const { checkTables } = await import('../../export/destinations/verify-table.js');
  const checks = await checkTables(address, name, ctx.env);
  if (checks.length === 0) {
    noTable(`no complete run of ${table ?? 'any table'} in its run log`);
    return;
  }
  for (const check of checks) {
    tally.tables.add(check.table);
    const what = `${check.table} ${check.source}`;
    if (check.rows === check.expected) {
      ctx.io.stdout.write(`ok ${inertText(what)}: ${check.rows} rows, as run ${check.runId} left them\n`);
      continue;
    }
    tally.failedTables.add(check.table);
    mismatch(what, `${check.rows} rows, but the last complete run left ${check.expected} (run ${check.runId})`, ctx, tally);
  }
}

/** `2 files and 1 table`. */
function checkedText(files: number, tables: number): string {
  const parts = [
    files > 0 || tables === 0 ? `${files} ${files === 1 ? 'file' : 'files'}` : '',
    tables > 0 ? `${tables} ${tables === 1 ? 'table' : 'tables'}` : '',
  ];
  return parts.filter((p) => p !== '').join(' and ');
}

/**
 * @throws {VerifyError} (exit 8, `E_VERIFY_MISMATCH`) after the mismatch lines, counting them
 */
export async function runVerify(ctx: Context, { manifests, table }: VerifyCommandOptions): Promise<number> {
  const tally: Tally = { files: 0, failedFiles: 0, tables: new Set(), failedTables: new Set(), mismatches: 0, misnamed: 0 };
  for (const manifest of manifests) {
    const address = databaseAddress(manifest, ctx.cwd, 'verify');
    if (address?.kind === 'parquet') {
      const line = 'a Parquet file has no manifest: verify checks the manifest of a file export (F.manifest.json) or a database';
      failedFile(address.shown, line, ctx, tally, true);
    } else if (address !== undefined) await verifyDatabase(address, table, ctx, tally);
    else await verifyManifest(resolvePath(ctx.cwd, manifest), ctx, tally);
  }
  if (tally.mismatches > 0) {
    const mismatches = `${tally.mismatches} ${tally.mismatches === 1 ? 'mismatch' : 'mismatches'}`;
    const failed = tally.failedFiles + tally.failedTables.size;
    const hint =
      tally.misnamed === tally.mismatches
        ? "give each export's manifest (F.manifest.json beside F), a DuckDB file or a PostgreSQL URL"
        : 'run the export again (with --resume if it was interrupted)';
    throw new VerifyError(`verification failed: ${mismatches} in ${failed} of ${checkedText(tally.files, tally.tables.size)}`, { hint });
  }
  return ExitCode.Ok;
}
