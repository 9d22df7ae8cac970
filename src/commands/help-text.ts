/** The exit codes and examples of `--help`, from the endpoint table; pure text, so `--help` stays cheap. */
import type { ExportCommandSpec, IdName } from '../endpoints.js';
import { idSpec } from '../endpoints.js';
import { ExitCode } from '../errors.js';

/** The code may be several, e.g. `130/143`. */
export type ExitCodeRow = readonly [code: string, meaning: string];

const INTERRUPTED = `${ExitCode.Sigint}/${ExitCode.Sigterm}`;

/** README, "Exit codes". */
export const EXPORT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'complete'],
  [String(ExitCode.Usage), 'usage or configuration error, or the API rejected the parameters (400)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.NotFound), 'not found (404): unknown taxpayer or invoice'],
  [String(ExitCode.RateLimited), 'a rate-limit wait longer than --max-wait; checkpoint kept'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries, unsafe response)'],
  [String(ExitCode.Output), 'the output could not be written'],
  [String(ExitCode.Verify), 'a database kept items it cannot hold as written apart, in collections_rejects; complete otherwise'],
  [INTERRUPTED, 'interrupted by SIGINT / SIGTERM; checkpoint kept'],
];

const VERIFY_FAILED: ExitCodeRow = [String(ExitCode.Verify), 'verify: an output is missing or its size, SHA-256 or item count differs'];

export const PROGRAM_EXIT_CODES: readonly ExitCodeRow[] = [
  ...EXPORT_EXIT_CODES.slice(0, 1),
  [String(ExitCode.Internal), 'internal error (a bug: please report it)'],
  ...EXPORT_EXIT_CODES.slice(1, -2),
  [String(ExitCode.Verify), `${VERIFY_FAILED[1]}; an export into a database kept items apart (collections_rejects)`],
  ...EXPORT_EXIT_CODES.slice(-1),
];

export const VERIFY_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'every output matches its manifest'],
  [String(ExitCode.Usage), 'no manifest given'],
  VERIFY_FAILED,
];

export const RATELIMIT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'the quotas were shown (a 429 or 404 shows in its row)'],
  [String(ExitCode.Usage), 'usage or configuration error (missing key or base URL, empty id)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries)'],
];

export const CONFIG_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'done'],
  [String(ExitCode.Usage), 'unknown action or key, invalid value or profile name, unreadable settings file'],
  [String(ExitCode.Output), 'the settings file could not be written'],
  [String(ExitCode.Sigint), 'the key prompt was cancelled with Ctrl-C'],
];

export const COMPLETION_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'the script was printed'],
  [String(ExitCode.Usage), 'unknown shell'],
];

export const SANDBOX_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'stopped with Ctrl-C or SIGTERM'],
  [String(ExitCode.Usage), 'invalid option or fault spec, or the port cannot be listened on'],
];

export function exitCodesHelp(rows: readonly ExitCodeRow[]): string {
  const width = Math.max(...rows.map(([code]) => code.length));
  return `\nExit codes:\n${rows.map(([code, meaning]) => `  ${code.padEnd(width)}  ${meaning}`).join('\n')}`;
}

/** The sandbox serves both (its first taxpayer and that taxpayer's newest invoice), so every example runs as written. */
export const SAMPLE_IDS: Readonly<Record<IdName, string>> = {
  taxpayerId: 'PEIC211118IS0',
  invoiceId: '018e96f4-a418-7d2e-9f3a-4b5c6d7e8f90',
};

/** The first taxpayer's entity in the sandbox. */
export const SAMPLE_ENTITY_ID = '01869a77-fc00-7a1e-8c3b-5d6e7f8091a2';

/** Example i uses the ids of endpoint i (modulo their count), so `line-items` shows each set of ids. */
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
