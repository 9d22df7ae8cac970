import { Argument, Command, Option } from 'commander';
import { ExitCode } from '../../errors.js';
import { bindToContext, type CommandWiring, type RunCommand } from '../commander.js';
import { exitCodesHelp, VERIFY_FAILED, type ExitCodeRow } from '../help-text.js';
import type { VerifyCommandOptions } from './verify.js';

const runVerifyLazily: RunCommand<VerifyCommandOptions> = async (ctx, options) => (await import('./verify.js')).runVerify(ctx, options);

const VERIFY_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'every output matches its manifest'],
  [String(ExitCode.Usage), 'no manifest given'],
  VERIFY_FAILED,
];

const VERIFY_HELP = `
Each completed file export writes F.manifest.json beside F (or --manifest FILE). verify re-reads
every output a manifest names (relative to the manifest's folder) and checks its size, its SHA-256
and its items: lines for ndjson, the array's length for json, records after the header for csv
(quoted line breaks included), on the decompressed bytes of a gzip output (.gz, --compress gzip).
Each whole output prints one ok line on stdout; each mismatch (missing, size, SHA-256, items)
prints one line on stderr.

Examples:
  $ collections verify invoices.ndjson.manifest.json
  $ collections verify exports/*.manifest.json && echo "all whole"
${exitCodesHelp(VERIFY_EXIT_CODES)}`;

export function createVerifyCommand(wiring: CommandWiring, run: RunCommand<VerifyCommandOptions> = runVerifyLazily): Command {
  return bindToContext(new Command('verify'), wiring.ctx)
    .description('Check exported files against their manifests (size, SHA-256, item count), or a database table against its run log; sends nothing')
    .addArgument(new Argument('<manifest...>', 'manifest files (F.manifest.json), or a database (postgres://…, F.duckdb)'))
    .addOption(new Option('--table <name>', 'with a database: the table to re-count (default every table of its run log)'))
    .addHelpText('after', VERIFY_HELP)
    .action(async (manifests: string[], options: { table?: string }) => {
      wiring.setCode(await run(wiring.ctx, { manifests, ...options }));
    });
}
