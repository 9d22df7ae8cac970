/**
 * `table`: a terminal table drawn with cli-table3, for people, not scripts. The one format that
 * buffers: rows are kept (at most `tableMaxRows`, default {@link TABLE_MAX_ROWS}) and the table is
 * written by `end()`, since column widths depend on every row. Columns: `--fields`, else the
 * endpoint's `tableFields`, else the top-level scalar keys of the first page that has items.
 * Cells are cut with `…` so every line fits `columns` (default {@link TABLE_DEFAULT_WIDTH}): text
 * columns shrink first, number columns are aligned right and never cut; columns that cannot get
 * even {@link TABLE_MIN_CELL} characters are left out and counted in a final line. No colours (plain `style`), no lines between rows (`compact`), and every cell and
 * heading is made inert ({@link plainCell}) so data cannot move the cursor or inject terminal escapes.
 */
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';
import type { Formatter, FormatterOptions, FormatterState } from './formatter.js';
import { splitPath } from './fields.js';
import { compileAccessor, isPlainObject, itemValues, toCell } from './flatten.js';
import { UsageError } from '../errors.js';
import { inertText } from '../io/terminal-text.js';

/** Rows shown at most; the rest are counted in a final line. */
const TABLE_MAX_ROWS = 1000;
/** Terminal width assumed when none is known, in columns. */
const TABLE_DEFAULT_WIDTH = 120;
/** Narrowest cell content, in characters, before a column is left out. */
export const TABLE_MIN_CELL = 3;

/** The table formatter's state: the buffered rows (JSON-serialisable, at most `tableMaxRows`). */
export interface TableState extends FormatterState {
  format: 'table';
  /** Column paths, once known. */
  columns: string[][] | null;
  /** Buffered rows of cell texts. */
  rows: string[][];
  /** Items seen past the row cap. */
  hidden: number;
}

/**
 * Cell text fit for a terminal ({@link inertText}): escape sequences and bidi controls are removed,
 * tabs and line breaks become spaces, so data cannot move the cursor, retitle the window or reorder
 * what is shown. Only the table is cleaned this way; json, ndjson and csv files stay byte-exact.
 */
export function plainCell(text: string): string {
  return inertText(text);
}

/** string-width's measure, once {@link loadTableSupport} has run. */
let stringWidth: ((text: string) => number) | undefined;

/**
 * Loads string-width, which `end()` of a table needs, and resolves once it is there. The table is
 * the one format that measures text, so the others do not pay for it at start-up (it builds an
 * `Intl.Segmenter`, about 30 ms of CPU); being ESM only, it cannot be required synchronously by
 * `end()` on every Node 20 (`require` of ESM came with 20.19). The export awaits this before it
 * creates a table formatter.
 */
export async function loadTableSupport(): Promise<void> {
  stringWidth ??= (await import('string-width')).default;
}

/**
 * Display width in terminal columns, by string-width: East Asian wide characters and emoji count 2,
 * combining marks 0 (cli-table3 measures with its own copy and cuts cells to the widths given).
 * @throws {Error} (a bug, exit 1) when {@link loadTableSupport} has not completed
 */
function width(text: string): number {
  if (stringWidth === undefined) throw new Error('table: end() before loadTableSupport() completed');
  return stringWidth(text);
}

/** Whether a cell reads as a number (`-12`, `1,200`, `3.5`, `1e6`): such columns are aligned right and never cut. */
function isNumber(text: string): boolean {
  return /^[-+]?\d[\d,]*(\.\d+)?([eE][-+]?\d+)?$/.test(text);
}

/** Whether every non-empty cell of column `i` is a number (and at least one is). */
function numericColumn(rows: readonly (readonly string[])[], i: number): boolean {
  const cells = rows.map((r) => r[i] ?? '').filter((c) => c !== '' && c !== '-');
  return cells.length > 0 && cells.every(isNumber);
}

/** Caps the widths at `indices` at the largest common width that fits `available` (water filling), the rest from the left. */
function waterFill(widths: number[], indices: readonly number[], available: number): void {
  const natural = indices.map((i) => widths[i] as number);
  let cap = TABLE_MIN_CELL;
  const used = (c: number): number => natural.reduce((a, w) => a + Math.min(w, c), 0);
  while (used(cap + 1) <= available && natural.some((w) => w > cap)) cap++;
  let spare = available - used(cap);
  indices.forEach((i, k) => {
    const w = natural[k] as number;
    widths[i] = Math.min(w, cap);
    if (w > cap && spare > 0) {
      widths[i] = cap + 1;
      spare--;
    }
  });
}

/**
 * Content widths that fit `total` terminal columns (cli-table3 adds 1 padding each side and one
 * border character between and around columns). Natural widths are kept when they fit. Otherwise
 * number columns keep their width (a number is never cut) and the text columns are capped at the
 * largest common width that fits (water filling), the remainder going one character at a time to
 * the capped columns from the left. Columns are dropped from the right while even
 * {@link TABLE_MIN_CELL} characters per text column and whole numbers do not fit; a lone column
 * wider than the terminal is cut.
 * @param natural widest content of each column, in characters
 * @param total terminal width, in columns
 * @param numeric which columns hold numbers (default none)
 * @returns content widths, one per column kept
 */
