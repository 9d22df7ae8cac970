/**
 * `collections sandbox` (docs/sandbox.md): the bundled API on loopback until Ctrl-C or SIGTERM. The
 * key printed is the sandbox's own, never a key of the user.
 */
import type { Context } from '../../context.js';
import { ExitCode, UsageError, hint, option, type Hint } from '../../errors.js';
import { createSandbox, DEFAULT_SANDBOX_KEY, DEFAULT_SIZES, type Sandbox } from '../../sandbox/app.js';
import type { LimitScope } from '../../sandbox/types.js';
import { parseCursorEnd } from '../../sandbox/cursor.js';
import { parseFaultSpec, type FaultConfig } from '../../sandbox/faults.js';
import { startSandboxServer, type RunningServer } from '../../sandbox/server.js';
import type { Clock } from '../../time/clock.js';
import { parseWireEncoding } from '../../sandbox/wire.js';
import { SANDBOX_OPTIONS, type SandboxCommandOptions, type SandboxOptionHelp } from './sandbox-command.js';

/** For POSIX shells: an RFC may hold `&`. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9._\-/:]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** By Node's `net` error `code`, from `listen(2)` and `getaddrinfo(3)`. */
const CHOOSE_PORT = hint`choose another ${option('port')} (0 = any free port)`;
const CHECK_HOST = hint`check ${option('host')} (default 127.0.0.1)`;

const LISTEN_FAILURES: Readonly<Record<string, { reason: string; hint: Hint }>> = {
  EADDRINUSE: { reason: 'address in use', hint: CHOOSE_PORT },
  EACCES: { reason: 'permission denied (ports below 1024 need privileges)', hint: CHOOSE_PORT },
  EPERM: { reason: 'operation not permitted', hint: CHOOSE_PORT },
  EADDRNOTAVAIL: { reason: 'no such address on this machine', hint: CHECK_HOST },
  ENOTFOUND: { reason: 'unknown host', hint: CHECK_HOST },
  EAI_AGAIN: { reason: 'the host name could not be resolved', hint: CHECK_HOST },
  EAFNOSUPPORT: { reason: 'address family not supported', hint: CHECK_HOST },
};

/** @returns a {@link UsageError} (exit 2), or `err` itself when it has no `code` (a bug, reported as such) */
export function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return err;
  const known = LISTEN_FAILURES[code];
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const reason = known ? known.reason : `${(err as Error).message} (${code})`;
  return new UsageError(`cannot listen on ${where}: ${reason}`, {
    hint: known?.hint ?? hint`check ${option('host')} and ${option('port')}`,
    cause: err,
  });
}

/** @throws {UsageError} (exit 2) when a given value is out of its row's range or none of its words */
function checkValue(row: SandboxOptionHelp, value: unknown): void {
  if (value === undefined) return;
  const name = row.flags.split(' ')[0]!;
  const { min, max = Number.MAX_SAFE_INTEGER, words } = row;
  if (min !== undefined && (!Number.isInteger(value) || (value as number) < min || (value as number) > max)) {
    throw new UsageError(`${name} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`);
  }
  if (words && !words.includes(value as string)) throw new UsageError(`${name} must be ${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`);
}

/** @throws {UsageError} (exit 2) for the first value out of range or unknown */
function checkOptions(options: SandboxCommandOptions): void {
  for (const [name, row] of Object.entries<SandboxOptionHelp>(SANDBOX_OPTIONS)) {
    if (row.type === 'integer') checkValue(row, options[name as keyof SandboxCommandOptions]);
  }
  for (const name of ['cursorPrevious', 'cursorEnd', 'wire', 'errors', 'limitScope'] as const) checkValue(SANDBOX_OPTIONS[name], options[name]);
  if (options.key !== undefined && options.key.trim() === '') throw new UsageError('--key must not be empty');
  if (options.cursorOnly && options.ignorePaginationStyle) {
    throw new UsageError('--cursor-only and --ignore-pagination-style exclude each other: one pages by cursor only, the other by offset only');
  }
  for (const name of ['singlePage', 'dates', 'batchPayment'] as const) checkValue(SANDBOX_OPTIONS[name], options[name]);
}

export interface ServedSandbox {
  sandbox: Sandbox;
  server: RunningServer;
  faults: FaultConfig | undefined;
  host: string;
  limit: number;
  windowSeconds: number;
  limitScope: LimitScope;
}

/**
 * Shared by `runSandbox` and the library's `startSandbox`.
 * @param clock the sandbox's windows, latency and churn
 * @throws {UsageError} (exit 2) for out-of-range options or a bad fault spec (before anything
 *   listens), and when it cannot listen: the port is taken or needs privileges, the host is unknown
 *   or not of this machine ({@link listenError})
 */
