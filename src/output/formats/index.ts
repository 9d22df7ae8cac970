/**
 * The registry of output formats: one line per format. Each format is one file beside this one (its
 * formatter, its `--out` extensions, its `--resume` record boundary, its `verify` item count, its
 * gzip and resume limits, see definition.ts); writer.ts answers every question about a format from
 * this list, so nothing else in the code branches on a format's name.
 *
 * The names alone are in src/format-names.ts, a ground-floor leaf without imports, because config/ (the flag table, the
 * stored `format` setting) needs them without loading the formatters. The type of {@link FORMATS}
 * ties the two: one definition per name of `OUTPUT_FORMATS`, in its order, each carrying that name,
 * so a name without a definition, a definition without a name, or two out of step do not compile.
 *
 * Adding a format: its file here exporting a `FormatDefinition` (test/fixtures/fake-format.ts is a
 * complete small one), its entry in {@link FORMATS}, and its name in src/format-names.ts.
 */
import type { FormatDefinition } from './definition.js';
import type { OUTPUT_FORMATS } from '../../format-names.js';
import { csv } from './csv.js';
import { json } from './json.js';
import { ndjson } from './ndjson.js';
import { table } from './table.js';

/** One {@link FormatDefinition} per name of `OUTPUT_FORMATS`, position by position. */
type Registry<Names extends readonly string[]> = { readonly [I in keyof Names]: FormatDefinition<Names[I]> };

/** Every format's definition, in the order of `OUTPUT_FORMATS` (src/format-names.ts). */
export const FORMATS: readonly FormatDefinition[] = [json, ndjson, csv, table] as const satisfies Registry<typeof OUTPUT_FORMATS>;
