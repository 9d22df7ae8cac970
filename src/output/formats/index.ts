/** The registry, its own module so a test can register a format; its type keeps it in step with `OUTPUT_FORMATS`. */
import type { FormatDefinition } from '../formatter.js';
import type { OUTPUT_FORMATS } from '../../format-names.js';
import { csv } from './csv.js';
import { json } from './json.js';
import { ndjson } from './ndjson.js';
import { table } from './table.js';

/** One {@link FormatDefinition} per name of `OUTPUT_FORMATS`, position by position. */
type Registry<Names extends readonly string[]> = { readonly [I in keyof Names]: FormatDefinition<Names[I]> };

export const FORMATS: readonly FormatDefinition[] = [json, ndjson, csv, table] as const satisfies Registry<typeof OUTPUT_FORMATS>;
