/**
 * Drawing of the `table` format (table.ts) with cli-table3: column widths that fit the terminal
 * ({@link fitWidths}), measured with string-width, and the lines of rows in a fixed layout.
 */
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';

/**
 * Narrowest a text column is cut to, in characters, before columns are left out instead: 8 keeps a
 * date's year and month or an RFC's first 7 characters and `…`, while 3 (`01…`) told nothing and
 * made a 60-column table of 8 unreadable columns. A column whose content is narrower keeps its width.
 */
export const TABLE_MIN_CELL = 8;

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

/**
 * Caps the widths at `indices` at the largest common width from `floor` on that fits `available`
 * (water filling), the rest from the left.
 */
function waterFill(widths: number[], indices: readonly number[], available: number, floor: number): void {
  const natural = indices.map((i) => widths[i] as number);
  let cap = floor;
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
 * {@link TABLE_MIN_CELL} characters per text column (or its whole content when narrower) and whole
 * numbers do not fit, so a narrow terminal shows fewer readable columns rather than every column
 * cut to a stub; a lone column wider than the terminal is cut. With `keepAll` (the columns the
 * user named in `--fields`) no column is dropped: text columns shrink to {@link TABLE_MIN_CELL} at
 * most, and a table that still does not fit is wider than the terminal.
 * @param natural widest content of each column, in characters
 * @param total terminal width, in columns
 * @param numeric which columns hold numbers (default none)
 * @param keepAll keep every column, even past `total`
 * @returns content widths, one per column kept
 */
export function fitWidths(natural: readonly number[], total: number, numeric: readonly boolean[] = [], keepAll = false): number[] {
  const need = (k: number): number =>
    natural.slice(0, k).reduce((a, w, i) => a + 3 + (numeric[i] ? Math.max(1, w) : Math.min(Math.max(1, w), TABLE_MIN_CELL)), 1);
  let count = Math.max(1, natural.length);
  while (!keepAll && count > 1 && need(count) > total) count--;
  const widths = natural.slice(0, count).map((w) => Math.max(1, w));
  const available = total - 1 - 3 * widths.length;
  if (widths.reduce((a, b) => a + b, 0) <= available) return widths;
  const text = widths.map((_w, i) => i).filter((i) => !numeric[i]);
  const fixed = widths.reduce((a, w, i) => a + (numeric[i] ? w : 0), 0);
  const textFloor = text.reduce((a, i) => a + Math.min(widths[i]!, TABLE_MIN_CELL), 0);
  if (text.length > 0 && available - fixed >= textFloor) waterFill(widths, text, available - fixed, TABLE_MIN_CELL);
  else if (keepAll && count > 1) for (const i of text) widths[i] = Math.min(widths[i]!, TABLE_MIN_CELL);
  // A lone column (or numbers alone) wider than the terminal: cut to what there is.
  else
    waterFill(
      widths,
      widths.map((_w, i) => i),
      available,
      1,
    );
  return widths;
}

/** A drawn table: its text (no final newline) and how many columns it shows. */
export interface DrawnTable {
  text: string;
  /** Columns shown, from the left; the rest did not fit. */
  shown: number;
}

/** Content widths and alignment of the columns shown, fixed once (from the first page's rows). */
export interface TableLayout {
  /** Content width of each column shown, in terminal columns ({@link fitWidths}). */
  widths: number[];
  /** Whether each column shown holds numbers (aligned right). */
  numeric: boolean[];
}

/** Rows per cli-table3 table: its layout pass is quadratic in the rows, so they are drawn in chunks. */
const ROWS_PER_DRAW = 64;

/**
 * The layout of a table that fits `total` terminal columns for `head` and `rows`.
 * @param keepAll keep every column (see {@link fitWidths})
 */
export function layoutOf(head: readonly string[], rows: readonly (readonly string[])[], total: number, keepAll = false): TableLayout {
  const natural = head.map((h, i) => rows.reduce((w, r) => Math.max(w, width(r[i] ?? '')), width(h)));
  const numeric = head.map((_h, i) => numericColumn(rows, i));
  const widths = fitWidths(natural, total, numeric, keepAll);
  return { widths, numeric: numeric.slice(0, widths.length) };
}

/**
 * The lines of `rows` (and `head`, when given) in `layout`, borders included: the top one, the
 * heading and its rule, the rows, the bottom one, as cli-table3 draws them in one table. cli-table3
 * draws them in chunks of {@link ROWS_PER_DRAW} (the borders between chunks left out): with fixed
 * widths a row's line does not depend on the other rows, and drawing with the library keeps every
 * width rule (wide and combining characters) its own. 10,000 items with the default 1,000 rows
 * shown take well under a second (test/bench/results.md).
 */
export function drawLines(layout: TableLayout, head: readonly string[] | undefined, rows: readonly (readonly string[])[]): string[] {
  // Loaded here, on the calls that draw: other formats never pay for it at start-up.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3;
  const shown = layout.widths.length;
  const draw = (heading: readonly string[] | undefined, chunk: readonly (readonly string[])[]): string[] => {
    const table = new Table({
      ...(heading ? { head: heading.slice(0, shown) } : {}),
      colWidths: layout.widths.map((w) => w + 2),
      colAligns: layout.numeric.map((n) => (n ? 'right' : 'left')),
      wordWrap: false,
      truncate: '…',
      style: { head: [], border: [], compact: true },
    });
    for (const r of chunk) table.push(r.slice(0, shown));
    return table.toString().split('\n');
  };
  const lines = draw(head, rows.slice(0, 1));
  const bottom = lines.pop() as string;
  let pending: (readonly string[])[] = [];
  const flush = (): void => {
    if (pending.length > 0) lines.push(...draw(undefined, pending).slice(1, -1));
    pending = [];
  };
  for (let k = 1; k < rows.length; k++) {
    pending.push(rows[k] as readonly string[]);
    if (pending.length === ROWS_PER_DRAW) flush();
  }
  flush();
  lines.push(bottom);
  return lines;
}

/**
 * Draws a plain table that fits `total` terminal columns ({@link fitWidths}): no colours, no lines
 * between rows, number columns aligned right and never cut, text cut with `…`. Cells and headings
 * must already be inert ({@link plainCell}). Needs {@link loadTableSupport} to have completed.
 * @param total terminal width, in columns
 * @param keepAll keep every column (see {@link fitWidths})
 */
export function drawTable(head: readonly string[], rows: readonly (readonly string[])[], total: number, keepAll = false): DrawnTable {
  const layout = layoutOf(head, rows, total, keepAll);
  return { text: drawLines(layout, head, rows).join('\n'), shown: layout.widths.length };
}
