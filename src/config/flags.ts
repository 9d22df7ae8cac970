/** The one table of the export flags (commander, config keys, completion, value types); in config/ for the store, pure data for `--help`. */
import { UsageError } from '../errors.js';
import { DEFAULT_FORMAT, OUTPUT_FORMATS } from '../format-names.js';
import { parseHeader } from '../http/request-headers.js';

/**
 * The kind of value a flag takes, which gives its parser and its type: `seconds` are parsed to
 * milliseconds; `bytes` take an optional `KiB`/`MiB`/`GiB`; commander checks a `choice`; `pairs`
 * and `headers` are repeatable and collected in order; `files` is for completion.
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
  /** `collections config set KEY VALUE`; its field of {@link ExportDefaults} is the row's option name. */
  readonly key: string;
  /** Its place in `config list`, the config help and the "known keys" hint. */
  readonly listOrder: number;
}

export interface ExportFlagSpec {
  /** Commander's, e.g. `-o, --out <file>`. */
  readonly flags: string;
  /** Commander's attribute name: `progress` for `--no-progress`. */
  readonly attribute: string;
  /** Without the default. */
  readonly description: string;
  readonly value: FlagValueSpec;
  /** Used when neither the flag nor the profile gives one, in the parser's unit (ms for `seconds`); `Infinity` = no limit. */
  readonly defaultValue?: number | string;
  /** When {@link defaultValue} alone would not say it, e.g. `default: no limit`. */
  readonly defaultHelp?: string;
  readonly config?: FlagConfigSpec;
  /** Only commands whose endpoints take that id offer the flag. */
  readonly forId?: 'taxpayerId' | 'invoiceId';
  /** Only that command offers the flag (`get`: its path names no endpoint of the table). */
  readonly forCommand?: 'get';
  /** Cursor mode only: a command none of whose endpoints pages by cursor accepts it (to refuse it) but leaves it out of its help. */
  readonly cursorOnly?: true;
  /** Its name in {@link ExportOptions} and the library, when not {@link attribute}. */
  readonly option?: string;
  /** The unit of a number in {@link ExportOptions} (`ms` for `seconds`: the parser converts). */
  readonly unit?: string;
  /** The command line's only (the terminal, the run of many): the library has no such option. */
  readonly cliOnly?: true;
}

/**
 * The longest delay a timer holds, in seconds: Node's `setTimeout` turns more than 2^31 − 1 ms into
 * 1 ms, so a larger `--timeout` would fire at once; a `--max-wait` wait is one timer too.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** Every export flag by its {@link ExportFlagSpec.attribute}, in the order `--help` lists them (after the id flags). */
