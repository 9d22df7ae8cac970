/**
 * The export commands' definitions: one per export command of the endpoint table, and `get <path>`,
 * each with the export flags of the flag table and its help.
 */
import { Argument, Command } from 'commander';
import { EXPORT_FLAGS } from '../../config/flags.js';
import { GET_COMMAND, idSpec, PATH_FAMILY, type Endpoint, type ExportCommandSpec } from '../../endpoints.js';
import { bindToContext, withCompletion, type CommandWiring, type RunCommand } from '../commander.js';
import { exportOption, idOption, taxpayerListOption } from '../flags.js';
import type { ExportCommandOptions, ExportFlags, GetCommandOptions } from '../flags.js';
import { EXPORT_EXIT_CODES, exitCodesHelp, SAMPLE_ENTITY_ID, SAMPLE_IDS } from '../help-text.js';

const runExportLazily: RunCommand<ExportCommandOptions> = async (ctx, options) => {
  ctx.preloadExport?.();
  return (await import('./export.js')).runExportCommand(ctx, options);
};

const runGetLazily: RunCommand<GetCommandOptions> = async (ctx, options) => {
  ctx.preloadExport?.();
  return (await import('./export.js')).runGetCommand(ctx, options);
};

const PATH_COLUMN = 56;

export function endpointsHelp(endpoints: readonly Endpoint[]): string {
  const lines = endpoints.map((e) => {
    const flags = e.ids.map((id) => idSpec(id).flag).join(' ');
    return `  ${e.path.padEnd(PATH_COLUMN)} ${flags}${e.cursor ? '  (--cursor supported)' : ''}`;
  });
  return `\nEndpoints:\n${lines.join('\n')}\n`;
}

/** Example i uses the ids of endpoint i (modulo their count), so `line-items` shows each set of ids. */
function examplesHelp(spec: ExportCommandSpec): string {
  const endpoint = (i: number) => spec.endpoints[i % spec.endpoints.length]!;
  const ids = (i: number) =>
    endpoint(i)
      .ids.map((id) => ` ${idSpec(id).flag} ${SAMPLE_IDS[id]}`)
      .join('');
  const run = (i: number, rest: string) => `  $ collections ${spec.name}${ids(i)} ${rest}`;
  const second = endpoint(1).cursor
    ? run(1, `--cursor --out ${spec.name}.ndjson --resume`)
    : run(1, `--format csv --fields ${endpoint(1).tableFields.slice(0, 3).join(',')} --out ${spec.name}.csv`);
  return ['', 'Examples:', run(0, `--out ${spec.name}.ndjson`), second, run(2, '--format table --max-items 20')].join('\n');
}

/**
 * The one generic export command, built per export command of the endpoint table. A flag for an id
 * (`--parallel`) only where the command takes that id; those of cursor mode hidden from the help of
 * a command without it; none of `get`'s own (`--since-field`).
 */
export function createExportCommand(
  spec: ExportCommandSpec,
  wiring: CommandWiring,
  run: RunCommand<ExportCommandOptions> = runExportLazily,
): Command {
  const cmd = bindToContext(new Command(spec.name), wiring.ctx).description(spec.description);
  for (const id of spec.ids) cmd.addOption(id.name === 'taxpayerId' ? taxpayerListOption(id) : idOption(id));
  const cursor = spec.endpoints.some((e) => e.cursor);
  for (const flag of EXPORT_FLAGS) {
    if (flag.forCommand !== undefined) continue;
    if (flag.forId !== undefined && !spec.ids.some((id) => id.name === flag.forId)) continue;
    const option = exportOption(flag);
    cmd.addOption(flag.cursorOnly && !cursor ? option.hideHelp() : option);
  }
  cmd.addHelpText('after', `${endpointsHelp(spec.endpoints)}${examplesHelp(spec)}\n${exitCodesHelp(EXPORT_EXIT_CODES)}`);
  cmd.action(async (_opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, { command: spec.name, flags: self.optsWithGlobals<ExportFlags>(), argv: wiring.resumeArgv }));
  });
  return cmd;
}

const GET_PATH_COLUMN = 44;

function getHelp(): string {
  const family = PATH_FAMILY.map((e) => {
    const since = e.watermark === undefined ? '' : `, --since on ${e.watermark}`;
    return `  ${e.path.padEnd(GET_PATH_COLUMN)} ${e.description} (--cursor${since})`;
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

/** `get <path>`: every export flag but those for an id (ids are in the path). */
export function createGetCommand(wiring: CommandWiring, run: RunCommand<GetCommandOptions> = runGetLazily): Command {
  const cmd = bindToContext(new Command(GET_COMMAND), wiring.ctx)
    .description('Export any collection path of the API (e.g. /entities/{entityId}/invoices), with every export option')
    .addArgument(withCompletion(new Argument('<path>', 'collection path under the base URL, ids written in, a query allowed'), { words: [] }));
  for (const flag of EXPORT_FLAGS) if (flag.forId === undefined) cmd.addOption(exportOption(flag));
  cmd.addHelpText('after', getHelp());
  cmd.action(async (path: string, _opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, { path, flags: self.optsWithGlobals<ExportFlags>(), argv: wiring.resumeArgv }));
  });
  return cmd;
}
