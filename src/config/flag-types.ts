/**
 * The types of the one flag table (flags.ts): what commander hands over, what a profile stores, and
 * the shape of a row. Kept apart so the table itself stays a table.
 */
import type { OutputFormat } from '../format-names.js';

/** The values of the export flags as commander hands them over (undefined = not given). */
export interface ExportFlagValues {
  /** `-o, --out <file>`; `-` means stdout. */
  out?: string;
  /** `-f, --format <format>`, one of the output formats (format-names.ts `OUTPUT_FORMATS`). */
  format?: string;
  /** `--compress <type>`: `gzip` (the only one). */
  compress?: string;
  /** `--cursor`. */
  cursor?: boolean;
  /** `--total`. */
  total?: boolean;
  /** `--items-per-page <n>`, 1 to 1000. */
  itemsPerPage?: number;
  /** `--page <n>`, 1 to `Number.MAX_SAFE_INTEGER`. */
  page?: number;
  /** `--max-items <n>`, 1 to `Number.MAX_SAFE_INTEGER`. */
  maxItems?: number;
  /** `--param <key=value>`, repeatable: the pairs in order. */
  param?: Array<[string, string]>;
  /** `-H, --header <'Name: value'>`, repeatable: the headers in order, checked (http/request-headers.ts `parseHeader`). */
  header?: Array<[string, string]>;
  /** `--since <time>`, unparsed (export/state/since.ts parses it). */
  since?: string;
  /** `--since-field <field>` (`get` only): the date field `--since` and `--state` filter on. */
  sinceField?: string;
  /** `--state <file>`, the state file of incremental exports. */
  state?: string;
  /** `--table <name>`: the table of a database `--out`, `name` or `schema.name`. */
  table?: string;
  /** `--key <field>`: the member field that is a database table's key, a dot path. */
  key?: string;
  /** `--incremental`: the watermark kept with a database table. */
  incremental?: boolean;
  /** `--prune`: delete the rows of the source a complete full run did not see. */
  prune?: boolean;
  /** `--taxpayers-file <file>`: one taxpayer id a line; `-` is stdin (commands/batch-plan.ts reads it). */
  taxpayersFile?: string;
  /** `--parallel <n>`, 1 to 32: taxpayers exported at once. */
  parallel?: number;
  /** `--fields <a,b.c>`, unparsed. */
  fields?: string;
  /** `--csv-safe`. */
  csvSafe?: boolean;
  /** `--manifest <file>`: where the manifest goes (default `F.manifest.json` beside `--out F`). */
  manifest?: string;
  /** `--resume`. */
  resume?: boolean;
  /** `--restart`. */
  restart?: boolean;
  /** `--concurrency <n>`, 1 to 16. */
  concurrency?: number;
  /** `--max-wait <seconds>`, 0 to {@link MAX_TIMER_SECONDS}, converted to milliseconds. */
  maxWait?: number;
  /** `--retries <n>`, 0 to 100. */
  retries?: number;
  /** `--timeout <seconds>`, 0.001 to {@link MAX_TIMER_SECONDS}, converted to milliseconds. */
  timeout?: number;
  /** `--max-body-size <bytes>`, in bytes (`8MiB` accepted). */
  maxBodySize?: number;
  /** `-q, --quiet`. */
  quiet?: boolean;
  /** `--no-progress` sets it false; commander defaults it to true, and absent counts as true. */
  progress?: boolean;
  /** `-v, --verbose`. */
  verbose?: boolean;
  /** `--dry-run`. */
  dryRun?: boolean;
  /** `--log-format <format>`, `text` or `json`. */
  logFormat?: string;
}

/** Export defaults stored in the profile; flags override them, they override built-in defaults. */
export interface ExportDefaults {
  /** `items-per-page`, 1–1000. */
  itemsPerPage?: number;
  /** `format`. */
  format?: OutputFormat;
  /** `concurrency`, 1–16. */
  concurrency?: number;
  /** `max-wait`, converted to milliseconds (as `--max-wait` is parsed). */
  maxWaitMs?: number;
  /** `retries`, 0–100. */
  retries?: number;
  /** `timeout`, converted to milliseconds (as `--timeout` is parsed). */
  timeoutMs?: number;
}

/**
 * The kind of value a flag takes, which gives its parser: `switch` (no value), `text` (as typed;
 * `files` when it names a path, for completion), `integer` (whole number in [min, max]), `seconds`
 * (decimal seconds in [min, max], parsed to milliseconds), `bytes` (a whole number of bytes in
 * [min, max], with an optional unit `KiB`/`MiB`/`GiB`), `choice` (one of `choices`, checked by
 * commander), `pairs` (repeatable `key=value`, collected in order), `headers` (repeatable
 * `Name: value`, checked and collected in order).
 */
export type FlagValueSpec =
  | { readonly kind: 'switch' }
  | { readonly kind: 'text'; readonly files?: boolean }
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  | { readonly kind: 'seconds'; readonly min: number; readonly max: number }
  | { readonly kind: 'bytes'; readonly min: number; readonly max: number }
  | { readonly kind: 'choice'; readonly choices: readonly string[] }
  | { readonly kind: 'pairs' }
  | { readonly kind: 'headers' };

/** A flag that a profile can store a default for. */
export interface FlagConfigSpec {
  /** Its config key (`collections config set KEY VALUE`), e.g. `items-per-page`. */
  readonly key: string;
  /** The field of {@link ExportDefaults} the stored value fills (seconds become milliseconds). */
  readonly setting: keyof ExportDefaults;
  /** Its place in `config list`, the config help and the "known keys" hint (1 = first after the key and URL). */
  readonly listOrder: number;
}

/** One export flag. */
export interface ExportFlagSpec {
  /** Commander flags, e.g. `-o, --out <file>` or `--no-progress`. */
  readonly flags: string;
  /** Commander's attribute name, e.g. `itemsPerPage` (`--items-per-page`), `progress` (`--no-progress`). */
  readonly attribute: keyof ExportFlagValues;
  /** One line for help, without the default. */
  readonly description: string;
  /** The kind of value it takes, which gives its parser and what completion offers. */
  readonly value: FlagValueSpec;
  /**
   * The built-in default, applied when neither the flag nor the profile gives one, in the unit the
   * parser returns (milliseconds for `seconds`); `Infinity` = no limit.
   */
  readonly defaultValue?: number | string;
  /** How help shows the default, when {@link defaultValue} alone would not say it (e.g. `default: no limit`). */
  readonly defaultHelp?: string;
  /** Present when a profile can store a default for the flag. */
  readonly config?: FlagConfigSpec;
  /** Present when the flag only makes sense with that id: only commands whose endpoints take it offer it. */
  readonly forId?: 'taxpayerId' | 'invoiceId';
  /** Present when only that command offers the flag (`get`: its path names no endpoint of the table). */
  readonly forCommand?: 'get';
  /**
   * Present when the flag only works in cursor mode: a command none of whose endpoints pages by
   * cursor still accepts it (to refuse it with its own usage error) but leaves it out of its help.
   */
  readonly cursorOnly?: true;
}
