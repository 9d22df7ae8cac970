/**
 * `table`: a terminal table drawn with cli-table3 (table-draw.ts), for people, not scripts. It
 * streams: the first page that has items fixes the columns' widths (and which are numbers), its rows
 * are written with the heading, later rows as they come, cut to those widths; at most `tableMaxRows`
 * rows (default {@link TABLE_MAX_ROWS}), the rest counted in a final line. Columns: `--fields`, else the
 * endpoint's `tableFields`, else the top-level scalar keys of the first page that has items.
 * Cells are cut with `…` so every line fits `columns` (default {@link TABLE_DEFAULT_WIDTH}): text
 * columns shrink first, number columns are aligned right and never cut; default columns that cannot
 * get even {@link TABLE_MIN_CELL} characters are left out and counted in a final line, while the
 * columns of `--fields` are all kept (the table is then wider than `columns`). No colours (plain `style`), no lines between rows (`compact`), and every cell and
 * heading is made inert ({@link plainCell}) so data cannot move the cursor or inject terminal escapes.
 */
import type { Formatter, FormatterOptions, FormatterState } from '../formatter.js';
import { splitPath } from '../fields.js';
import { compileAccessor, isPlainObject, toCell } from '../flatten.js';
import { UsageError } from '../../errors.js';
import { JsonNumber } from '../../json/json-value.js';
import { inertText } from '../../io/terminal-text.js';
import { drawLines, drawTable, layoutOf, loadTableSupport, type TableLayout } from '../table-draw.js';
import type { FormatDefinition } from './definition.js';

/** Rows shown at most; the rest are counted in a final line. */
const TABLE_MAX_ROWS = 1000;
/** Terminal width assumed when none is known, in columns. */
const TABLE_DEFAULT_WIDTH = 120;

/** The table formatter's state: what was written and the layout later rows keep (JSON-serialisable). */
export interface TableState extends FormatterState {
  format: 'table';
  /** Column paths, once known. */
  columns: string[][] | null;
  /** Content widths and alignment of the columns shown, once the first rows were written. */
  layout: { widths: number[]; numeric: boolean[] } | null;
  /** Rows written (at most `tableMaxRows`). */
  rows: number;
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

/** Top-level keys holding a scalar (or null) in at least one item, first-seen order. */
function scalarKeys(items: readonly unknown[]): string[][] {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (!isPlainObject(item)) continue;
    for (const key of Object.keys(item)) {
      if (seen.has(key)) continue;
      const value = item[key];
      if (typeof value !== 'object' || value === null || value instanceof JsonNumber) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  return keys.map((k) => [k]);
}

/** What the table formatter has written so far, and how. */
interface TableProgress {
  /** Column paths, once known. */
  columns: string[][] | null;
  /** The layout, once the first rows were written. */
  layout: TableLayout | null;
  /** Rows written. */
  rows: number;
  /** Items seen past the row cap. */
  hidden: number;
}

function isLayout(value: unknown): value is TableLayout {
  const v = value as Partial<TableLayout> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.widths) &&
    v.widths.every((w) => Number.isSafeInteger(w) && w > 0) &&
    Array.isArray(v.numeric) &&
    v.numeric.length === v.widths.length &&
    v.numeric.every((n) => typeof n === 'boolean')
  );
}

/** The progress a table state describes. @throws {UsageError} when it is not a table state */
function progressOf(resume: FormatterState, columns: string[][] | null): TableProgress {
  const { rows, hidden, layout } = resume;
  if (resume.format !== 'table' || !Number.isSafeInteger(rows) || !Number.isSafeInteger(hidden) || !(layout === null || isLayout(layout))) {
    throw new UsageError('checkpoint does not match the output format (expected a table state)', { code: 'E_CHECKPOINT' });
  }
  return { columns: (resume.columns as string[][] | null) ?? columns, layout, rows: rows as number, hidden: hidden as number };
}

