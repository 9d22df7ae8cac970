/** The names alone, so config/ and `--help` offer them without loading output code; the formats' registry type-checks them. */

/** In the order `--help`, completion and `config set format` list them. */
export const OUTPUT_FORMATS = ['json', 'ndjson', 'csv', 'table'] as const;

/** README, "Output". */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Of stdout and of an `--out` whose extension names no format. */
export const DEFAULT_FORMAT = 'ndjson' satisfies OutputFormat;
