/**
 * The first page with items fixes the columns (`--fields`, else the endpoint's `tableFields`, else
 * its top-level scalar keys) and widths. Every cell and heading is made inert.
 */
import { stateMismatch, type FormatDefinition, type Formatter, type FormatterOptions, type FormatterState } from '../formatter.js';
import { splitPath } from '../fields.js';
import { compileAccessor, isPlainObject, toCell } from '../flatten.js';
import { JsonNumber } from '../../json/json-value.js';
import { inertText } from '../../io/terminal-text.js';
import { drawLines, layoutOf, loadTableSupport, type TableLayout } from '../table-draw.js';

const TABLE_MAX_ROWS = 1000;
/** Terminal width assumed when none is known, in columns. */
const TABLE_DEFAULT_WIDTH = 120;

interface TableProgress {
  columns: string[][] | null;
  /** Once the first rows were written. */
  layout: TableLayout | null;
  rows: number;
  /** Items seen past the row cap. */
  hidden: number;
}

export type TableState = FormatterState & TableProgress & { format: 'table' };

/** Top-level keys holding a scalar (or null) in some item, first-seen order. */
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

/**
 * `page()` and `end()` need {@link loadTableSupport} to have completed.
 * @throws {UsageError} for any `resume`: a table is never resumed
 */
function createTableFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  if (resume !== undefined) throw stateMismatch('a table');
  const maxRows = options.tableMaxRows ?? TABLE_MAX_ROWS;
  const total = options.columns !== undefined && options.columns > 0 ? options.columns : TABLE_DEFAULT_WIDTH;
  // Columns the user named are never left out; the endpoint's default ones may be.
  const named = options.fields !== undefined && options.fields.length > 0;
  const preset = named ? options.fields : options.tableFields?.length ? options.tableFields : undefined;
  const columns = preset === undefined ? null : preset.map(splitPath);
  const done: TableProgress = { columns, layout: null, rows: 0, hidden: 0 };
  let accessors = (done.columns ?? []).map(compileAccessor);
  const head = (): string[] => (done.columns ?? []).map((p) => inertText(p.join('.')));

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
      const rows = items.slice(0, take).map((item) => accessors.map((get) => inertText(toCell(get(item)))));
      const first = done.layout === null;
      done.layout ??= layoutOf(head(), rows, total, named);
      done.rows += take;
      // The heading and top border come with the first rows; the bottom border waits for end().
      const lines = drawLines(done.layout, first ? head() : undefined, rows).slice(first ? 0 : 1, -1);
      return lines.join('\n') + '\n';
    },
    end() {
      if (done.columns === null || done.columns.length === 0) return '';
      const layout = done.layout ?? layoutOf(head(), [], total, named);
      // No rows: the heading alone; else the bottom border, the last line of any drawing in this layout.
      const lines = done.layout === null ? drawLines(layout, head(), []) : drawLines(layout, undefined, [layout.widths.map(() => '')]).slice(-1);
      let text = lines.join('\n') + '\n';
      // A note as wide as the table at most: narrow terminals drop columns, and the note says so briefly.
      const note = (long: string, short: string): string => `${long.length <= total ? long : short}\n`;
      const more = done.columns.length - layout.widths.length;
      if (more > 0) text += note(`… ${more} more columns not shown; use --fields to choose`, `… ${more} more (--fields)`);
      if (done.hidden > 0) text += note(`… ${done.hidden} more rows not shown; use --format csv`, `… ${done.hidden} more rows (--format csv)`);
      return text;
    },
    state: (): TableState => ({ format: 'table', columns: done.columns, layout: done.layout, rows: done.rows, hidden: done.hidden }),
  };
}

/** A picture of the items: not resumed (widths from the first page), not counted (rows are not items), not compressed. */
export const table: FormatDefinition<'table'> = {
  name: 'table',
  extensions: [],
  create: createTableFormatter,
  prepare: loadTableSupport,
  resume: { resumable: false, refusal: '--resume does not work with --format table (it is built at the end); use csv' },
  countItems: null,
  compress: { compressible: false, refusal: '--format table cannot be compressed (it is for reading); use csv, json or ndjson with gzip' },
};
