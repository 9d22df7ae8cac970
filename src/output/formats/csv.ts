/**
 * CSV (RFC 4180), csv-stringify's bytes. Columns: `--fields`, else the first page with items; later keys `warn`ed once.
 * No items: nothing, or `--fields`' header.
 */
import { createRequire } from 'node:module';
import { stateMismatch, type FormatDefinition, type Formatter, type FormatterOptions, type FormatterState } from '../formatter.js';
import { splitPath } from '../fields.js';
import { addPaths, compileAccessor, createPathTree, findNewPaths, toCell, treeFromPaths, treePaths } from '../flatten.js';
import type { PathTree } from '../flatten.js';
import { createLineCounter } from './ndjson.js';

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"), plus
 * the full-width forms Apple Numbers normalises into them (as csv-stringify's `escape_formulas`).
 */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/** `--csv-safe`: a leading `'` so spreadsheets show the string as text; numbers (`-5`, `-1.0E3`) are never touched. */
export function neutraliseFormula(value: unknown): unknown {
  return typeof value === 'string' && value.length > 0 && FORMULA_START.has(value[0] as string) ? `'${value}` : value;
}

export interface CsvState extends FormatterState {
  format: 'csv';
  /** `null` until the header is written. */
  columns: string[][] | null;
  /** Paths already named in a "new field" warning. */
  warned: string[][];
}

type CsvStringify = (typeof import('csv-stringify/sync'))['stringify'];
let loaded: CsvStringify | undefined;

/** Loaded on first use (a synchronous `require`: formatters are synchronous), so other formats do not pay for it at start-up. */
function stringify(...args: Parameters<CsvStringify>): string {
  loaded ??= (createRequire(import.meta.url)('csv-stringify/sync') as typeof import('csv-stringify/sync')).stringify;
  return loaded(...args);
}

/** `quote_record_delimiter`: a lone CR or LF is quoted too (csv-stringify turns it off when `record_delimiter` is given). */
const CSV_OPTIONS = { record_delimiter: 'windows', quote_record_delimiter: true, eof: true } as const;

/** What makes csv-stringify quote a cell with {@link CSV_OPTIONS}. */
const NEEDS_QUOTES = /[",\r\n]/;

function countQuotes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) n++;
  return n;
}

/**
 * Each cell (all needing quotes) as csv-stringify quotes it, from one call: a record whose quoted
 * fields are cut apart by their lengths; undefined if its output is not cut that way.
 */
function quoteCells(cells: readonly string[]): string[] | undefined {
  const encoded = stringify([cells], { ...CSV_OPTIONS, eof: false });
  const out = new Array<string>(cells.length);
  let pos = 0;
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k] as string;
    const end = pos + cell.length + 2 + countQuotes(cell);
    if (encoded.charCodeAt(pos) !== 34 || encoded.charCodeAt(end - 1) !== 34) return undefined;
    out[k] = encoded.slice(pos, end);
    pos = end + 1;
  }
  return pos === encoded.length + 1 ? out : undefined;
}

/**
 * csv-stringify's bytes for the rows, from one call for the cells that need quoting (a call costs
 * more than the rest of a record's work: test/bench/results.md, «CSV quoting in one call»); those
 * cells are replaced in place.
 */
function encode(rows: string[][]): string {
  const toQuote: string[] = [];
  const where: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    const cells = rows[r] as string[];
    for (let c = 0; c < cells.length; c++) {
      if (NEEDS_QUOTES.test(cells[c] as string)) {
        toQuote.push(cells[c] as string);
        where.push(r, c);
      }
    }
  }
  if (toQuote.length > 0) {
    const quoted = quoteCells(toQuote);
    if (quoted === undefined) return stringify(rows, CSV_OPTIONS);
    for (let k = 0; k < quoted.length; k++) (rows[where[2 * k] as number] as string[])[where[2 * k + 1] as number] = quoted[k] as string;
  }
  let text = '';
  for (const cells of rows) text += cells.join(',') + '\r\n';
  return text;
}

function isPathList(value: unknown): value is string[][] {
  return Array.isArray(value) && value.every((p) => Array.isArray(p) && p.every((s) => typeof s === 'string'));
}

function createCsvFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  const warn = options.warn;
  const csvSafe = options.csvSafe === true;
  const fixed = options.fields !== undefined && options.fields.length > 0 ? options.fields.map(splitPath) : null;

  let columns: string[][] | null = null;
  let tree: PathTree | null = null;
  if (resume !== undefined) {
    if (resume.format !== 'csv' || !(resume.columns === null || isPathList(resume.columns)) || !isPathList(resume.warned))
      throw stateMismatch('a csv');
    columns = resume.columns;
    if (columns !== null && fixed === null) tree = treeFromPaths(columns, resume.warned);
  }

  let accessors = (columns ?? []).map(compileAccessor);

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
    page(page) {
      if (page.length === 0) return '';
      const items = page.values();
      const rows: string[][] = [];
      if (columns === null) {
        if (fixed !== null) {
          columns = fixed;
        } else {
          tree = createPathTree();
          for (const item of items) addPaths(tree, item);
          columns = treePaths(tree, 'leaf');
        }
        accessors = columns.map(compileAccessor);
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
      return { format: 'csv', columns, warned: tree === null ? [] : treePaths(tree, 'warned') };
    },
  };
}

/** Every record, the header included, ends with CRLF: a boundary is the byte after an LF. */
export const csv: FormatDefinition<'csv'> = {
  name: 'csv',
  extensions: ['.csv'],
  create: createCsvFormatter,
  prepare: null,
  resume: { resumable: true, isRecordBoundary: (_bytes, _items, lastByte) => lastByte === 0x0a },
  countItems: () => createLineCounter(true, 1), // records less the header
  compress: { compressible: true },
};
