/**
 * `--out F.parquet` (docs/databases.md, "Parquet"): the export is written as CSV into the sidecar
 * `F.parquet.part`, with the CSV's checkpoints, lock and `--resume` (export/files/sidecar.ts), and
 * once it is complete DuckDB (in memory) reads that CSV, infers each column's type from every row,
 * and writes one Parquet file beside `F`, which is then renamed onto it. So `F` is either the whole
 * export or untouched, as with every file export.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileError, syncFolder } from '../../io/files.js';
import type { Destination, PageMark } from '../files/destination.js';
import { databaseError } from './database.js';
import { loadDriver } from './driver.js';

/** Where a Parquet export writes. */
export interface ParquetFiles {
  /** `F.parquet`, absolute. */
  readonly target: string;
  /** The CSV sidecar, `F.parquet.part`. */
  readonly sidecar: string;
  readonly checkpoint: string;
}

/** A path as an SQL string literal (it is ours: `--out` resolved; quotes are doubled all the same). */
function literal(path: string): string {
  return `'${path.replace(/'/g, "''")}'`;
}

/**
 * Converts the finished CSV `csv` into the Parquet file `parquet` through an in-memory DuckDB:
 * column types inferred from all rows (`sample_size = -1`), empty cells as NULL.
 * @throws {CollectionsError} (exit 7) with DuckDB's reason
 */
async function convert(csv: string, parquet: string, shown: string): Promise<void> {
  const duckdb = await loadDriver<typeof import('@duckdb/node-api')>('@duckdb/node-api', shown);
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const empty = (await stat(csv)).size === 0;
    // Zero items and no --fields: a CSV without even a header; the Parquet file has no rows and one text column `id`.
    const rows = empty ? 'SELECT NULL::VARCHAR AS id WHERE false' : `SELECT * FROM read_csv(${literal(csv)}, header = true, sample_size = -1)`;
    await connection.run(`COPY (${rows}) TO ${literal(parquet)} (FORMAT parquet)`);
    connection.closeSync();
  } catch (err) {
    throw databaseError(`cannot write the Parquet file ${shown}`, err);
  } finally {
    instance.closeSync();
  }
}

/** Flushes a finished file to the disk. @throws {OutputError} (exit 7) */
async function syncFile(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw fileError('sync', path, error);
  }
}

/**
 * The Parquet destination over the CSV sidecar `csv` (opened by export/files/sidecar.ts with the
 * same paths): pages and checkpoints go to the sidecar; `finish()` makes the CSV whole and durable,
 * converts it beside the target, renames the result onto it, and removes the sidecar and checkpoint.
 */
export function parquetDestination(csv: Destination, files: ParquetFiles): Destination {
  let last: PageMark | undefined;
  return {
    name: csv.name,
    resumed: csv.resumed,
    write: (text) => csv.write(text),
    pageWritten(mark) {
      last = mark;
      return csv.pageWritten(mark);
    },
    settle: () => csv.settle(),
    async finish(text) {
      await csv.write(text);
      // The last mark again: the sidecar is flushed (a failed write is thrown here) before DuckDB reads it.
      if (last) await csv.pageWritten(last);
      await csv.settle();
      await csv.abort(true);
      const temporary = `${files.target}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await convert(files.sidecar, temporary, files.target);
        await syncFile(temporary);
        await rename(temporary, files.target).catch((error: unknown) => {
          throw fileError('rename the finished export onto', files.target, error);
        });
      } catch (err) {
        await rm(temporary, { force: true });
        throw err;
      }
      await syncFolder(dirname(files.target));
      await rm(files.sidecar, { force: true });
      await rm(files.checkpoint, { force: true });
    },
    abort: (wrotePage) => csv.abort(wrotePage),
  };
}