const FLAG_TABLE = {
  out: {
    flags: '-o, --out <file>',
    description:
      'write to a file (completed atomically), a postgres:// URL, F.duckdb or F.parquet; omitted or - means stdout; may be a template with {taxpayer}, {endpoint}, {date}',
    value: { kind: 'text', files: true },
    cliOnly: true,
  },
  format: {
    flags: '-f, --format <format>',
    description: 'output format',
    // The names alone: `--help` loads no formatter.
    value: { kind: 'choice', choices: OUTPUT_FORMATS },
    defaultValue: DEFAULT_FORMAT,
    defaultHelp: 'default: from the --out extension, else ndjson',
    config: { key: 'format', listOrder: 2 },
  },
  compress: {
    flags: '--compress <type>',
    description: 'compress the output with gzip (implied by an --out ending in .gz); resumable',
    value: { kind: 'choice', choices: ['gzip'] },
  },
  cursor: {
    flags: '--cursor',
    description: 'cursor pagination (X-Pagination-Style: cursor)',
    value: { kind: 'switch' },
    cursorOnly: true,
  },
  total: {
    flags: '--total',
    description: 'with --cursor, ask for hydra:totalItems so progress shows a percentage (slower)',
    value: { kind: 'switch' },
    cursorOnly: true,
  },
  itemsPerPage: {
    flags: '--items-per-page <n>',
    description: 'items per request, 1 to 1000',
    value: { kind: 'integer', min: 1, max: 1000 },
    defaultValue: 1000,
    config: { key: 'items-per-page', listOrder: 1 },
    unit: 'items',
  },
  page: {
    flags: '--page <n>',
    description: 'first page in offset mode',
    value: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
    defaultValue: 1,
    unit: 'a page number',
  },
  maxItems: {
    flags: '--max-items <n>',
    description: 'stop after exactly n items, requesting only the pages that hold them',
    value: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
    unit: 'items',
  },
  param: {
    flags: '--param <key=value>',
    description: "extra query parameter for the API's filters (repeatable)",
    value: { kind: 'pairs' },
    option: 'params',
  },
  header: {
    flags: '-H, --header <header>',
    description:
      "extra request header 'Name: value' (repeatable; replaces a stored header of that name); not X-Api-Key, Accept or the pagination headers; credential-like values are masked",
    value: { kind: 'headers' },
    option: 'headers',
  },
  since: {
    flags: '--since <time>',
    description: 'only items created or changed at or after this ISO 8601 time (a date alone is 00:00 UTC); invoices, entities, events',
    value: { kind: 'text' },
  },
  sinceField: {
    flags: '--since-field <field>',
    description: 'the date field --since, --state and --incremental filter on (as <field>[after]), e.g. updatedAt; default: the one of a known path',
    value: { kind: 'text' },
    forCommand: 'get',
  },
  state: {
    flags: '--state <file>',
    description: 'incremental export: start at the watermark stored in this JSON file, advance it when the export completes',
    value: { kind: 'text', files: true },
  },
  table: {
    flags: '--table <name>',
    description: 'table of a database --out, schema.table allowed (default from the command: invoices, line_items, payments, entities, events)',
    value: { kind: 'text' },
  },
  key: {
    flags: '--key <field>',
    description: "the member field that is a database table's primary key, a dot path (default id, else @id)",
    value: { kind: 'text' },
  },
  incremental: {
    flags: '--incremental',
    description: 'with a database --out: start at the watermark stored with the table for this source; store the new one when complete',
    value: { kind: 'switch' },
  },
  prune: {
    flags: '--prune',
    description: "with a database --out, on a complete full run: delete this source's rows that the run did not see",
    value: { kind: 'switch' },
  },
  eventsRetention: {
    flags: '--events-retention <days>',
    description:
      'with --incremental (invoices, entities): the days the API keeps its events; a watermark older than that makes the run a full refresh with --prune',
    value: { kind: 'integer', min: 1, max: 365 },
    defaultValue: 7,
    config: { key: 'events-retention', listOrder: 7 },
    option: 'eventsRetentionDays',
    unit: 'days',
  },
  lookback: {
    flags: '--lookback <seconds>',
    description:
      'with --state or --incremental: start that long before the stored watermark, to read again what the API committed late (a database upserts it; a file gets it again)',
    value: { kind: 'seconds', min: 0, max: 86_400 },
    defaultValue: 0,
    option: 'lookbackMs',
    unit: 'ms',
  },
  taxpayersFile: {
    flags: '--taxpayers-file <file>',
    description: 'export every taxpayer listed in the file (one id a line, # comments; - is stdin); --out must then be a template',
    value: { kind: 'text', files: true },
    forId: 'taxpayerId',
    cliOnly: true,
  },
  parallel: {
    flags: '--parallel <n>',
    description: 'taxpayers exported at once when several are given, sharing one rate budget per endpoint; 1 to 32',
    value: { kind: 'integer', min: 1, max: 32 },
    defaultValue: 1,
    forId: 'taxpayerId',
    unit: 'taxpayers',
    cliOnly: true,
  },
  fields: {
    flags: '--fields <a,b.c>',
    description: 'columns for csv and table (dot paths); also projects json and ndjson items',
    value: { kind: 'text' },
  },
  csvSafe: {
    flags: '--csv-safe',
    description: 'neutralise spreadsheet formulas in csv string cells (=, +, -, @, tab, CR)',
    value: { kind: 'switch' },
  },
  manifest: {
    flags: '--manifest <file>',
    description: 'write the manifest (size, SHA-256, counts, request ids) there instead of beside --out as F.manifest.json',
    value: { kind: 'text', files: true },
  },
  resume: {
    flags: '--resume',
    description: 'continue an interrupted export to the same --out from its checkpoint',
    value: { kind: 'switch' },
  },
  restart: {
    flags: '--restart',
    description: "discard an interrupted export's checkpoint and partial file and start over",
    value: { kind: 'switch' },
  },
  concurrency: {
    flags: '--concurrency <n>',
    description: 'pages in flight in offset mode, 1 to 16',
    value: { kind: 'integer', min: 1, max: 16 },
    defaultValue: 4,
    config: { key: 'concurrency', listOrder: 3 },
    unit: 'pages',
  },
  maxWait: {
    flags: '--max-wait <seconds>',
    description: 'longest single rate-limit wait to accept; past it exit 5, checkpoint kept',
    value: { kind: 'seconds', min: 0, max: MAX_TIMER_SECONDS },
    defaultValue: Number.POSITIVE_INFINITY,
    defaultHelp: 'default: no limit',
    config: { key: 'max-wait', listOrder: 4 },
    option: 'maxWaitMs',
    unit: 'ms',
  },
  retries: {
    flags: '--retries <n>',
    description: 'retries after network errors, 5xx or unreadable bodies',
    value: { kind: 'integer', min: 0, max: 100 },
    defaultValue: 5,
    config: { key: 'retries', listOrder: 5 },
    unit: 'retries',
  },
  timeout: {
    flags: '--timeout <seconds>',
    description: 'per request attempt',
    value: { kind: 'seconds', min: 0.001, max: MAX_TIMER_SECONDS },
    defaultValue: 60_000,
    config: { key: 'timeout', listOrder: 6 },
    option: 'timeoutMs',
    unit: 'ms',
  },
  maxBodySize: {
    flags: '--max-body-size <bytes>',
    description: 'largest response body accepted, after decompression (e.g. 64MiB); past it exit 6',
    value: { kind: 'bytes', min: 1024, max: 512 * 1024 * 1024 },
    defaultValue: 256 * 1024 * 1024,
    defaultHelp: 'default 256MiB',
    option: 'maxBodyBytes',
    unit: 'bytes',
  },
  quiet: { flags: '-q, --quiet', description: 'no progress and no summary', value: { kind: 'switch' }, cliOnly: true },
  progress: { flags: '--no-progress', description: 'no spinner (the summary stays)', value: { kind: 'switch' }, cliOnly: true },
  verbose: {
    flags: '-v, --verbose',
    description: 'one stderr line per request: method, path, status, ms, remaining quota, X-Request-ID',
    value: { kind: 'switch' },
  },
  dryRun: {
    flags: '--dry-run',
    description:
      "run the export's checks (folders, lock, checkpoint; a database's over a read-only connection) and print the plan (request, headers with the key masked, files, items, pages, the quota and the windows it needs), writing nothing; exits as the export would; spends one request of the quota (itemsPerPage=1) per taxpayer",
    value: { kind: 'switch' },
    cliOnly: true,
  },
  budget: {
    flags: '--budget <url>',
    description:
      'a postgres:// URL: the rate budget (per key hash and endpoint) shared by every process and host that names it (also COLLECTIONS_BUDGET, config key budget)',
    value: { kind: 'text' },
    cliOnly: true,
  },
  shard: {
    flags: '--shard <i/n>',
    description:
      "with several taxpayers: export only this run's stable share, I of N (0 to N-1; auto/N reads JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it)",
    value: { kind: 'text' },
    forId: 'taxpayerId',
    cliOnly: true,
  },
  logFormat: {
    flags: '--log-format <format>',
    description: 'stderr as human lines (text) or one JSON event a line for scripts (json: start, page, wait, retry, warning, error, summary)',
    value: { kind: 'choice', choices: ['text', 'json'] },
    defaultValue: 'text',
  },
} as const satisfies Readonly<Record<string, Omit<ExportFlagSpec, 'attribute'>>>;

