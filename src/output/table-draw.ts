/** Tables drawn with cli-table3 in column widths that fit the terminal, measured with string-width. */
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';

/** Narrowest a text column is cut to, in characters, before columns are left out: 8 keeps a date's year and month. */
export const TABLE_MIN_CELL = 8;

let stringWidth: ((text: string) => number) | undefined;

/** Loaded for tables only (its cost: test/bench/results.md, «Modules loaded when first needed»); ESM only, it cannot be required synchronously before Node 20.19. */
export async function loadTableSupport(): Promise<void> {
  stringWidth ??= (await import('string-width')).default;
}

/** Wide characters and emoji count 2, combining marks 0 (cli-table3 cuts cells to the widths given). */
function width(text: string): number {
  if (stringWidth === undefined) throw new Error('table: end() before loadTableSupport() completed');
  return stringWidth(text);
}

/** `-12`, `1,200`, `3.5`, `1e6`: such columns are aligned right and never cut. */
function isNumber(text: string): boolean {
  return /^[-+]?\d[\d,]*(\.\d+)?([eE][-+]?\d+)?$/.test(text);
}

function numericColumn(rows: readonly (readonly string[])[], i: number): boolean {
  const cells = rows.map((r) => r[i] ?? '').filter((c) => c !== '' && c !== '-');
  return cells.length > 0 && cells.every(isNumber);
}

/** Caps the widths at `indices` at the largest common width from `floor` that fits `available`, the rest from the left. */
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
 * Content widths, one per column kept, that fit `total` terminal columns (cli-table3 adds a space
 * each side and a border between and around columns). Numbers are never cut. Columns are dropped
 * from the right while even {@link TABLE_MIN_CELL} characters a text column do not fit, unless
 * `keepAll` (the columns of `--fields`): the table may then be wider than the terminal.
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
  else waterFill(widths, [...widths.keys()], available, 1); // a lone column, or numbers alone, wider than the terminal
  return widths;
}

/** Content widths and alignment of the columns shown, fixed from the first page's rows. */
export interface TableLayout {
  widths: number[];
  numeric: boolean[];
}

/** cli-table3's layout pass is quadratic in the rows, so they are drawn in chunks. */
const ROWS_PER_DRAW = 64;

export function layoutOf(head: readonly string[], rows: readonly (readonly string[])[], total: number, keepAll = false): TableLayout {
  const natural = head.map((h, i) => rows.reduce((w, r) => Math.max(w, width(r[i] ?? '')), width(h)));
  const numeric = head.map((_h, i) => numericColumn(rows, i));
  const widths = fitWidths(natural, total, numeric, keepAll);
  return { widths, numeric: numeric.slice(0, widths.length) };
}

/**
 * The lines of `rows` (and `head`) in `layout`, borders included, as cli-table3 draws them in one
 * table: drawn in chunks, the borders between left out, since with fixed widths a row's line does
 * not depend on the other rows.
 */
export function drawLines(layout: TableLayout, head: readonly string[] | undefined, rows: readonly (readonly string[])[]): string[] {
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

/** A plain table, without a final newline, that fits `total` terminal columns; cells and headings must be inert already. */
export function drawTable(head: readonly string[], rows: readonly (readonly string[])[], total: number, keepAll = false): string {
  return drawLines(layoutOf(head, rows, total, keepAll), head, rows).join('\n');
}
