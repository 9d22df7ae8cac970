/**
 * The sandbox on a socket, from its switches checked first: what `collections sandbox` runs and
 * `startSandbox()` returns. A message names a switch as the caller knows it.
 */
import { hint, option, UsageError, type Hint } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { createSandbox } from './app.js';
import { parseFaultSpec, type FaultConfig } from './faults.js';
import { startSandboxServer, type RunningServer } from './server.js';
import { SANDBOX_SWITCHES, type SandboxCommandOptions, type SandboxSwitch, type SandboxSwitchName, type SandboxSwitchValues } from './switches.js';
import type { Sandbox } from './types.js';

/** How a message names a switch: the command line's flag (`--limit`) or the library's option (`limit`). */
export type SwitchNaming = 'flag' | 'option';

function shown(name: SandboxSwitchName, naming: SwitchNaming): string {
  return naming === 'flag' ? SANDBOX_SWITCHES[name].flag.split(' ')[0]! : name;
}

const CHOOSE_PORT = hint`choose another ${option('port')} (0 = any free port)`;
const CHECK_HOST = hint`check ${option('host')} (default ${SANDBOX_SWITCHES.host.default})`;

/** By Node's `net` error `code`, from `listen(2)` and `getaddrinfo(3)`. */
const LISTEN_FAILURES: Readonly<Record<string, { reason: string; hint: Hint }>> = {
  EADDRINUSE: { reason: 'address in use', hint: CHOOSE_PORT },
  EACCES: { reason: 'permission denied (ports below 1024 need privileges)', hint: CHOOSE_PORT },
  EPERM: { reason: 'operation not permitted', hint: CHOOSE_PORT },
  EADDRNOTAVAIL: { reason: 'no such address on this machine', hint: CHECK_HOST },
  ENOTFOUND: { reason: 'unknown host', hint: CHECK_HOST },
  EAI_AGAIN: { reason: 'the host name could not be resolved', hint: CHECK_HOST },
  EAFNOSUPPORT: { reason: 'address family not supported', hint: CHECK_HOST },
};

/**
 * The hint is data each door words its way (`--port` on the command line, `port` in the library).
 * @returns a {@link UsageError} (exit 2), or `err` itself when it has no `code` (a bug, reported as such)
 */
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
function checkValue(row: SandboxSwitch, name: string, value: unknown): void {
  if (value === undefined) return;
  const { min, max = Number.MAX_SAFE_INTEGER, words } = row;
  if (min !== undefined && (!Number.isInteger(value) || (value as number) < min || (value as number) > max)) {
    throw new UsageError(`${name} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`);
  }
  if (words && !words.includes(value as string)) throw new UsageError(`${name} must be ${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`);
}

/**
 * Integers first, then the words, in the order the command has always checked them.
 * @throws {UsageError} (exit 2) for the first value out of range or unknown
 */
function checkSwitches(options: SandboxCommandOptions, naming: SwitchNaming): SandboxSwitchValues {
  const rows = Object.entries<SandboxSwitch>(SANDBOX_SWITCHES) as Array<[SandboxSwitchName, SandboxSwitch]>;
  for (const [name, row] of rows) if (row.type === 'integer') checkValue(row, shown(name, naming), options[name]);
  for (const name of ['cursorPrevious', 'cursorEnd', 'wire', 'errors', 'limitScope'] as const) {
    checkValue(SANDBOX_SWITCHES[name], shown(name, naming), options[name]);
  }
  if (options.key !== undefined && options.key.trim() === '') throw new UsageError(`${shown('key', naming)} must not be empty`);
  if (options.cursorOnly && options.ignorePaginationStyle) {
    const [only, ignore] = [shown('cursorOnly', naming), shown('ignorePaginationStyle', naming)];
    throw new UsageError(`${only} and ${ignore} exclude each other: one pages by cursor only, the other by offset only`);
  }
  for (const name of ['singlePage', 'dates', 'batchPayment'] as const) checkValue(SANDBOX_SWITCHES[name], shown(name, naming), options[name]);
  return options as SandboxSwitchValues;
}

/** The given value, else its row's default. */
function valueOf<K extends SandboxSwitchName>(options: SandboxSwitchValues, name: K): NonNullable<SandboxSwitchValues[K]> {
  const row: SandboxSwitch = SANDBOX_SWITCHES[name];
  return (options[name] ?? row.default) as NonNullable<SandboxSwitchValues[K]>;
}

export interface ServedSandbox {
  sandbox: Sandbox;
  server: RunningServer;
  faults: FaultConfig | undefined;
  host: string;
  limit: number;
  windowSeconds: number;
  limitScope: 'route' | 'path';
}

/**
 * @param clock the sandbox's windows, latency and churn
 * @param naming how messages name a switch
 * @throws {UsageError} (exit 2) for out-of-range options or a bad fault spec (before anything
 *   listens), and when it cannot listen: the port is taken or needs privileges, the host is unknown
 *   or not of this machine ({@link listenError})
 */
export async function serveSandbox(given: SandboxCommandOptions, clock: Clock, naming: SwitchNaming): Promise<ServedSandbox> {
  const options = checkSwitches(given, naming);
  const faults: FaultConfig | undefined = options.faults === undefined ? undefined : parseFaultSpec(options.faults);
  const [host, limit, windowSeconds, limitScope] = [
    valueOf(options, 'host'),
    valueOf(options, 'limit'),
    valueOf(options, 'window'),
    valueOf(options, 'limitScope'),
  ];
  const sandbox = createSandbox({
    apiKey: valueOf(options, 'key'),
    limit,
    windowSeconds,
    limitScope,
    latencyMs: valueOf(options, 'latency'),
    churn: valueOf(options, 'churn'),
    ...(options.deletions === true ? { deletions: true, eventRetentionDays: valueOf(options, 'eventRetention') } : {}),
    seed: valueOf(options, 'seed'),
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
    cursorPrevious: valueOf(options, 'cursorPrevious'),
    cursorEnd: valueOf(options, 'cursorEnd'),
    wire: valueOf(options, 'wire'),
    errors: valueOf(options, 'errors'),
    cursorOnly: options.cursorOnly === true,
    ignorePaginationStyle: options.ignorePaginationStyle === true,
    singlePage: valueOf(options, 'singlePage'),
    dates: valueOf(options, 'dates'),
    batchPayment: valueOf(options, 'batchPayment'),
    oddText: options.oddText === true,
  });
  const port = valueOf(options, 'port');
  const server = await startSandboxServer(sandbox, { host, port }).catch((err: unknown) => {
    throw listenError(err, host, port);
  });
  return { sandbox, server, faults, host, limit, windowSeconds, limitScope };
}
