/**
 * `startSandbox()`: the bundled sandbox API for a user's own tests, as stripe-mock is for Stripe's
 * clients. It is the server `collections sandbox` runs (commands/sandbox/sandbox.ts `serveSandbox`), with
 * the command's flags as options, and loaded only when called.
 */
import { systemClock } from '../time/clock.js';

/** Options of {@link startSandbox}: the flags of `collections sandbox`, by the same names. */
export interface StartSandboxOptions {
  /** Port (default 0: any free port, unlike the command's 8787, so tests can run side by side). */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`: loopback only). */
  host?: string;
  /** The API key it accepts (default `sandbox-key`). */
  key?: string;
  /** Requests per window, per key and endpoint (default 60; 0 = no limit). */
  limit?: number;
  /** Window length, seconds (default 60). */
  window?: number;
  /** What a window counts: `route` (default: all taxpayers share `/taxpayers/{id}/invoices`) or `path`. */
  limitScope?: 'route' | 'path';
  /** Delay added to every response, ms (default 0). */
  latency?: number;
  /** Items a minute inserted or updated in invoices, entities and events (default 0). */
  churn?: number;
  /** The churn deletes too: one change in three of invoices and entities, each recorded as an `invoice.deleted` or `link.deleted` event (default false). */
  deletions?: boolean;
  /** With `deletions`: days an event is kept, on the sandbox's clock (default 7). */
  eventRetention?: number;
  /** Seed of the generated records (default 1): the same options give the same data. */
  seed?: number;
  /** Entities (default 25). */
  entities?: number;
  /** Events (default 40). */
  events?: number;
  /** Taxpayers (default 4). */
  taxpayers?: number;
  /** Invoices per taxpayer (default 250). */
  invoices?: number;
  /** Average line items per invoice, at most 200 (default 3). */
  lineItems?: number;
  /** Payments per taxpayer (default 120). */
  payments?: number;
  /** Faults to inject, e.g. `'status status=503 p=0.1; drip pages=3'` or JSON (docs/sandbox.md). */
  faults?: string;
  /** Name of the previous cursor link: `previous` (default) or `last`. */
  cursorPrevious?: 'previous' | 'last';
  /** How a cursor chain ends: `endless` (default, API Platform 4.3.5+), `empty-page` or `last-page`. */
  cursorEnd?: 'endless' | 'empty-page' | 'last-page';
  /** Bytes of the bodies: `apiplatform` (default: PHP's escapes), `compact` or `pretty`. */
  wire?: 'apiplatform' | 'compact' | 'pretty';
  /**
   * One invoice of each taxpayer (its third) has `reference` `"odd\u0000text\ud800"`: a NUL and a
   * lone surrogate, valid JSON escapes that PostgreSQL's `jsonb` cannot hold (default false).
   */
  oddText?: boolean;
}

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
 * @throws {UsageError} (`E_USAGE`) for an option out of range, a bad fault spec, or a port it cannot listen on
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { serveSandbox } = await import('../commands/sandbox/sandbox.js');
  const { sandbox, server } = await serveSandbox({ ...options, port: options.port ?? 0 }, systemClock);
  return {
    baseUrl: server.url,
    apiKey: sandbox.apiKey,
    port: server.port,
    taxpayers: sandbox.taxpayers(),
    setFaults: (spec) => sandbox.setFaults(spec === '' ? [] : spec),
    close: () => server.close(),
  };
}
