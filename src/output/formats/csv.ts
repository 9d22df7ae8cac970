/**
 * CSV (RFC 4180): a header row of dot paths, then one record per item, CRLF line ends, fields quoted
 * when they hold a quote, comma, CR or LF (RFC 4180 §2.6, a lone CR or LF included, so parsers that
 * split records on either agree), quotes doubled (§2.7). The encoding is csv-stringify's (house rule:
 * outside what this project exists for, a well-kept library beats our own code): its sync API is
 * called once per page for the cells that need quoting, which this module has already flattened to
 * strings; the records are the cells joined by commas, the same bytes as csv-stringify's.
 *
 * Columns come from `--fields`, else from the first page that has items (every item of it, keys in
 * first-seen order per level, see flatten.ts). The header is out once that page is written, so keys
 * first seen later cannot become columns; each is named once through `warn`. Zero items: no output
 * at all, or the header line alone when `--fields` gave the columns.
 */
import { createRequire } from 'node:module';
import type { Formatter, FormatterOptions, FormatterState } from '../formatter.js';
import { splitPath } from '../fields.js';
import { addPaths, compileAccessor, createPathTree, findNewPaths, toCell, treeColumns, treeFromPaths, warnedPaths } from '../flatten.js';
import type { PathTree } from '../flatten.js';
import { UsageError } from '../../errors.js';
import type { FormatDefinition, ItemCounter } from './definition.js';

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"), plus
 * the full-width forms Apple Numbers normalises into them (as csv-stringify's `escape_formulas`).
 */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/**
 * `--csv-safe` (OWASP CSV injection): a string cell that begins with `=`, `+`, `-`, `@`, tab or CR
 * gets a leading `'` so spreadsheets show it as text. Numbers are never touched (`-5` or a kept
 * literal such as `-1.0E3` stays a number),
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

/** Quotes in `text`. */
function countQuotes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) n++;
  return n;
}

/**
 * Each cell as csv-stringify quotes it (RFC 4180 §2.6, §2.7: `"`, the text with its quotes
 * doubled, `"`), from one csv-stringify call for all of them: one record whose fields, all quoted,
 * are cut apart by their lengths.
 * @param cells cells that each need quoting ({@link NEEDS_QUOTES})
 * @returns undefined if the output is not cut that way (then each record is csv-stringify's own)
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
 * Encodes rows of cells as CSV text, each record ending in CRLF: the bytes csv-stringify writes for
 * them, with one csv-stringify call for the cells that need quoting and none for the others
 * (a call costs ~15 µs, ~25 µs a record within a page: more than the rest of a record's work).
 * @param rows the page's records; the cells that need quoting are replaced in place
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

/**
 * Creates the CSV formatter.
 * @param resume a {@link CsvState} from a checkpoint
 * @throws {UsageError} when `resume` is not a CSV state
 */
function createCsvFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
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

/**
 * Counts the items of a CSV file (RFC 4180): records, where a quoted field may hold line breaks
 * (`""` inside quotes toggles twice, which leaves the state as it was). A record ends at an LF
 * outside quotes (CRLF included); a last record without a line break counts when it holds anything.
 * The first record is the header, so items = records − 1; an empty file (zero items without
 * `--fields`) has none.
 */
function createRecordCounter(): ItemCounter {
  let records = 0;
  let inQuotes = false;
  let open = false;
  return {
    update(chunk) {
      for (const byte of chunk) {
        if (byte === 0x22) inQuotes = !inQuotes;
        if (byte === 0x0a && !inQuotes) {
          records++;
          open = false;
        } else open = true;
      }
    },
    count: () => Math.max(0, records + (open ? 1 : 0) - 1),
  };
}

/**
 * CSV: `.csv` files. A record boundary is the byte after a `\n` (every record, the header included,
 * ends with CRLF); items are counted as records less the header.
 */
export const csv: FormatDefinition<'csv'> = {
  name: 'csv',
  extensions: ['.csv'],
  create: createCsvFormatter,
  prepare: null,
  resume: { resumable: true, isRecordBoundary: (_bytes, _items, lastByte) => lastByte === 0x0a },
  countItems: createRecordCounter,
  compress: { compressible: true },
};
