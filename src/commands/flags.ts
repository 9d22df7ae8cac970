/** Commander options built from the flag table and the id table: nothing here repeats a flag by hand. */
import { Option } from 'commander';
import { flagHelp, flagParser } from '../config/flags.js';
import type { ExportFlagSpec, ExportFlagValues } from '../config/flags.js';
import type { SettingsFlags } from '../config/settings.js';
import { idOptionFlags, type IdFlagValues, type IdSpec } from '../endpoints.js';
import { UsageError } from '../errors.js';
import { commanderParser, withCompletion } from './commander.js';

/** As commander hands them over (undefined = not given). */
export interface ExportFlags extends SettingsFlags, IdFlagValues, ExportFlagValues {
  /** `get <path>`'s; undefined on the named commands. */
  path?: string;
}

export interface ExportCommandOptions {
  /** e.g. `line-items`: its flags pick the endpoint. */
  command: string;
  /** Global ones included. */
  flags: ExportFlags;
  /** Without the API key and `--resume`, repeated by the "resume with" hint. */
  argv: readonly string[];
}

/** `path` as typed. */
export type GetCommandOptions = Omit<ExportCommandOptions, 'command'> & { path: string };

export function exportOption(spec: ExportFlagSpec): Option {
  const option = new Option(spec.flags, flagHelp(spec));
  const value = spec.value;
  if (value.kind === 'choice') option.choices(value.choices);
  const parse = flagParser(spec);
  // A header's parser throws its own one-line UsageError: commander's message would quote the value, which may be a credential.
  if (parse) option.argParser(value.kind === 'headers' ? parse : commanderParser(parse));
  return withCompletion(option, {
    ...(value.kind === 'text' && value.files ? { files: true } : {}),
    ...(value.kind === 'pairs' ? { repeatable: true } : {}),
  });
}

/**
 * A second value is refused rather than silently replacing the first (commander's default): a run
 * exports one taxpayer's or one invoice's collection.
 * @throws {UsageError} (exit 2; when commander parses the flag) for a second value, naming both
 */
export function idOption(spec: IdSpec, help: string = spec.help): Option {
  return new Option(idOptionFlags(spec), help).argParser((value: string, previous: string | undefined) => {
    if (previous === undefined) return value;
    const shown = (v: string): string => (v.length > 80 ? `${v.slice(0, 80)}…` : v);
    throw new UsageError(`${spec.flag} given twice ('${shown(previous)}' and '${shown(value)}'): one ${spec.flag} per run`, {
      hint: 'run the command once for each',
    });
  });
}

/** Repeated values are joined with commas, in order, and split by `taxpayerList` (ids hold no comma). */
export function taxpayerListOption(spec: IdSpec): Option {
  const help = `${spec.help}; a comma-separated list, or repeat the flag, for several taxpayers (then --out is a template)`;
  return new Option(idOptionFlags(spec), help).argParser((value: string, previous: string | undefined) =>
    previous === undefined ? value : `${previous},${value}`,
  );
}
