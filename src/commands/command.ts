/**
 * The one shape of a command, as GitHub CLI's `NewCmdX(f, runF)`: `commands/<name>-command.ts`
 * exports a function making the commander `Command` (flags, arguments, help, the checks of what
 * commander cannot check), whose action hands the parsed options to a run function
 * `run<Name>(ctx, options)` of `commands/<name>.ts`. The definition loads its run module lazily
 * (so `--help` loads no HTTP, output or config-store code); tests pass a fake run function and
 * assert the options parsed from an argv (test/unit/commands/argv-commands.test.ts).
 */
import type { Context } from '../context.js';

/**
 * What a command does once commander has parsed it: `options` are the parsed flags and arguments,
 * nothing loaded or resolved yet.
 * @returns the exit code (README, "Exit codes")
 * @throws {CollectionsError} for failures main() maps to exit codes
 */
export type RunCommand<O> = (ctx: Context, options: O) => Promise<number> | number;

/** What a command's definition needs from the program (cli/program.ts). */
export interface CommandWiring {
  /** The context the command runs in (its streams take commander's output too). */
  ctx: Context;
  /** Receives the command's exit code. */
  setCode: (code: number) => void;
  /** The command line without the API key and `--resume` (cli/argv.ts), for the "resume with" hint of exports. */
  resumeArgv: readonly string[];
}