type FlagTable = typeof FLAG_TABLE;

export const EXPORT_FLAGS: readonly ExportFlagSpec[] = Object.entries(FLAG_TABLE).map(([attribute, row]) => ({ attribute, ...row }));

/** What commander hands over for a kind of value (see {@link FlagValueSpec}). */
type FlagValue<V extends FlagValueSpec> = V extends { kind: 'switch' }
  ? boolean
  : V extends { kind: 'text' | 'choice' }
    ? string
    : V extends { kind: 'pairs' | 'headers' }
      ? Array<[string, string]>
      : number;

/** The values of the export flags as commander hands them over (undefined = not given). */
export type ExportFlagValues = { -readonly [A in keyof FlagTable]?: FlagValue<FlagTable[A]['value']> };

export type FlagAttribute = keyof FlagTable;

type OptionOf<A extends FlagAttribute> = FlagTable[A] extends { option: infer O extends string } ? O : A;

/** The export flags' values under their option names and in their units (ms, bytes, days): the planner's vocabulary. */
export type ExportOptionValues = { -readonly [A in FlagAttribute as OptionOf<A>]?: FlagValue<FlagTable[A]['value']> };

type LibraryAttribute = { [A in FlagAttribute]: FlagTable[A] extends { cliOnly: true } ? never : A }[FlagAttribute];

