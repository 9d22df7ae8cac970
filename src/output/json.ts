/**
 * JSON: one array (RFC 8259), valid for zero items, streamed page by page. Layout, the same across
 * page boundaries and resumes: `[`, then each item on its own line (compact, as received, or
 * projected on `--fields`) preceded by `\n` for the first and `,\n` for the others, then `\n]\n`;
 * zero items give `[]\n`. Only "has an item been written" is needed to continue, so that is the state.
 */
import type { Formatter, FormatterOptions, FormatterState } from './formatter.js';
import { compileProjection } from './fields.js';
import { joinBytes, joinProjected } from './ndjson.js';
import { UsageError } from '../errors.js';

/** The JSON formatter's checkpointed state. */
export interface JsonState extends FormatterState {
  format: 'json';
  /** Items written so far (only zero versus more matters for the separators). */
  items: number;
}

/**
 * Creates the JSON formatter.
 * @throws {UsageError} when `resume` is not a JSON state
 */
export function createJsonFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  let written = 0;
  if (resume !== undefined) {
    if (resume.format !== 'json' || typeof resume.items !== 'number' || !Number.isSafeInteger(resume.items) || resume.items < 0) {
      throw new UsageError('checkpoint does not match the output format (expected a json state)', { code: 'E_CHECKPOINT' });
    }
    written = resume.items;
  }
  const project = options.fields !== undefined && options.fields.length > 0 ? compileProjection(options.fields) : undefined;
  return {
    begin: () => '[',
    page(items) {
      if (items.length === 0) return '';
      const prefix = written === 0 ? '\n' : ',\n';
      written += items.length;
      return project === undefined ? joinBytes(items.texts(), prefix, ',\n', '') : prefix + joinProjected(items.values(), ',\n', project);
    },
    end: () => (written === 0 ? ']\n' : '\n]\n'),
    state: (): JsonState => ({ format: 'json', items: written }),
  };
}
