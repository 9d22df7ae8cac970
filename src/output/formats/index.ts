/**
 * The registry of output formats, one line a format; its own module so that a test can register
 * one. The names alone are in format-names.ts, which config/ reads without loading the formatters;
 * the type of {@link FORMATS} keeps the two in step, so a name without a definition does not compile.
 */
import type { FormatDefinition } from '../formatter.js';
import type { OUTPUT_FORMATS } from '../../format-names.js';
import { csv } from './csv.js';
import { json } from './json.js';
import { ndjson } from './ndjson.js';
import { table } from './table.js';

/** One {@link FormatDefinition} per name of `OUTPUT_FORMATS`, position by position. */
type Registry<Names extends readonly string[]> = { readonly [I in keyof Names]: FormatDefinition<Names[I]> };

export const FORMATS: readonly FormatDefinition[] = [json, ndjson, csv, table] as const satisfies Registry<typeof OUTPUT_FORMATS>;
