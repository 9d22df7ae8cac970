/**
 * Counting the items of a finished export file, chunk by chunk in constant memory, for `verify`
 * (docs/files.md, "Manifests and `verify`"). Each format says how in its own file (output/formats/, its
 * definition's `countItems`): a small state machine over bytes, needing no decoding since every byte
 * it looks at is ASCII and UTF-8 never uses an ASCII byte inside a multi-byte character. They count;
 * they do not validate: the SHA-256 in the manifest already proves every byte.
 */
import { formatDefinition } from '../../output/writer.js';
import type { ItemCounter } from '../../output/formatter.js';
import type { OutputFormat } from '../../format-names.js';

export type { ItemCounter } from '../../output/formatter.js';

/**
 * The counter of a format (its definition's `countItems`): lines for `ndjson`, the array's length
 * for `json`, records less the header for `csv`.
 * @returns undefined for a format whose output cannot be counted (`table`: a picture of the items,
 *   capped at 1000 rows)
 */
export function createItemCounter(format: OutputFormat): ItemCounter | undefined {
  return formatDefinition(format).countItems?.();
}
