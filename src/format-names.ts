/**
 * The names of the output formats, and nothing else: a ground-floor leaf without imports (data, as
 * endpoints.ts is), so the flag table and the stored `format` setting (config/) can be typed by
 * {@link OutputFormat} and offer the names as `--format` choices without loading any output code
 * (config/ sits below the export stack, and `--help` stays cheap). Each name's definition (its
 * formatter and rules) is in the registry, output/formats/index.ts, whose type checks that the two
 * lists agree name by name: adding a format is its file in output/formats/, its line in the registry
 * and its name here, and forgetting one of the three does not compile.
 */

/** Every output format, in the order `--help`, completion and `config set format` list them. */
export const OUTPUT_FORMATS = ['json', 'ndjson', 'csv', 'table'] as const;

/** The output formats (README, "Output"). */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The format of stdout and of an `--out` whose extension names no format (README, `--format`). */
export const DEFAULT_FORMAT = 'ndjson' satisfies OutputFormat;