export function fitWidths(natural: readonly number[], total: number, numeric: readonly boolean[] = []): number[] {
  const need = (k: number): number =>
    natural.slice(0, k).reduce((a, w, i) => a + 3 + (numeric[i] ? Math.max(1, w) : Math.min(Math.max(1, w), TABLE_MIN_CELL)), 1);
  let count = Math.min(natural.length, Math.max(1, Math.floor((total - 1) / (TABLE_MIN_CELL + 3))));
  while (count > 1 && need(count) > total) count--;
  const widths = natural.slice(0, count).map((w) => Math.max(1, w));
  const available = total - 1 - 3 * widths.length;
  if (widths.reduce((a, b) => a + b, 0) <= available) return widths;
  const text = widths.map((_w, i) => i).filter((i) => !numeric[i]);
  const fixed = widths.reduce((a, w, i) => a + (numeric[i] ? w : 0), 0);
  if (text.length > 0 && available - fixed >= TABLE_MIN_CELL * text.length) waterFill(widths, text, available - fixed);
  else
    waterFill(
      widths,
      widths.map((_w, i) => i),
      available,
    );
  return widths;
}

/** A drawn table: its text (no final newline) and how many columns it shows. */
export interface DrawnTable {
  text: string;
  /** Columns shown, from the left; the rest did not fit. */
  shown: number;
}

/**
 * Draws a plain table that fits `total` terminal columns ({@link fitWidths}): no colours, no lines
 * between rows, number columns aligned right and never cut, text cut with `…`. Cells and headings
 * must already be inert ({@link plainCell}). Needs {@link loadTableSupport} to have completed.
 * @param total terminal width, in columns
 */
export function drawTable(head: readonly string[], rows: readonly (readonly string[])[], total: number): DrawnTable {
  const natural = head.map((h, i) => rows.reduce((w, r) => Math.max(w, width(r[i] ?? '')), width(h)));
  const numeric = head.map((_h, i) => numericColumn(rows, i));
  const widths = fitWidths(natural, total, numeric);
  const shown = widths.length;
  // Loaded here, on the one call that draws: other formats never pay for it at start-up.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3;
  const table = new Table({
    head: head.slice(0, shown),
    colWidths: widths.map((w) => w + 2),
    colAligns: numeric.slice(0, shown).map((n) => (n ? 'right' : 'left')),
    wordWrap: false,
    truncate: '…',
    style: { head: [], border: [], compact: true },
  });
  for (const r of rows) table.push(r.slice(0, shown));
  return { text: table.toString(), shown };
}

/** Top-level keys holding a scalar (or null) in at least one item, first-seen order. */
function scalarKeys(items: readonly unknown[]): string[][] {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (!isPlainObject(item)) continue;
    for (const key of Object.keys(item)) {
      if (seen.has(key)) continue;
      const value = item[key];
      if (typeof value !== 'object' || value === null) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  return keys.map((k) => [k]);
}

/**
 * Creates the table formatter. `page()` returns `''`; `end()` returns the whole table and needs
 * {@link loadTableSupport} to have completed.
 * @throws {UsageError} when `resume` is not a table state
 */
export function createTableFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  const maxRows = options.tableMaxRows ?? TABLE_MAX_ROWS;
  const total = options.columns !== undefined && options.columns > 0 ? options.columns : TABLE_DEFAULT_WIDTH;
  const preset = options.fields?.length ? options.fields : options.tableFields?.length ? options.tableFields : undefined;
  let columns: string[][] | null = preset === undefined ? null : preset.map(splitPath);
  let rows: string[][] = [];
  let hidden = 0;
  if (resume !== undefined) {
    if (resume.format !== 'table' || !Array.isArray(resume.rows) || typeof resume.hidden !== 'number') {
      throw new UsageError('checkpoint does not match the output format (expected a table state)', { code: 'E_CHECKPOINT' });
    }
    columns = (resume.columns as string[][] | null) ?? columns;
    // A checkpoint is a file anyone may have edited: its cells are made inert again.
    rows = (resume.rows as unknown[]).map((r) => (Array.isArray(r) ? r.map((c) => plainCell(String(c))) : []));
    hidden = resume.hidden;
  }
  let accessors = (columns ?? []).map(compileAccessor);

  return {
    begin: () => '',
    page(page, asJson) {
      if (page.length === 0) return '';
      const items = itemValues(page, asJson);
      if (columns === null) {
        columns = scalarKeys(items);
        accessors = columns.map(compileAccessor);
      }
      for (const item of items) {
        if (rows.length >= maxRows) {
          hidden++;
          continue;
        }
        rows.push(accessors.map((get) => plainCell(toCell(get(item)))));
      }
      return '';
    },
    end() {
      if (columns === null || columns.length === 0) return '';
      const head = columns.map((p) => plainCell(p.join('.')));
      const { text: drawn, shown } = drawTable(head, rows, total);
      let text = drawn + '\n';
      if (shown < columns.length) text += `… ${columns.length - shown} more columns not shown; use --fields to choose\n`;
      if (hidden > 0) text += `… ${hidden} more rows not shown; use --format csv\n`;
      return text;
    },
    state: (): TableState => ({ format: 'table', columns, rows, hidden }),
  };
}
