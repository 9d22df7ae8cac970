/**
 * The bundled Collection API as a function: `handle(Request) → Promise<Response>`, no socket
 * (conventions.md, rule 13). server.ts adapts it to node:http. STUB: interface fixed; implementation
 * by the sandbox work.
 */
import type { Clock } from '../time/clock.js';

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /** Accepted `X-Api-Key` (default `sandbox-key`). */
  apiKey?: string;
  /** Requests per window per key and endpoint (default 60; 0 or Infinity = no limit). */
  limit?: number;
  /** Window length, seconds (default 60). Windows are fixed and end on whole seconds. */
  windowSeconds?: number;
  /** Seed of the generated records (default 1). */
  seed?: number;
  /** Collection sizes. */
  sizes?: {
    entities?: number;
    events?: number;
    /** Taxpayers generated (their RFCs are listed by {@link Sandbox.taxpayers}). */
    taxpayers?: number;
    /** Invoices per taxpayer. */
    invoicesPerTaxpayer?: number;
    /** Line items per invoice (average). */
    lineItemsPerInvoice?: number;
    /** Payments per taxpayer. */
    paymentsPerTaxpayer?: number;
  };
  /** Server clock (default the system clock). */
  clock?: Clock;
  /** Latency added to each response, ms, slept on `clock`. */
  latencyMs?: number;
}

/** A running in-process sandbox. */
export interface Sandbox {
  /** Answers one request as the Collection API would. */
  handle(request: Request): Promise<Response>;
  /** RFCs of the generated taxpayers. */
  taxpayers(): string[];
  /** Invoice ids of a taxpayer. */
  invoiceIds(taxpayerId: string): string[];
  /** The full current item list of a collection path (e.g. `/taxpayers/X/invoices`), in the API's order. */
  items(path: string): unknown[];
}

/** Creates a sandbox. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  void options;
  throw new Error('not implemented');
}
