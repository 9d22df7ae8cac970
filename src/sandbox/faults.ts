/**
 * Fault injection for the sandbox (docs/sandbox.md, "The sandbox": `--faults` injects failures for testing).
 * A fault is a rule: what goes wrong, and when (probability, request numbers, pages, endpoint, a
 * time window, a maximum count). Random draws are a pure function of (seed, rule, request URL, how
 * many times that URL was requested), so a failing run replays from its seed even with concurrent
 * requests.
 *
 * Network-level faults (a reset, a hang, a slow drip) cannot be expressed by a `Response`; the
 * sandbox attaches them to its reply and the transport adapters (fetch.ts, server.ts) act them out.
 *
 * This module gathers fault-types.ts (the vocabulary), fault-spec.ts (validation and parsing) and
 * fault-injector.ts (which rules fire); fault-table.ts says what each kind does to an answer.
 */
export { FAULT_KINDS } from './fault-types.js';
export type { FaultConfig, FaultContext, FaultKind, FaultRule, FaultScope, NetworkFault } from './fault-types.js';
export { parseFaultSpec } from './fault-spec.js';
export { createFaultInjector, type FaultInjector } from './fault-injector.js';