/** The rows the library takes (all but the command line's own), under their option names: a new row reaches its types. */
export type LibraryOptionValues = { -readonly [A in LibraryAttribute as OptionOf<A>]?: FlagValue<FlagTable[A]['value']> };

/**
 * How a door names an option, or an option given a value, in its messages: `--total`,
 * `--since-field updatedAt` on the command line; `total`, `sinceField: 'updatedAt'` in the library.
 */
export type OptionNamer = (attribute: FlagAttribute, value?: string) => string;
export const flagNamer: OptionNamer = (attribute, value) => longFlag(exportFlag(attribute)) + (value === undefined ? '' : ` ${value}`);
export const optionNamer: OptionNamer = (attribute, value) =>
  (exportFlag(attribute).option ?? attribute) + (value === undefined ? '' : `: '${value}'`);

const OPTION_NAMES: ReadonlyMap<string, string> = new Map(EXPORT_FLAGS.map((spec) => [spec.attribute, spec.option ?? spec.attribute]));

/** Flags renamed to their options; other keys (ids, settings, `path`) are kept. */
export function optionsOfFlags<F extends ExportFlagValues>(flags: F): Omit<F, FlagAttribute> & ExportOptionValues {
  return Object.fromEntries(Object.entries(flags).map(([key, value]) => [OPTION_NAMES.get(key) ?? key, value])) as Omit<F, FlagAttribute> &
    ExportOptionValues;
}

/**
 * A number given to the library for a numeric row, in the option's unit (ms where the flag takes
 * seconds; `Infinity` where it is the row's default, i.e. no limit).
 * @throws {UsageError} naming the option, its range in that unit and the value given
 */
export function checkOptionNumber(spec: ExportFlagSpec, value: unknown): void {
  const kind = spec.value;
  const name = spec.option ?? spec.attribute;
  const shown = (): string => (typeof value === 'number' ? String(value) : JSON.stringify(value));
  if (kind.kind === 'seconds') {
    const [min, max] = [kind.min * 1000, kind.max * 1000];
    const ok = typeof value === 'number' && ((value >= min && value <= max) || (value === Infinity && spec.defaultValue === Infinity));
    if (!ok) throw new UsageError(`${name} must be a number of milliseconds from ${min} to ${max} (got ${shown()})`);
  } else if (kind.kind === 'integer' || kind.kind === 'bytes') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < kind.min || value > kind.max)
      throw wholeNumberError(name, kind, shown());
  }
}

function wholeNumberError(name: string, { min, max }: { min: number; max: number }, shown: string): UsageError {
  const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
  return new UsageError(`${name} must be a whole number ${range} (got ${shown})`);
}

