/**
 * CSV (RFC 4180): a header row of dot paths, then one record per item, CRLF line ends, fields quoted
 * when they hold a quote, comma, CR or LF (RFC 4180 §2.6, a lone CR or LF included, so parsers that
 * split records on either agree), quotes doubled (§2.7). The encoding is csv-stringify's (house rule:
 * outside what this project exists for, a well-kept library beats our own code): its sync API is
 * called for each record that has a cell to quote, with cells this module has already flattened to
 * strings; a record with none is its cells joined by commas, the same bytes without the call.
 *
 * Columns come from `--fields`, else from the first page that has items (every item of it, keys in
 * first-seen order per level, see flatten.ts). The header is out once that page is written, so keys
 * first seen later cannot become columns; each is named once through `warn`. Zero items: no output
 * at all, or the header line alone when `--fields` gave the columns.
 */
import { createRequire } from 'node:module';
import type { Formatter, FormatterOptions, FormatterState } from './formatter.js';
import { splitPath } from './fields.js';
import { addPaths, compileAccessor, createPathTree, findNewPaths, itemValues, toCell, treeColumns, treeFromPaths, warnedPaths } from './flatten.js';
import type { PathTree } from './flatten.js';
import { UsageError } from '../errors.js';

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

type CsvStringify = (typeof import('csv-stringify/sync'))['stringify'];
let loaded: CsvStringify | undefined;

/**
 * csv-stringify's sync API, loaded on first use with a synchronous `require` (formatters are
 * synchronous), so exports in other formats do not pay for loading it at start-up.
 */
function stringify(...args: Parameters<CsvStringify>): string {
  loaded ??= (createRequire(import.meta.url)('csv-stringify/sync') as typeof import('csv-stringify/sync')).stringify;
  return loaded(...args);
}

/**
 * csv-stringify's options for RFC 4180: CRLF record ends, and `quote_record_delimiter` so that a
 * cell holding a lone CR or LF is quoted too (csv-stringify turns it off when `record_delimiter`
 * is given).
 */
const CSV_OPTIONS = { record_delimiter: 'windows', quote_record_delimiter: true, eof: true } as const;

/** One CSV record without its line end (csv-stringify, RFC 4180). */
export function encodeRecord(cells: readonly string[]): string {
  return stringify([cells], { ...CSV_OPTIONS, eof: false });
}

/** What makes csv-stringify quote a cell with {@link CSV_OPTIONS}: a quote, a comma, a CR or an LF. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One record and its CRLF. A record none of whose cells needs quoting is its cells joined by commas,
 * which is what csv-stringify writes for it (its sync API costs ~15 µs a call, ~25 µs a record
 * within a page); a record with a cell to quote is csv-stringify's, alone.
 */
function encodeRow(cells: string[]): string {
  for (const cell of cells) if (NEEDS_QUOTES.test(cell)) return stringify([cells], CSV_OPTIONS);
  return cells.join(',') + '\r\n';
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
      throw new UsageError('checkpoint does not match the output format (expected a csv state)', { code: 'E_CHECKPOINT' });
    }
    columns = resume.columns;
    if (columns !== null && fixed === null) tree = treeFromPaths(columns, resume.warned);
  }

  let accessors: ((item: unknown) => unknown)[] = [];
  const compile = (): void => {
    accessors = (columns ?? []).map(compileAccessor);
  };
  compile();

  const header = (): string[] => (columns ?? []).map((p) => p.join('.'));

  const row = (item: unknown): string[] => {
    const cells = new Array<string>(accessors.length);
    for (let i = 0; i < accessors.length; i++) {
      const value = (accessors[i] as (item: unknown) => unknown)(item);
      cells[i] = toCell(csvSafe ? neutraliseFormula(value) : value);
    }
    return cells;
  };

  return {
    begin: () => '',
    page(page, asJson) {
      if (page.length === 0) return '';
      const items = itemValues(page, asJson);
      let text = '';
      if (columns === null) {
        if (fixed !== null) {
          columns = fixed;
        } else {
          tree = createPathTree();
          for (const item of items) addPaths(tree, item);
          columns = treeColumns(tree);
        }
        compile();
        text += encodeRow(header());
      } else if (tree !== null) {
        for (const item of items) {
          for (const path of findNewPaths(tree, item)) {
            warn?.(`csv: new field '${path.join('.')}' not in the header; use --fields to include it`);
          }
        }
      }
      for (const item of items) text += encodeRow(row(item));
      return text;
    },
    end() {
      if (columns === null && fixed !== null) {
        columns = fixed;
        return encodeRow(header());
      }
      return '';
    },
    state(): CsvState {
      return { format: 'csv', columns, warned: tree === null ? [] : warnedPaths(tree) };
    },
  };
}
