/**
 * The flags of the commands as commander hands them over, and the commander options built from the
 * flag table (config/flags.ts) and the id table (endpoints.ts): nothing here repeats a flag by hand.
 */
import { Option } from 'commander';
import { flagHelp, flagParser } from '../config/flags.js';
import type { ExportFlagSpec, ExportFlagValues } from '../config/flags.js';
import type { SettingsFlags } from '../config/settings.js';
import { idOptionFlags, type IdFlagValues, type IdSpec } from '../endpoints.js';
import { UsageError } from '../errors.js';
import { commanderParser, withCompletion } from './commander.js';

/** Global flags of every command (`--api-key <key>`, `--base-url <url>`, `--profile <name>`; README, "Set-up"). */
export type GlobalFlags = SettingsFlags;

/** Flags of the export commands, as commander hands them over (undefined = not given). */
export interface ExportFlags extends GlobalFlags, IdFlagValues, ExportFlagValues {
  /** The collection path of `get <path>` (endpoints.ts `parseCollectionPath` checks it); undefined on the named commands. */
  path?: string;
}

/** What an export command's definition (commands/export-command.ts) hands its run function (commands/export.ts `runExportCommand`). */
export interface ExportCommandOptions {
  /** The export command, e.g. `line-items` (its flags pick the endpoint). */
  command: string;
  /** Its flags with the global ones (commander's `optsWithGlobals`). */
  flags: ExportFlags;
  /** The command line without the API key and `--resume`, repeated by the "resume with" hint. */
  argv: readonly string[];
}

/**
 * The commander option of one row of the flag table: its flags, its help line (with the default),
 * its parser (errors reported as invalid arguments, exit 2) or its choices, and the completion
 * hints (`--out` completes file names, `--param` may be repeated).
 */
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
 * The commander option of an id, e.g. `--taxpayer <rfc>`. It takes one value: a second one
 * (`--taxpayer A --taxpayer B`) is refused rather than silently replacing the first (commander's
 * default), since a run exports one taxpayer's or one invoice's collection.
 * @param help its help line: the id's own ({@link IdSpec.help}) on export commands, `probeHelp` on `ratelimit`
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

/**
 * The `--taxpayer <rfc>` option of the export commands: a comma-separated list, and the flag may be
 * repeated (`--taxpayer A,B --taxpayer C`); the values are joined with commas, in order, and split by
 * commands/batch-plan.ts `taxpayerList` (ids hold no comma: endpoints.ts `encodeId`). Only the
 * taxpayer flag is a list; other ids stay single ({@link idOption}).
 */
export function taxpayerListOption(spec: IdSpec): Option {
  const help = `${spec.help}; a comma-separated list, or repeat the flag, for several taxpayers (then --out is a template)`;
  return new Option(idOptionFlags(spec), help).argParser((value: string, previous: string | undefined) =>
    previous === undefined ? value : `${previous},${value}`,
  );
}