/**
 * Creates the table formatter. It streams: the first page that has items fixes the columns and
 * their widths and is written with the heading; later pages' rows are written as they come, cut to
 * those widths. `end()` writes the bottom border and the notes on columns and rows left out, and
 * needs {@link loadTableSupport} to have completed, as `page()` does.
 * @throws {UsageError} when `resume` is not a table state
 */
function createTableFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  const maxRows = options.tableMaxRows ?? TABLE_MAX_ROWS;
  const total = options.columns !== undefined && options.columns > 0 ? options.columns : TABLE_DEFAULT_WIDTH;
  // Columns the user named are never left out; the endpoint's default ones may be.
  const named = options.fields !== undefined && options.fields.length > 0;
  const preset = named ? options.fields : options.tableFields?.length ? options.tableFields : undefined;
  const columns = preset === undefined ? null : preset.map(splitPath);
  const done: TableProgress = resume === undefined ? { columns, layout: null, rows: 0, hidden: 0 } : progressOf(resume, columns);
  let accessors = (done.columns ?? []).map(compileAccessor);
  const head = (): string[] => (done.columns ?? []).map((p) => plainCell(p.join('.')));

  return {
    begin: () => '',
    page(page) {
      if (page.length === 0) return '';
      const items = page.values();
      if (done.columns === null) {
        done.columns = scalarKeys(items);
        accessors = done.columns.map(compileAccessor);
      }
      if (done.columns.length === 0) return '';
      const take = Math.max(0, Math.min(items.length, maxRows - done.rows));
      done.hidden += items.length - take;
      if (take === 0) return '';
      const rows = items.slice(0, take).map((item) => accessors.map((get) => plainCell(toCell(get(item)))));
      const first = done.layout === null;
      done.layout ??= layoutOf(head(), rows, total, named);
      done.rows += take;
      // The heading and top border come with the first rows; the bottom border waits for end().
      const lines = drawLines(done.layout, first ? head() : undefined, rows).slice(first ? 0 : 1, -1);
      return lines.join('\n') + '\n';
    },
    end() {
      if (done.columns === null || done.columns.length === 0) return '';
      let text: string;
      if (done.layout === null) {
        text = drawTable(head(), [], total, named).text + '\n';
      } else {
        // The bottom border: the last line of any drawing in this layout.
        text = (drawLines(done.layout, undefined, [done.layout.widths.map(() => '')]).at(-1) as string) + '\n';
      }
      const shown = done.layout?.widths.length ?? layoutOf(head(), [], total, named).widths.length;
      // A note as wide as the table at most: narrow terminals drop columns, and the note says so briefly.
      const note = (long: string, short: string): string => `${long.length <= total ? long : short}\n`;
      const more = done.columns.length - shown;
      if (more > 0) text += note(`… ${more} more columns not shown; use --fields to choose`, `… ${more} more (--fields)`);
      if (done.hidden > 0) text += note(`… ${done.hidden} more rows not shown; use --format csv`, `… ${done.hidden} more rows (--format csv)`);
      return text;
    },
    state: (): TableState => ({ format: 'table', columns: done.columns, layout: done.layout, rows: done.rows, hidden: done.hidden }),
  };
}

/**
 * The table: a picture of the items for a terminal, never implied by an `--out` extension. It is
 * not resumed (its widths come from the first page and it is capped at `tableMaxRows` rows), not
 * counted by `verify` (the rows shown are not the items), and not compressed (it is for reading).
 * Its formatter measures text with string-width, which `prepare` imports first.
 */
export const table: FormatDefinition<'table'> = {
  name: 'table',
  extensions: [],
  create: createTableFormatter,
  prepare: loadTableSupport,
  resume: { resumable: false, refusal: '--resume does not work with --format table (it is built at the end); use csv' },
  countItems: null,
  compress: { compressible: false, refusal: '--format table cannot be compressed (it is for reading); use csv, json or ndjson with gzip' },
};
