/**
 * What a row of the flag table (config/flags.ts) gives: its help line, the parser of its value and
 * its built-in default. Pure; the parsers are those of config/parse.ts.
 */
import { exportFlag, longFlag, type ExportFlagSpec, type ExportFlagValues } from './flags.js';
import { parseHeader } from '../http/request-headers.js';
import { parseBytesOption, parseIntegerOption, parseParam, parseSecondsOption } from './parse.js';

/**
 * The help line of a flag: its description and, when it has one, its default, e.g.
 * `items per request, 1 to 1000 (default 1000)`, `per request attempt (default 60)` (seconds are
 * shown as typed, not in milliseconds).
 */
export function flagHelp(spec: ExportFlagSpec): string {
  let shown = spec.defaultHelp;
  if (shown === undefined && typeof spec.defaultValue === 'number') {
    shown = `default ${spec.value.kind === 'seconds' ? spec.defaultValue / 1000 : spec.defaultValue}`;
  }
  return shown === undefined ? spec.description : `${spec.description} (${shown})`;
}

/**
 * The parser of a flag's value (commander calls it with the value and the previous one), or
 * undefined when the value is kept as typed (`switch`, `text`, `choice`: commander checks choices).
 * Integers, seconds and bytes are range-checked; seconds come back in milliseconds, bytes as a
 * number of bytes; `pairs` and `headers` collect.
 * @throws {UsageError} (from the returned parser) naming the flag, the value and what it takes
 */
export function flagParser(spec: ExportFlagSpec): ((value: string, previous: unknown) => unknown) | undefined {
  const name = longFlag(spec);
  const value = spec.value;
  switch (value.kind) {
    case 'integer':
      return (v) => parseIntegerOption(name, v, value.min, value.max);
    case 'seconds':
      return (v) => parseSecondsOption(name, v, value.min, value.max);
    case 'bytes':
      return (v) => parseBytesOption(name, v, value.min, value.max);
    case 'pairs':
      return (v, previous) => [...((previous as Array<[string, string]> | undefined) ?? []), parseParam(v)];
    case 'headers':
      return (v, previous) => [...((previous as Array<[string, string]> | undefined) ?? []), parseHeader(v, name)];
    default:
      return undefined;
  }
}

/**
 * The built-in default of a flag (see {@link ExportFlagSpec.defaultValue}).
 * @throws {Error} when the table gives the flag no numeric default (a bug)
 */
export function builtInDefault(attribute: keyof ExportFlagValues): number {
  const value = exportFlag(attribute).defaultValue;
  if (typeof value !== 'number') throw new Error(`no numeric default for ${attribute}`);
  return value;
}
