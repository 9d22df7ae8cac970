/**
 * `startSandbox()`: the bundled sandbox API for a user's own tests, as stripe-mock is for Stripe's
 * clients. It is the server `collections sandbox` runs, its switches as options, loaded only when called.
 */
import type { SandboxSwitchValues } from '../sandbox/switches.js';
import { systemClock } from '../time/clock.js';

/**
 * Options of {@link startSandbox}: the switches of `collections sandbox`, by their camelCase names
 * (`--cursor-only` is `cursorOnly`), each typed and documented from the sandbox's one switch table.
 * Units: `latency` ms, `window` seconds, `eventRetention` days. `port` defaults to 0 (any free port).
 */
export type StartSandboxOptions = SandboxSwitchValues;

/** A sandbox listening; see {@link startSandbox}. */
export interface RunningSandbox {
  /** Its base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly baseUrl: string;
  /** The API key it accepts. */
  readonly apiKey: string;
  readonly port: number;
  /** The RFCs of its taxpayers, e.g. for `/taxpayers/${taxpayers[0]}/invoices`. */
  readonly taxpayers: readonly string[];
  /** Replaces the faults injected (a spec as the `faults` option takes; `''` clears them). */
  setFaults(spec: string): void;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/**
 * Starts the bundled sandbox Collection API on loopback: offset and cursor pagination, totals,
 * rate limits (`X-RateLimit-*`, 429 past the limit), 401 for a wrong key, 404 for unknown ids,
 * and faults on demand. Its records are generated from `seed`.
 * @throws {UsageError} (`E_USAGE`) for an option out of range or none of its words, `cursorOnly` with
 *   `ignorePaginationStyle`, a bad fault spec, or a port it cannot listen on; the message names the option
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { serveSandbox } = await import('../sandbox/serve.js');
  const { sandbox, server } = await serveSandbox({ ...options, port: options.port ?? 0 }, systemClock, 'option');
  return {
    baseUrl: server.url,
    apiKey: sandbox.apiKey,
    port: server.port,
    taxpayers: sandbox.taxpayers(),
    setFaults: (spec) => sandbox.setFaults(spec === '' ? [] : spec),
    close: () => server.close(),
  };
}