type ConfigurableAttribute = { [A in FlagAttribute]: FlagTable[A] extends { config: FlagConfigSpec } ? A : never }[FlagAttribute];

type ConfigurableFlag = FlagTable[ConfigurableAttribute] & Pick<ExportFlagSpec, 'attribute' | 'option'>;

/** A stored default: one of the choices, else a number (seconds in a profile, ms in {@link ExportDefaults}). */
type StoredValue<V extends FlagValueSpec> = V extends { kind: 'choice'; choices: ReadonlyArray<infer C> } ? C : number;

/** The stored export defaults by config key, as a profile keeps them. */
export type StoredDefaults = { [A in ConfigurableAttribute as FlagTable[A]['config']['key']]?: StoredValue<FlagTable[A]['value']> };

/** Export defaults stored in the profile, by option name, seconds in ms; flags override them, they override built-in defaults. */
export type ExportDefaults = { [A in ConfigurableAttribute as OptionOf<A>]?: StoredValue<FlagTable[A]['value']> };

export type ConfigKey = 'api-key' | 'base-url' | 'header' | 'budget' | ConfigurableFlag['config']['key'];

export const CONFIGURABLE_FLAGS = EXPORT_FLAGS.filter((f) => f.config !== undefined).sort(
  (a, b) => a.config!.listOrder - b.config!.listOrder,
) as readonly ConfigurableFlag[];

/** In the order `config list` prints them. */
export const CONFIG_KEYS: readonly ConfigKey[] = ['base-url', 'api-key', ...CONFIGURABLE_FLAGS.map((f) => f.config.key), 'header', 'budget'];

export function longFlag(spec: Pick<ExportFlagSpec, 'flags'>): string {
  return /--[a-z][a-z-]*/.exec(spec.flags)![0];
}

export function exportFlag(attribute: keyof ExportFlagValues): ExportFlagSpec {
  return EXPORT_FLAGS.find((f) => f.attribute === attribute)!;
}

/** Undefined for `api-key`, `base-url`, `header` and `budget`. */
export function configurableFlag(key: string): ConfigurableFlag | undefined {
  return CONFIGURABLE_FLAGS.find((f) => f.config.key === key);
}

/** `items per request, 1 to 1000 (default 1000)`; seconds are shown as typed, not in ms. */
export function flagHelp(spec: ExportFlagSpec): string {
  let shown = spec.defaultHelp;
  if (shown === undefined && typeof spec.defaultValue === 'number') {
    shown = `default ${spec.value.kind === 'seconds' ? spec.defaultValue / 1000 : spec.defaultValue}`;
  }
  return shown === undefined ? spec.description : `${spec.description} (${shown})`;
}

/**
 * The parser commander calls with a flag's value and the previous one; undefined when the value is
 * kept as typed (`switch`, `text`, and `choice`, which commander checks).
 * @throws {UsageError} (from the parser, exit 2) naming the flag, the value and what it takes
 */
export function flagParser(spec: ExportFlagSpec): ((value: string, previous: unknown) => unknown) | undefined {
  const name = longFlag(spec);
  const value = spec.value;
  if ('min' in value) return (v) => NUMBER_PARSERS[value.kind](name, v, value.min, value.max);
  if (value.kind === 'pairs') return (v, previous) => [...((previous as Array<[string, string]> | undefined) ?? []), parseParam(v)];
  if (value.kind === 'headers')
    return (v, previous) => withHeader((previous as Array<[string, string]> | undefined) ?? [], parseHeader(v, name), name);
  return undefined;
}

/**
 * Refused rather than sent as two field lines (curl's way): fetch joins a repeated name into one
 * line (`1, 2`), which is a list to some headers and garbage to others (`Authorization`), and
 * dropping the first without a word hid the mistake (docs/get.md, "Request headers").
 * @throws {UsageError} (exit 2) naming both spellings, never a value
 */
