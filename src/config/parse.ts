/**
 * Pure parsers of option values, used by the flag table (config/flags.ts) that drives both the
 * commander program and the validation of stored export defaults. Each throws a {@link UsageError}
 * with a one-line message (the commander wiring turns it into an invalid-argument error), so a bad
 * value stops the command before any request is sent or any file is touched (README, "Exit codes": 2).
 */
import { UsageError } from '../errors.js';

/**
 * Parses a whole number in [min, max] written in decimal (`1000`; not `1.5`, `1e3`, `abc`, ``).
 * @param name the option, for the message (e.g. `--items-per-page`)
 * @throws {UsageError} naming the option, the value and the range
 */
export function parseIntegerOption(name: string, value: string, min: number, max: number): number {
  const trimmed = value.trim();
  const n = /^[+]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${name} must be a whole number ${range} (got '${value}')`);
  }
  return n;
}

/**
 * Parses a non-negative number of seconds, decimals allowed (`--max-wait 90`, `--timeout 2.5`).
 * @param min the least value allowed, seconds
 * @param max the largest value allowed, seconds (the flag table gives timers `MAX_TIMER_SECONDS`,
 *   what a timer can hold)
 * @returns milliseconds
 * @throws {UsageError} for negative, non-numeric or non-finite values, or values outside [min, max]
 */
export function parseSecondsOption(name: string, value: string, min = 0, max = Number.POSITIVE_INFINITY): number {
  const trimmed = value.trim();
  const n = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isFinite(n) || n < min) {
    throw new UsageError(`${name} must be a number of seconds${min > 0 ? ` of at least ${min}` : ''} (got '${value}')`);
  }
  if (n > max) throw new UsageError(`${name} must be at most ${max} seconds, the longest a timer can hold (got '${value}')`);
  return Math.round(n * 1000);
}

/** Binary units `--max-body-size` accepts, in bytes (IEC 80000-13; `k`/`M`/`G` read as the same). */
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
 * Parses a size in bytes: a whole number with an optional binary unit (`1048576`, `64MiB`,
 * `64 MiB`, `512KiB`, `1G`; case-insensitive).
 * @returns bytes
 * @throws {UsageError} naming the option, the value and the range, for anything else
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

/** Query parameters the tool sets itself and `--param` refuses (the API documentation, pagination). */
const RESERVED_PARAMS = new Set(['page', 'itemsperpage']);

/**
 * Parses one `--param key=value` (value may be empty or contain `=`), e.g.
 * `issuedAt[after]=2024-01-01` → `['issuedAt[after]', '2024-01-01']`.
 * @throws {UsageError} without `=`, with an empty key, or for `page` / `itemsPerPage` (set by
 *   `--page` and `--items-per-page`)
 */
export function parseParam(value: string): [string, string] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--param takes key=value (got '${value}')`);
  const key = value.slice(0, eq);
  if (RESERVED_PARAMS.has(key.toLowerCase())) {
    throw new UsageError(`--param ${key} is set by ${key.toLowerCase() === 'page' ? '--page' : '--items-per-page'}`);
  }
  return [key, value.slice(eq + 1)];
}
