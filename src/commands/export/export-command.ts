/** The one generic export command, built per export command of the endpoint table. */
import { Command } from 'commander';
import { EXPORT_FLAGS, type ExportFlagSpec } from '../../config/flags.js';
import type { Endpoint, ExportCommandSpec } from '../../endpoints.js';
import { idSpec } from '../../endpoints.js';
import type { CommandWiring, RunCommand } from '../commander.js';
import { bindToContext } from '../commander.js';
import { exportOption, idOption, taxpayerListOption, type ExportCommandOptions, type ExportFlags } from '../flags.js';
import { EXPORT_EXIT_CODES, exitCodesHelp, exportExamplesHelp } from '../help-text.js';

const runExportCommand: RunCommand<ExportCommandOptions> = async (ctx, options) => (await import('./export.js')).runExportCommand(ctx, options);

const PATH_COLUMN = 56;

export function endpointsHelp(endpoints: readonly Endpoint[]): string {
  const lines = endpoints.map((e) => {
    const flags = e.ids.map((id) => idSpec(id).flag).join(' ');
    return `  ${e.path.padEnd(PATH_COLUMN)} ${flags}${e.cursor ? '  (--cursor supported)' : ''}`;
  });
  return `\nEndpoints:\n${lines.join('\n')}\n`;
}

/**
 * A flag for an id (`--parallel`) only where the command takes that id; those of cursor mode hidden
 * from the help of a command without it; none of `get`'s own (`--since-field`).
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
