/**
 * What one export is asked to do, in one vocabulary for both doors: the command line renames its
 * flags to these (`optionsOfFlags`), the library passes its options through.
 */
import type { ExportOptionValues } from '../../config/flags.js';
import type { IdFlagValues } from '../../endpoints.js';

/**
 * The rows of the flag table under their option names (camelCase), each in its row's unit:
 * `timeoutMs` and `maxWaitMs` in ms, `maxBodyBytes` in bytes, `eventsRetentionDays` in days;
 * `params` and `headers` as `[name, value]` pairs in order. Undefined = not given.
 */
export interface ExportOptions extends ExportOptionValues, IdFlagValues {
  /** `get`'s path, as typed (a query allowed); undefined for a named command. */
  path?: string;
}
