/**
 * The parts of `--help` that teach: the "Exit codes:" list of each command and the examples of the
 * export commands, generated from the endpoint table so that a new export command gets them too.
 * Pure text (no command code), so building the program for `--help` stays cheap.
 */
import type { ExportCommandSpec, IdName } from '../endpoints.js';
import { idSpec } from '../endpoints.js';
import { ExitCode } from '../errors.js';

/** One line of an "Exit codes:" list: the code (or codes, e.g. `130/143`) and what it means. */
export type ExitCodeRow = readonly [code: string, meaning: string];

const INTERRUPTED = `${ExitCode.Sigint}/${ExitCode.Sigterm}`;

/** The exit codes of an export command (README, "Exit codes"). */
export const EXPORT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'complete'],
  [String(ExitCode.Usage), 'usage or configuration error, or the API rejected the parameters (400)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.NotFound), 'not found (404): unknown taxpayer or invoice'],
  [String(ExitCode.RateLimited), 'a rate-limit wait longer than --max-wait; checkpoint kept'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries, unsafe response)'],
  [String(ExitCode.Output), 'the output could not be written'],
  [INTERRUPTED, 'interrupted by SIGINT / SIGTERM; checkpoint kept'],
];

/** The exit code of `verify` when an output does not match its manifest. */
const VERIFY_FAILED: ExitCodeRow = [String(ExitCode.Verify), 'verify: an output is missing or its size, SHA-256 or item count differs'];

/** The exit codes of the program as a whole: those of an export, 1 for a bug, and 8 of `verify`. */
export const PROGRAM_EXIT_CODES: readonly ExitCodeRow[] = [
  ...EXPORT_EXIT_CODES.slice(0, 1),
  [String(ExitCode.Internal), 'internal error (a bug: please report it)'],
  ...EXPORT_EXIT_CODES.slice(1, -1),
  VERIFY_FAILED,
  ...EXPORT_EXIT_CODES.slice(-1),
];

/** The exit codes of `verify`. */
export const VERIFY_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'every output matches its manifest'],
  [String(ExitCode.Usage), 'no manifest given'],
  VERIFY_FAILED,
];

/** The exit codes of `ratelimit`: a 429 or 404 is shown in its row, not an exit code. */
export const RATELIMIT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'the quotas were shown (a 429 or 404 shows in its row)'],
  [String(ExitCode.Usage), 'usage or configuration error (missing key or base URL, empty id)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries)'],
];

/** The exit codes of `config`. */
export const CONFIG_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'done'],
  [String(ExitCode.Usage), 'unknown action or key, invalid value or profile name, unreadable settings file'],
  [String(ExitCode.Output), 'the settings file could not be written'],
  [String(ExitCode.Sigint), 'the key prompt was cancelled with Ctrl-C'],
];

/** The exit codes of `completion`. */
export const COMPLETION_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'the script was printed'],
  [String(ExitCode.Usage), 'unknown shell'],
];

/** The exit codes of `sandbox`. */
export const SANDBOX_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'stopped with Ctrl-C or SIGTERM'],
  [String(ExitCode.Usage), 'invalid option or fault spec, or the port cannot be listened on'],
];

/**
 * The "Exit codes:" block of a help text (for commander's `addHelpText('after', …)`): a leading
 * blank line, then one indented `code  meaning` line per row, the meanings aligned.
 */
export function exitCodesHelp(rows: readonly ExitCodeRow[]): string {
  const width = Math.max(...rows.map(([code]) => code.length));
  return `\nExit codes:\n${rows.map(([code, meaning]) => `  ${code.padEnd(width)}  ${meaning}`).join('\n')}`;
}

/**
 * A value of each id that reads like a real one in examples: an RFC of 13 characters, a UUIDv7.
 * Both paste into a shell as they are, and the sandbox serves both (its first taxpayer and that
 * taxpayer's newest invoice), so every example runs against it as written.
 */
export const SAMPLE_IDS: Readonly<Record<IdName, string>> = {
  taxpayerId: 'PEIC211118IS0',
  invoiceId: '018e96f4-a418-7d2e-9f3a-4b5c6d7e8f90',
};

/**
 * An entity id for `get` examples: the first taxpayer's entity in the sandbox (its fixed id, so the
 * examples run against it as written).
 */
export const SAMPLE_ENTITY_ID = '01869a77-fc00-7a1e-8c3b-5d6e7f8091a2';

/**
 * The "Examples:" block of an export command's help: three commands that paste and run as they
 * are (given a key and base URL). Example i uses the ids of endpoint i (modulo their count), so a
 * command with several endpoints (`line-items`) shows each set of ids: a plain export to a file,
 * an export to resume (cursor mode where the endpoint supports it, else CSV with chosen columns),
 * and a short table on the terminal.
 */
export function exportExamplesHelp(spec: ExportCommandSpec): string {
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
