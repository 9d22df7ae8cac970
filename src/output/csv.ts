/**
 * CSV (RFC 4180): a header row of dot paths, then one record per item, CRLF line ends, fields quoted
 * only when they hold a quote, comma, CR or LF (RFC 4180 §2.6), quotes doubled (§2.7). The encoding
 * is done here rather than by csv-stringify: on 200k invoices csv-stringify's per-field checks made
 * CSV five times slower than NDJSON, and RFC 4180 quoting is one regular expression. The tests check
 * that the output equals csv-stringify's (with `quote_record_delimiter`) and parses back with csv-parse.
 *
 * Columns come from `--fields`, else from the first page that has items (every item of it, keys in
 * first-seen order per level, see flatten.ts). The header is out once that page is written, so keys
 * first seen later cannot become columns; each is named once through `warn`. Zero items: no output
 * at all, or the header line alone when `--fields` gave the columns.
 */
import type { Formatter, FormatterOptions, FormatterState } from './writer.js';
import { splitPath } from './fields.js';
import { addPaths, compileAccessor, createPathTree, findNewPaths, toCell, treeColumns, treeFromPaths, warnedPaths } from './flatten.js';
import type { PathTree } from './flatten.js';
import { UsageError } from '../errors.js';

/** Record separator: RFC 4180 §2.1 says CRLF. */
export const CSV_EOL = '\r\n';

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"), plus
 * the full-width forms Apple Numbers normalises into them (as csv-stringify's `escape_formulas`).
 */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/**
 * `--csv-safe` (OWASP CSV injection): a string cell that begins with `=`, `+`, `-`, `@`, tab or CR
 * gets a leading `'` so spreadsheets show it as text. Numbers are never touched (`-5` stays a number),
 * nor JSON text of arrays/objects (it begins with `[` or `{`).
 */
export function neutraliseFormula(value: unknown): unknown {
  return typeof value === 'string' && value.length > 0 && FORMULA_START.has(value[0] as string) ? `'${value}` : value;
}

/** The CSV formatter's checkpointed state. */
export interface CsvState extends FormatterState {
  format: 'csv';
  /** Column paths (segments), once the header is written; `null` before. */
  columns: string[][] | null;
  /** Paths already named in a "new field" warning. */
  warned: string[][];
}

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;

/**
 * One RFC 4180 field: quoted when it holds a quote, comma, CR or LF (§2.6), quotes doubled (§2.7).
 * A lone CR or LF is quoted too, so parsers that split records on either agree.
 */
export function encodeField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** One CSV record without its line end. */
export function encodeRecord(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? '' : ',') + encodeField(cells[i] as string);
  return line;
}

/** Encodes records (lines without line ends) as CSV text, each record ending in CRLF (one join). */
function encode(lines: string[]): string {
  return lines.length === 0 ? '' : lines.join(CSV_EOL) + CSV_EOL;
}

function isPathList(value: unknown): value is string[][] {
  return Array.isArray(value) && value.every((p) => Array.isArray(p) && p.every((s) => typeof s === 'string'));
}

/**
 * Creates the CSV formatter.
 * @param resume a {@link CsvState} from a checkpoint
 * @throws {UsageError} when `resume` is not a CSV state
 */
export function createCsvFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  const warn = options.warn;
  const csvSafe = options.csvSafe === true;
  const fixed = options.fields !== undefined && options.fields.length > 0 ? options.fields.map(splitPath) : null;

  let columns: string[][] | null = null;
  let tree: PathTree | null = null;
  if (resume !== undefined) {
    if (resume.format !== 'csv' || !(resume.columns === null || isPathList(resume.columns)) || !isPathList(resume.warned)) {
      throw new UsageError('checkpoint does not match the output format (expected a csv state)');
    }
    columns = resume.columns;
    if (columns !== null && fixed === null) tree = treeFromPaths(columns, resume.warned);
  }

  let accessors: ((item: unknown) => unknown)[] = [];
  const compile = (): void => {
    accessors = (columns ?? []).map(compileAccessor);
  };
  compile();

  const header = (): string => encodeRecord((columns ?? []).map((p) => p.join('.')));

  const row = (item: unknown): string => {
    let line = '';
    for (let i = 0; i < accessors.length; i++) {
      const value = (accessors[i] as (item: unknown) => unknown)(item);
      line += (i === 0 ? '' : ',') + encodeField(toCell(csvSafe ? neutraliseFormula(value) : value));
    }
    return line;
  };

  return {
    begin: () => '',
    page(items) {
      if (items.length === 0) return '';
      const rows: string[] = [];
      if (columns === null) {
        if (fixed !== null) {
          columns = fixed;
        } else {
          tree = createPathTree();
          for (const item of items) addPaths(tree, item);
          columns = treeColumns(tree);
        }
        compile();
        rows.push(header());
      } else if (tree !== null) {
        for (const item of items) {
          for (const path of findNewPaths(tree, item)) {
            warn?.(`csv: new field '${path.join('.')}' not in the header; use --fields to include it`);
          }
        }
      }
      for (const item of items) rows.push(row(item));
      return encode(rows);
    },
    end() {
      if (columns === null && fixed !== null) {
        columns = fixed;
        return encode([header()]);
      }
      return '';
    },
    state(): CsvState {
      return { format: 'csv', columns, warned: tree === null ? [] : warnedPaths(tree) };
    },
  };
}
