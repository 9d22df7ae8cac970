/**
 * The one generic export command, built per export command of the endpoint table (rows sharing a
 * command): its id flags from the id table, every export flag from the flag table, the endpoints in
 * its help. What it does is its run function's (commands/command.ts): by default commands/export.ts
 * `runExportCommand`, loaded lazily (so `--help` loads no HTTP or output code); tests pass their own.
 */
import { Command } from 'commander';
import { EXPORT_FLAGS, type ExportFlagSpec } from '../../config/flags.js';
import type { Endpoint, ExportCommandSpec } from '../../endpoints.js';
import { idSpec } from '../../endpoints.js';
import type { CommandWiring, RunCommand } from '../commander.js';
import { bindToContext } from '../commander.js';
import { exportOption, idOption, taxpayerListOption, type ExportCommandOptions, type ExportFlags } from '../flags.js';
import { EXPORT_EXIT_CODES, exitCodesHelp, exportExamplesHelp } from '../help-text.js';

/** The run function of the export commands by default: commands/export.ts `runExportCommand`, loaded on first use. */
const runExportCommand: RunCommand<ExportCommandOptions> = async (ctx, options) => (await import('./export.js')).runExportCommand(ctx, options);

/** Width of the path column of the endpoints list in help. */
const PATH_COLUMN = 56;

/** The "Endpoints:" text after an export command's help: path, id flags, cursor support. */
export function endpointsHelp(endpoints: readonly Endpoint[]): string {
  const lines = endpoints.map((e) => {
    const flags = e.ids.map((id) => idSpec(id).flag).join(' ');
    return `  ${e.path.padEnd(PATH_COLUMN)} ${flags}${e.cursor ? '  (--cursor supported)' : ''}`;
  });
  return `\nEndpoints:\n${lines.join('\n')}\n`;
}

/**
 * Builds the commander command of one export command: `spec.name`, its description, one option per
 * id its endpoints take (`--taxpayer <rfc>`, a list, and `--invoice <id>`), then every row of the
 * flag table (those for an id, such as `--parallel`, only where the command takes that id; those
 * of cursor mode hidden from the help of a command without it; none of `get`'s own, such as
 * `--since-field`);
 * its help ends with the endpoints, three examples and the exit codes (commands/help-text.ts), and
 * lists the global flags it accepts (commander's `showGlobalOptions`, set by {@link bindToContext}).
 * Parse errors go to `ctx`'s stderr and are thrown (commander's `exitOverride`), never exit.
 * @param run called with the command name, its parsed flags (global ones included) and the command
 *   line for the resume hint; its exit code goes to `wiring.setCode`
 */
export function createExportCommand(
  spec: ExportCommandSpec,
  wiring: CommandWiring,
  run: RunCommand<ExportCommandOptions> = runExportCommand,
): Command {
  const cmd = bindToContext(new Command(spec.name), wiring.ctx).description(spec.description);
  for (const id of spec.ids) cmd.addOption(id.name === 'taxpayerId' ? taxpayerListOption(id) : idOption(id));
  const cursor = spec.endpoints.some((e) => e.cursor);
  for (const flag of EXPORT_FLAGS as readonly ExportFlagSpec[]) {
    if (flag.forCommand !== undefined) continue;
    if (flag.forId !== undefined && !spec.ids.some((id) => id.name === flag.forId)) continue;
    const option = exportOption(flag);
    cmd.addOption(flag.cursorOnly && !cursor ? option.hideHelp() : option);
  }
  cmd.addHelpText('after', `${endpointsHelp(spec.endpoints)}${exportExamplesHelp(spec)}\n${exitCodesHelp(EXPORT_EXIT_CODES)}`);
  cmd.action(async (_opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, { command: spec.name, flags: self.optsWithGlobals<ExportFlags>(), argv: wiring.resumeArgv }));
  });
  return cmd;
}
