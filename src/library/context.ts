/**
 * The Context a library call runs in, from its options instead of `process`: no terminal, nothing printed unless
 * a log stream is given, the caller's signal in place of SIGINT, and the transport (one keep-alive pool) and the
 * rate budget shared by the calls of a process, as the clients of one command share theirs.
 */
import { resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { processHolder, readPackageVersion, type Context, type FetchLike, type OutputStream } from '../context.js';
import { createRateBudget, loadStoreOnUse, type QuotaStore, type RateBudget } from '../rate/budget.js';
import { createSecrets } from '../secrets.js';
import { systemClock } from '../time/clock.js';
import { UsageError } from '../errors.js';
import type { ConnectionOptions } from './options.js';

/** A fetch that loads undici's transport (http/transport.ts) on its first request. */
function lazyTransport(env: Readonly<Record<string, string | undefined>>): FetchLike {
  let transport: Promise<FetchLike> | undefined;
  return async (input, init) => (await (transport ??= import('../http/transport.js').then((m) => m.createTransportFetch({ env }))))(input, init);
}

let sharedTransport: FetchLike | undefined;
let sharedBudget: RateBudget | undefined;

/** The calls with a `budget` under way, told when its database fails. */
const budgetListeners = new Set<(message: string) => void>();

/**
 * Until the returned function is called, `listener` is told when a `budget` database fails.
 * The password never reaches it: the store names the database without it.
 */
export function listenToBudget(listener: (message: string) => void): () => void {
  budgetListeners.add(listener);
  return () => budgetListeners.delete(listener);
}

/** The store of a `budget` URL, loaded on the first request; `env` gives `PGPASSWORD` and the password file. */
function budgetStore(url: string, env: Readonly<Record<string, string | undefined>>): QuotaStore {
  return loadStoreOnUse(async () => {
    const [{ createPostgresStore }, { openBudgetSession }] = await Promise.all([
      import('../rate/store-postgres.js'),
      import('../export/destinations/budget-session.js'),
    ]);
    return createPostgresStore({
      connect: () => openBudgetSession(url, env),
      holder: processHolder(),
      onTrouble: (message) => {
        for (const listener of budgetListeners) listener(message);
      },
    });
  });
}

let version: string | undefined;

/** A stream that drops what is written to it (stderr of a call that prints nothing). */
function discard(): OutputStream {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

/**
 * No stdin, `stdout` when the data does not go to a file, no environment but `env`, the injected clock and fetch,
 * and a `forceExit` that never exits (a library does not end its host's process).
 * @param stop aborted by the caller's signal or a failed listener (events.ts `Stopper.signal`)
 */
export function exportContext(
  options: ConnectionOptions & { readonly log?: OutputStream; readonly cwd?: string },
  stop: AbortSignal,
  stdout: OutputStream = discard(),
): Context {
  const stderr = options.log ?? discard();
  const remote = (url: string): QuotaStore => budgetStore(url, options.env ?? {});
  if (options.cwd !== undefined && typeof options.cwd !== 'string') throw new UsageError('cwd must be a path');
  return {
    io: { stdin: new PassThrough(), stdout, stderr, stdinIsTTY: false, stdoutIsTTY: stdout.isTTY === true, stderrIsTTY: false, columns: undefined },
    env: options.env ?? {},
    clock: options.clock ?? systemClock,
    // The injected fetch, a transport with the proxies of `env`, or the process's shared one.
    fetch: options.fetch ?? (options.env === undefined ? (sharedTransport ??= lazyTransport({})) : lazyTransport(options.env)),
    random: Math.random,
    cwd: resolve(options.cwd ?? '.'),
    configDir: undefined,
    onSignal(listener) {
      const onAbort = (): void => listener('SIGINT');
      if (stop.aborted) queueMicrotask(onAbort);
      else stop.addEventListener('abort', onAbort, { once: true });
      return () => stop.removeEventListener('abort', onAbort);
    },
    version: (version ??= readPackageVersion()),
    forceExit: () => undefined,
    // The process's on the system clock; one of its own on an injected clock, whose windows mean
    // nothing to other clocks. A `budget` URL's store is the process's (made with the first call's `env`).
    rateBudget: options.clock === undefined ? (sharedBudget ??= createRateBudget({ remote })) : createRateBudget({ remote }),
    secrets: createSecrets(),
  };
}
