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
import type { DuckDBConnection } from '@duckdb/node-api';
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
 * DuckDB's exact numbers: DECIMAL(18, s) is a 64-bit integer underneath, DECIMAL(38, s) a 128-bit
 * one, which DuckDB's CSV reader parses about 6 times slower (300,000 rows of three such columns:
 * 11.5 s against 1.7 s), so the wide one only for values that need it.
 */
const DECIMAL_WIDTHS = [18, 38] as const;

/** A number cell as the CSV writes a JSON number (its literal as received), digits of a string too. */
const NUMBER_CELL = String.raw`-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`;

/** DuckDB's reader of the finished CSV, types inferred from every row, with more `read_csv` options. */
const readCsv = (csv: string, options = ''): string => `read_csv(${literal(csv)}, header = true, sample_size = -1${options})`;

/** An identifier of a CSV column for DuckDB's SQL (a header may hold any character). */
const quoteColumn = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * SQL of one column's measures over its text cells: `n` whether every cell is a number literal,
 * `s` the most digits a value needs after the point, `d` a bound on the digits before it. Only a
 * cell with an exponent goes through the regular expressions (a third of the time on plain ones).
 */
function columnMeasures(name: string, i: number): string {
  const v = quoteColumn(name);
  const hasExponent = `(contains(${v}, 'e') OR contains(${v}, 'E'))`;
  // With an exponent: digits after the point less the exponent; before it (leading zeros aside) plus it.
  const exponent = String.raw`coalesce(TRY_CAST(regexp_extract(${v}, '[eE]([+-]?[0-9]+)$', 1) AS DOUBLE), 0)`;
  const fraction = String.raw`length(regexp_extract(${v}, '\.([0-9]+)', 1))`;
  const whole = String.raw`length(ltrim(regexp_extract(${v}, '^-?([0-9]+)', 1), '0'))`;
  const unsigned = `ltrim(${v}, '-0')`;
  return (
    `bool_and(${v} IS NULL OR regexp_full_match(${v}, '${NUMBER_CELL}')) AS n${i}, ` +
    `max(CASE WHEN ${hasExponent} THEN greatest(0, ${fraction} - ${exponent}) ` +
    `WHEN strpos(${v}, '.') > 0 THEN length(${v}) - strpos(${v}, '.') ELSE 0 END) AS s${i}, ` +
    `max(CASE WHEN ${hasExponent} THEN greatest(0, ${whole} + ${exponent}) ` +
    `WHEN strpos(${unsigned}, '.') > 0 THEN strpos(${unsigned}, '.') - 1 ELSE length(${unsigned}) END) AS d${i}`
  );
}

/**
 * Each column DuckDB's inference made `DOUBLE` gets an exact type instead when every cell is a number
 * literal: `DECIMAL(18, s)` or, when a value needs more than 18 digits, `DECIMAL(38, s)`, `s` the
 * most digits any value needs after the point (`1234.50` → 2, so the literal reads back as written;
 * a value past 2^63 → `DECIMAL(38,0)`); `VARCHAR`, the literal itself, when one needs more than 38.
 * A column with other cells keeps DuckDB's choice. A double would round `9007199254740993` and sum
 * money in binary fractions.
 * @returns DuckDB `read_csv` `types`: column name → type
 */
async function exactNumberTypes(connection: DuckDBConnection, csv: string): Promise<Map<string, string>> {
  const inferred = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${readCsv(csv)}`);
  const doubles = inferred
    .getRowObjectsJson()
    .filter((c) => c.column_type === 'DOUBLE' && typeof c.column_name === 'string')
    .map((c) => c.column_name as string);
  const types = new Map<string, string>();
  if (doubles.length === 0) return types;
  const cells = readCsv(csv, ', all_varchar = true');
  const [row] = (await connection.runAndReadAll(`SELECT ${doubles.map(columnMeasures).join(', ')} FROM ${cells}`)).getRowObjectsJson();
  doubles.forEach((name, i) => {
    if (row?.[`n${i}`] !== true) return;
    const scale = Number(row[`s${i}`] ?? 0);
    const width = DECIMAL_WIDTHS.find((w) => scale + Number(row[`d${i}`] ?? 0) <= w);
    types.set(name, width === undefined ? 'VARCHAR' : `DECIMAL(${width},${scale})`);
  });
  return types;
}

/** `read_csv`'s `types` argument: a struct literal of column name → type. */
function typesArgument(types: ReadonlyMap<string, string>): string {
  if (types.size === 0) return '';
  return `, types = {${[...types].map(([name, type]) => `${literal(name)}: ${literal(type)}`).join(', ')}}`;
}

/**
 * `read` with its columns of times without a zone (what the real service writes, `2025-04-29
 * 19:41:06`, which DuckDB infers as `TIMESTAMP`) read as UTC: `TIMESTAMP WITH TIME ZONE`, as the
 * database destinations store them, so no reader shifts them by its own zone.
 */
async function withUtcTimes(connection: DuckDBConnection, read: string): Promise<string> {
  const columns = (await connection.runAndReadAll(`DESCRIBE ${read}`)).getRowObjectsJson();
  const naive = columns.filter((c) => c.column_type === 'TIMESTAMP').map((c) => c.column_name as string);
  if (naive.length === 0) return read;
  return `SELECT * REPLACE (${naive.map((n) => `timezone('UTC', ${quoteColumn(n)}) AS ${quoteColumn(n)}`).join(', ')}) FROM (${read})`;
}

/**
 * Converts the finished CSV `csv` into the Parquet file `parquet` through an in-memory DuckDB:
 * column types inferred from all rows (`sample_size = -1`), numbers exact ({@link exactNumberTypes}),
 * empty cells as NULL.
 * @throws {CollectionsError} (exit 7) with DuckDB's reason
 */
async function convert(csv: string, parquet: string, shown: string): Promise<void> {
  const duckdb = await loadDriver<typeof import('@duckdb/node-api')>('@duckdb/node-api', shown);
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const empty = (await stat(csv)).size === 0;
    await connection.run("SET TimeZone = 'UTC'");
    // Zero items and no --fields: a CSV without even a header; the Parquet file has no rows and one text column `id`.
    const rows = empty
      ? 'SELECT NULL::VARCHAR AS id WHERE false'
      : await withUtcTimes(connection, `SELECT * FROM ${readCsv(csv, typesArgument(await exactNumberTypes(connection, csv)))}`);
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