export function withHeader(previous: ReadonlyArray<[string, string]>, header: [string, string], flag: string): Array<[string, string]> {
  const name = header[0];
  const earlier = previous.find(([n]) => n.toLowerCase() === name.toLowerCase());
  if (earlier !== undefined) {
    const spellings = earlier[0] === name ? '' : ` (as ${earlier[0]} and ${name})`;
    throw new UsageError(`${flag} ${earlier[0]} is given twice${spellings}; each header name is sent once`, {
      hint: `give it once; a header that takes a list takes its values joined with ', ' (${flag} '${earlier[0]}: a, b')`,
    });
  }
  return [...previous, header];
}

/** @throws {Error} when the table gives the flag no numeric default (a bug) */
export function builtInDefault(attribute: keyof ExportFlagValues): number {
  const value = exportFlag(attribute).defaultValue;
  if (typeof value !== 'number') throw new Error(`no numeric default for ${attribute}`);
  return value;
}

/**
 * A whole number in [min, max] written in decimal (`1000`; not `1.5`, `1e3`, `abc`, ``).
 * @param shown the value as the message quotes it
 * @throws {UsageError} naming the option, the value and the range
 */
export function parseIntegerOption(name: string, value: string, min: number, max: number, shown = value): number {
  const trimmed = value.trim();
  const n = /^[+]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw wholeNumberError(name, { min, max }, `'${shown}'`);
  return n;
}

/**
 * Decimal seconds in [min, max] (`--timeout 2.5`), returned in ms.
 * @param shown the value as the message quotes it
 * @throws {UsageError} for negative, non-numeric or non-finite values, or values outside [min, max]
 */
export function parseSecondsOption(name: string, value: string, min = 0, max = Number.POSITIVE_INFINITY, shown = value): number {
  const trimmed = value.trim();
  const n = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isFinite(n) || n < min) {
    throw new UsageError(`${name} must be a number of seconds${min > 0 ? ` of at least ${min}` : ''} (got '${shown}')`);
  }
  const why = max === MAX_TIMER_SECONDS ? ', the longest a timer can hold' : '';
  if (n > max) throw new UsageError(`${name} must be at most ${max} seconds${why} (got '${shown}')`);
  return Math.round(n * 1000);
}

/** Binary units, in bytes (IEC 80000-13; `k`/`M`/`G` read as the same). */
const BYTE_UNITS: ReadonlyMap<string, number> = new Map([
  ['', 1],
  ['b', 1],
  ['k', 1024],
  ['kib', 1024],
  ['m', 1024 ** 2],
  ['mib', 1024 ** 2],
  ['g', 1024 ** 3],
  ['gib', 1024 ** 3],
]);

/**
 * A whole number of bytes with an optional unit (`64MiB`, `64 MiB`, `1G`; case-insensitive).
 * @throws {UsageError} naming the option, the value and the range
 */
export function parseBytesOption(name: string, value: string, min: number, max: number): number {
  const m = /^(\d{1,12})\s*([a-z]*)$/i.exec(value.trim());
  const unit = m ? BYTE_UNITS.get(m[2]!.toLowerCase()) : undefined;
  const n = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${name} must be a size from ${min} bytes to ${max / 1024 ** 2}MiB, e.g. 64MiB (got '${value}')`);
  }
  return n;
}

const NUMBER_PARSERS = { integer: parseIntegerOption, seconds: parseSecondsOption, bytes: parseBytesOption };

/** Query parameters the paging options set themselves (lower case), refused in `--param`, `params` and a path's query. */
export const PAGING_PARAMS: ReadonlyMap<string, FlagAttribute> = new Map([
  ['page', 'page'],
  ['itemsperpage', 'itemsPerPage'],
]);

/**
 * One `--param key=value`; the value may be empty or hold `=`.
 * @throws {UsageError} without `=`, with an empty key, or for `page` / `itemsPerPage`
 */
export function parseParam(value: string): [string, string] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--param takes key=value (got '${value}')`);
  const key = value.slice(0, eq);
  const paging = PAGING_PARAMS.get(key.toLowerCase());
  if (paging !== undefined) throw new UsageError(`--param ${key} is set by ${flagNamer(paging)}`);
  return [key, value.slice(eq + 1)];
}
