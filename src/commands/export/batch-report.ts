/**
 * What a run with many taxpayers tells: a line per taxpayer as it ends, the table at the end, the
 * run's exit code; with `--log-format json`, an event per taxpayer and one for the run instead.
 */
import { isAbsolute, relative } from 'node:path';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { formatEvent } from '../../io/events.js';
import { formatCount } from '../../io/format.js';
import { inertText } from '../../io/terminal-text.js';
import { KEY_HINT } from '../error-text.js';

export type TaxpayerStatus = 'ok' | 'done earlier' | 'failed' | 'interrupted' | 'not started';

export interface TaxpayerOutcome {
  taxpayer: string;
  /** Absolute for a file; for a database its URL without the password, or its file as typed. */
  target: string;
  status: TaxpayerStatus;
  /** As a run of its own would have had. */
  code: number;
  /** Of the whole output (`ok`), or kept in the checkpoint of an unfinished one. */
  items?: number;
  /** Key scrubbed. */
  reason?: string;
}

/**
 * Most severe first (docs/many-taxpayers.md): an interruption (the run did not finish), then what
 * needs a person (a bug, usage or a checkpoint left, the key, the disk), then what a `--resume` may
 * cure (6, 5), then a taxpayer the API does not know (4).
 */
const SEVERITY: readonly number[] = [
  ExitCode.Sigterm,
  ExitCode.Sigint,
  ExitCode.Internal,
  ExitCode.Usage,
  ExitCode.Auth,
  ExitCode.Output,
  ExitCode.Unavailable,
  ExitCode.RateLimited,
  ExitCode.NotFound,
  ExitCode.Ok,
];

/** A code not listed ranks with 1; 0 for none. */
export function mostSevere(codes: readonly number[]): number {
  const rank = (code: number): number => (SEVERITY.includes(code) ? SEVERITY.indexOf(code) : SEVERITY.indexOf(ExitCode.Internal));
  return codes.reduce<number>((worst, code) => (rank(code) < rank(worst) ? code : worst), ExitCode.Ok);
}

/** Relative to the working folder when under it; anything but an absolute path (a database URL, `x.duckdb` as typed) as it is. */
export function shownPath(path: string, cwd: string): string {
  // relative() would read `postgres://etl@h/db` as a path and squeeze its `//` into one slash.
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

function outcomeText(o: TaxpayerOutcome): string {
  if (o.status === 'failed') return `failed (exit ${o.code}): ${o.reason ?? 'unknown error'}`;
  return o.status;
}

export interface BatchReporter {
  ended(outcome: TaxpayerOutcome): void;
  /** `resumeCommand` is the hint when something is unfinished. */
  finished(outcomes: readonly TaxpayerOutcome[], code: number, resumeCommand: string): void;
}

export interface BatchReporterOptions {
  total: number;
  /** Only failures (as lines), no table. */
  quiet: boolean;
  json: boolean;
}

/** JSON events are stamped by `ctx.clock`. */
export function createBatchReporter(ctx: Pick<Context, 'io' | 'clock' | 'cwd'>, options: BatchReporterOptions): BatchReporter {
  const { stderr } = ctx.io;
  let ended = 0;
  const event = (fields: { event: string } & Record<string, unknown>): void => {
    stderr.write(formatEvent(fields, ctx.clock.now()));
  };
  return {
    ended(o) {
      ended++;
      const file = shownPath(o.target, ctx.cwd);
      if (options.json) {
        const { taxpayer, status, code } = o;
        event({ event: 'taxpayer', taxpayer, outcome: status, items: o.items ?? null, file, exitCode: code, message: o.reason ?? null });
        return;
      }
      if (options.quiet && o.status !== 'failed') return;
      const what = o.status === 'ok' ? `ok, ${formatCount(o.items ?? 0)} items → ${file}` : outcomeText(o);
      stderr.write(`collections: [${ended}/${options.total}] ${inertText(`${o.taxpayer}: ${what}`)}\n`);
    },
    finished(outcomes, code, resumeCommand) {
      const count = (s: TaxpayerStatus): number => outcomes.filter((o) => o.status === s).length;
      // A complete export that kept items apart (exit 8) has nothing to continue.
      const unfinished = outcomes.some(
        (o) => o.status !== 'ok' && o.status !== 'done earlier' && o.code !== ExitCode.NotFound && o.code !== ExitCode.Verify,
      );
      if (options.json) {
        const [ok, doneEarlier, failed, interrupted, notStarted] = (['ok', 'done earlier', 'failed', 'interrupted', 'not started'] as const).map(
          count,
        );
        event({ event: 'run', taxpayers: outcomes.length, ok, doneEarlier, failed, interrupted, notStarted, exitCode: code });
        return;
      }
      if (!options.quiet) stderr.write(summaryTable(outcomes, ctx.cwd));
      // A rejected key stops the run: not resumable, since a --resume with that key is rejected too.
      if (outcomes.some((o) => o.code === ExitCode.Auth)) {
        stderr.write(`collections: ${inertText(`the API key was rejected; ${KEY_HINT}, then run the command again: ${resumeCommand}`)}\n`);
      } else if (unfinished) stderr.write(`collections: ${inertText(`continue the unfinished ones with: ${resumeCommand} --resume`)}\n`);
    },
  };
}

/** Counts are written as a single export writes them (`5,000`). */
function summaryTable(outcomes: readonly TaxpayerOutcome[], cwd: string): string {
  const rows = outcomes.map((o) => [o.taxpayer, o.items === undefined ? '-' : formatCount(o.items), shownPath(o.target, cwd), outcomeText(o)]);
  const header = ['TAXPAYER', 'ITEMS', 'FILE', 'OUTCOME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const ok = outcomes.filter((o) => o.status === 'ok' || o.status === 'done earlier').length;
  const not = outcomes.length - ok;
  const title = `collections: ${formatCount(outcomes.length)} taxpayers, ${formatCount(ok)} complete${not > 0 ? `, ${formatCount(not)} not` : ''}`;
  return `${inertText(title)}\n${[header, ...rows].map((r) => inertText(line(r))).join('\n')}\n`;
}
