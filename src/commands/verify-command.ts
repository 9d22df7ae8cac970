/**
 * The definition of `collections verify` (commands/command.ts): one or more manifest paths; what it
 * does is commands/verify.ts `runVerify`, loaded lazily.
 */
import { Argument, Command, Option } from 'commander';
import type { VerifyCommandOptions } from './verify.js';
import type { CommandWiring, RunCommand } from './command.js';
import { VERIFY_HELP } from './command-specs.js';
import { bindToContext } from './commander.js';

/** commands/verify.ts `runVerify`, loaded on first use. */
const runVerify: RunCommand<VerifyCommandOptions> = async (ctx, options) => (await import('./verify.js')).runVerify(ctx, options);

/** Makes the `verify` command: its action hands the manifest paths to `run`, and its exit code to `wiring.setCode`. */
export function createVerifyCommand(wiring: CommandWiring, run: RunCommand<VerifyCommandOptions> = runVerify): Command {
  return bindToContext(new Command('verify'), wiring.ctx)
    .description('Check exported files against their manifests (size, SHA-256, item count), or a database table against its run log; sends nothing')
    .addArgument(new Argument('<manifest...>', 'manifest files (F.manifest.json), or a database (postgres://…, F.duckdb)'))
    .addOption(new Option('--table <name>', 'with a database: the table to re-count (default every table of its run log)'))
    .addHelpText('after', VERIFY_HELP)
    .action(async (manifests: string[], options: { table?: string }) => {
      wiring.setCode(await run(wiring.ctx, { manifests, ...(options.table === undefined ? {} : { table: options.table }) }));
    });
}
