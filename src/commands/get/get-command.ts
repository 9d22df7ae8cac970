/**
 * `collections get <path>`: every export flag but those for an id (ids are in the path); it runs a
 * lone export of the endpoint built from the path.
 */
import { Argument, Command } from 'commander';
import { EXPORT_FLAGS, type ExportFlagSpec } from '../../config/flags.js';
import { GET_COMMAND, PATH_FAMILY } from '../../endpoints.js';
import type { CommandWiring, RunCommand } from '../commander.js';
import { bindToContext, withCompletion } from '../commander.js';
import { exportOption, type ExportCommandOptions, type ExportFlags } from '../flags.js';
import { EXPORT_EXIT_CODES, exitCodesHelp, SAMPLE_ENTITY_ID } from '../help-text.js';

/** `path` as typed. */
export type GetCommandOptions = Omit<ExportCommandOptions, 'command'> & { path: string };

/**
 * @throws {UsageError} (exit 2) before any request for an invalid path or flags; {@link CollectionsError} subclasses as any export
 */
const runGet: RunCommand<GetCommandOptions> = async (ctx, { path, flags, argv }) => {
  const { checkQuietVerbose, runLoneExport } = await import('../export/export.js');
  checkQuietVerbose(flags);
  return runLoneExport(GET_COMMAND, { ...flags, path }, argv, ctx);
};

const PATH_COLUMN = 44;

function getHelp(): string {
  const family = PATH_FAMILY.map((e) => {
    const since = e.watermark === undefined ? '' : `, --since on ${e.watermark}`;
    return `  ${e.path.padEnd(PATH_COLUMN)} ${e.description} (--cursor${since})`;
  });
  // The path last and without its `/`, so it fits a 60-column help on its own line.
  const entity = `entities/${SAMPLE_ENTITY_ID}`;
  return [
    '',
    'The current path family ({entityId} is a UUID, written in the path):',
    ...family,
    '',
    'Any other collection path of the API works too (/entities, /taxpayers/<rfc>/invoices, …). The path is',
    'relative to the base URL, ids percent-encoded, a query allowed (not page or itemsPerPage: --page and',
    "--items-per-page set them); --cursor is sent on any path (the server decides). A path's quota is",
    'counted per path until its headers show the API counts the route as one.',
    '',
    'Examples:',
    `  $ collections get --cursor --out invoices.ndjson ${entity}/invoices`,
    `  $ collections get --state state.json --out events.ndjson ${entity}/events`,
    `  $ collections get /invoices/payments --cursor --out payments.ndjson --resume`,
    `  $ collections get '/entities?updatedAt[after]=2024-01-01' --format table --max-items 20`,
    `  $ collections get /entities -H 'Accept-Version: 2020-06-28' --format csv --out entities.csv`,
    exitCodesHelp(EXPORT_EXIT_CODES),
  ].join('\n');
}

export function createGetCommand(wiring: CommandWiring, run: RunCommand<GetCommandOptions> = runGet): Command {
  const cmd = bindToContext(new Command('get'), wiring.ctx)
    .description('Export any collection path of the API (e.g. /entities/{entityId}/invoices), with every export option')
    .addArgument(withCompletion(new Argument('<path>', 'collection path under the base URL, ids written in, a query allowed'), { words: [] }));
  for (const flag of EXPORT_FLAGS as readonly ExportFlagSpec[]) if (flag.forId === undefined) cmd.addOption(exportOption(flag));
  cmd.addHelpText('after', getHelp());
  cmd.action(async (path: string, _opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, { path, flags: self.optsWithGlobals<ExportFlags>(), argv: wiring.resumeArgv }));
  });
  return cmd;
}