export async function serveSandbox(options: SandboxCommandOptions, clock: Clock): Promise<ServedSandbox> {
  checkOptions(options);
  const faults: FaultConfig | undefined = options.faults === undefined ? undefined : parseFaultSpec(options.faults);

  const host = options.host ?? '127.0.0.1';
  const limit = options.limit ?? 60;
  const windowSeconds = options.window ?? 60;
  const limitScope = options.limitScope === 'path' ? 'path' : 'route';
  const sandbox = createSandbox({
    apiKey: options.key ?? DEFAULT_SANDBOX_KEY,
    limit,
    windowSeconds,
    limitScope,
    latencyMs: options.latency ?? 0,
    churn: options.churn ?? 0,
    ...(options.deletions === true ? { deletions: true, eventRetentionDays: options.eventRetention ?? 7 } : {}),
    seed: options.seed ?? 1,
    clock,
    warmAhead: true,
    sizes: {
      entities: options.entities,
      events: options.events,
      taxpayers: options.taxpayers,
      invoicesPerTaxpayer: options.invoices,
      lineItemsPerInvoice: options.lineItems,
      paymentsPerTaxpayer: options.payments,
    },
    ...(faults ? { faults } : {}),
    ...(options.cursorPrevious === 'last' || options.cursorPrevious === 'previous' ? { cursorPrevious: options.cursorPrevious } : {}),
    cursorEnd: parseCursorEnd(options.cursorEnd ?? 'endless'),
    wire: parseWireEncoding(options.wire ?? 'apiplatform'),
    errors: options.errors === 'problem' ? 'problem' : 'message',
    cursorOnly: options.cursorOnly === true,
    ignorePaginationStyle: options.ignorePaginationStyle === true,
    singlePage: options.singlePage === 'no-view' ? 'no-view' : 'view',
    dates: options.dates === 'naive' ? 'naive' : 'iso',
    batchPayment: options.batchPayment === 'object' ? 'object' : 'iri',
    oddText: options.oddText === true,
  });
  const port = options.port ?? 8787;
  const server = await startSandboxServer(sandbox, { host, port }).catch((err: unknown) => {
    throw listenError(err, host, port);
  });
  return { sandbox, server, faults, host, limit, windowSeconds, limitScope };
}

/**
 * @returns 0 after a clean stop
 * @throws {UsageError} (exit 2) as {@link serveSandbox}
 */
export async function runSandbox(ctx: Context, options: SandboxCommandOptions): Promise<number> {
  const { sandbox, server, faults, host, limit, windowSeconds, limitScope } = await serveSandbox(options, ctx.clock);
  const out = ctx.io.stdout;
  const rfcs = sandbox.taxpayers();
  const lines = [
    `Sandbox Collection API listening on ${server.url}`,
    `API key: ${sandbox.apiKey}`,
    `Rate limit: ${limit === 0 ? 'none' : `${limit} requests per ${windowSeconds} s per ${limitScope === 'path' ? 'path' : 'endpoint'}`}`,
    `Taxpayers (${options.invoices ?? DEFAULT_SIZES.invoicesPerTaxpayer} invoices each):`,
    ...rfcs.map((rfc) => `  ${rfc}`),
    ...(faults && faults.rules.length > 0 ? [`Faults: ${faults.rules.map((r) => r.kind).join(', ')}`] : []),
    ...(options.errors === 'problem' ? ['Errors: application/problem+json, as API Platform writes them'] : []),
    ...(options.cursorOnly ? ['Paging: cursor only where cursor pagination exists (a request with page is a 400)'] : []),
    ...(options.ignorePaginationStyle ? ['Paging: offset only (X-Pagination-Style is ignored)'] : []),
    'Try:',
    `  collections invoices --taxpayer ${shellWord(rfcs[0]!)} --cursor --base-url ${server.url} --api-key ${shellWord(sandbox.apiKey)}`,
    'Press Ctrl-C to stop.',
    '',
  ];
  out.write(lines.join('\n'));
  if (!LOOPBACK.has(host)) {
    ctx.io.stderr.write(`collections: warning: the sandbox listens on ${host}, reachable from other machines\n`);
  }

  await new Promise<void>((resolve) => {
    const off = ctx.onSignal(() => {
      off();
      resolve();
    });
  });
  await server.close();
  ctx.io.stderr.write('collections: sandbox stopped\n');
  return ExitCode.Ok;
}
