/**
 * Property-based tests of the pagination engine (client + paginate / serverModePages) against the
 * in-process sandbox on a virtual clock: random collection sizes, page sizes, rate limits, fault
 * sequences (5xx, resets, refusals, unreadable bodies, 429s) and, in cursor mode, inserts and
 * deletes while paging.
 *
 * - cursor mode: every item present for the whole run comes exactly once, newest first;
 * - offset mode, no mutations: every item exactly once and in the API's order, at any concurrency.
 *
 * Runs are seeded (FC_SEED to replay another seed; fast-check prints the seed and path of a
 * failure) and bounded so the file stays well under 20 s.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/http/client.js';
import { paginate, type PageStep } from '../../src/pagination/paginate.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/app.js';
import { createSandboxFetch } from '../../src/sandbox/fetch.js';
import type { FaultRule } from '../../src/sandbox/faults.js';
import { createVirtualClock } from '../helpers/virtual-clock.js';
import { offsetPages } from '../helpers/pages.js';
import { seededRandom } from '../helpers/world.js';
import { report } from './harness.js';
import { textOfBytes } from '../../src/json/members.js';
import { writeJson } from '../../src/json/json-value.js';
import { literalsAsText } from '../helpers/literals.js';

/** Runs a property and records its row for the report (pass or fail), then rethrows a failure. */
async function recorded(fault: string, mode: string, expected: string, run: () => Promise<void>): Promise<void> {
  let error: Error | undefined;
  try {
    await run();
  } catch (err) {
    error = err instanceof Error ? err : new Error(String(err));
  }
  report(
    {
      fault,
      mode,
      expected,
      lost: 0,
      duplicated: 0,
      early: 0,
      max429: 0,
      foreign: 0,
      exit: 0,
      note: error ? error.message.split('\n')[0] : `${RUNS} random runs, seed ${SEED}`,
    },
    { property: error === undefined },
  );
  if (error) throw error;
}

const KEY = 'property-key';
const ORIGIN = 'http://127.0.0.1:8080';
const SEED = Number(process.env.FC_SEED ?? 20240416);
const RUNS = Number(process.env.FC_RUNS ?? 100);

/** A fault on one request number (so any page fails at most as often as there are faults). */
const faultArb: fc.Arbitrary<FaultRule> = fc
  .record({
    kind: fc.constantFrom<FaultRule['kind']>(
      'status',
      'reset-before-headers',
      'reset-mid-body',
      'refuse',
      'truncate',
      'invalid-json',
      'html',
      'permanent-429',
      'unprefixed',
      'absolute-links',
      'relative-links',
    ),
    status: fc.constantFrom(500, 502, 503, 504),
    request: fc.integer({ min: 1, max: 40 }),
  })
  // A refusal of the very first request is a wrong URL, not retried (test/integration/connect-errors.test.ts).
  .map(({ kind, status, request }) =>
    kind === 'status' ? { kind, status, requests: request } : { kind, requests: kind === 'refuse' ? Math.max(2, request) : request },
  );

const scenarioArb = fc.record({
  size: fc.integer({ min: 0, max: 120 }),
  perPage: fc.integer({ min: 1, max: 30 }),
  limit: fc.constantFrom(0, 0, 3, 7),
  windowSeconds: fc.constantFrom(1, 10, 60),
  faults: fc.array(faultArb, { maxLength: 8 }),
  faultSeed: fc.integer({ min: 0, max: 1000 }),
});

/** The ids of every page's members; each page's `text` must be the body its members were parsed from. */
async function collect(steps: AsyncGenerator<PageStep, void, void>): Promise<string[]> {
  const ids: string[] = [];
  for await (const step of steps) {
    // The client reads a valid UTF-8 page as a byte text (http/body.ts readBoundedByteText). Both
    // sides read satFolio (64-bit) and exchangeRate (1.0) as their literal text: JSON.parse would
    // round the one and drop the other's fraction, and a JsonNumber's literal is not an own key.
    const body = JSON.parse(literalsAsText(textOfBytes(step.text))) as Record<string, unknown>;
    const values = JSON.parse(literalsAsText(writeJson(step.page.members.values()))) as unknown;
    expect(body['hydra:member'] ?? body.member ?? []).toEqual(values);
    for (const m of step.page.members.values()) ids.push(String((m as { id: unknown }).id));
  }
  return ids;
}

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function setup(s: Scenario, mutations?: { every: number; insert: number; remove: number }) {
  const clock = createVirtualClock();
  const probe = createSandbox({ seed: 3, sizes: { taxpayers: 1, invoicesPerTaxpayer: s.size } }).taxpayers()[0]!;
  const path = `/taxpayers/${probe}/invoices`;
  const sandbox: Sandbox = createSandbox({
    apiKey: KEY,
    seed: 3,
    clock,
    sizes: { taxpayers: 1, invoicesPerTaxpayer: s.size },
    limit: s.limit,
    windowSeconds: s.windowSeconds,
    ...(mutations ? { mutations: [{ path, ...mutations }] } : {}),
  });
  const initial = sandbox.invoiceIds(probe);
  sandbox.setFaults({ seed: s.faultSeed, rules: s.faults });
  const fetch = createSandboxFetch(sandbox, { origin: ORIGIN });
  const baseUrl = new URL(ORIGIN);
  const client = createClient({ baseUrl, apiKey: KEY, fetch, clock, random: seededRandom(s.faultSeed), retries: 12 });
  const start = new URL(`${ORIGIN}${path}?itemsPerPage=${s.perPage}`);
  return { sandbox, client, baseUrl, start, initial, probe, fetch };
}

/** The ids seen more than once. */
function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) dup.add(id);
    seen.add(id);
  }
  return [...dup];
}

describe('pagination engine properties', () => {
  it('cursor mode with inserts, deletes and faults: every item present for the whole run exactly once, newest first', async () => {
    await recorded(
      'items inserted and deleted while paging',
      'property: cursor, random sizes, page sizes, limits, faults, inserts and deletes',
      'every item exactly once',
      () =>
        fc.assert(
          fc.asyncProperty(
            scenarioArb,
            fc.record({ every: fc.integer({ min: 1, max: 4 }), insert: fc.integer({ min: 0, max: 3 }), remove: fc.integer({ min: 0, max: 2 }) }),
            async (s, mutation) => {
              const { sandbox, client, baseUrl, start, initial, probe, fetch } = setup(s, mutation);
              const ids = await collect(paginate({ client, baseUrl, start, headers: { 'X-Pagination-Style': 'cursor' }, emptyPageEnds: true }));
              const final = new Set(sandbox.invoiceIds(probe));
              const survivors = initial.filter((id) => final.has(id));
              const got = new Set(ids);
              expect(survivors.filter((id) => !got.has(id))).toEqual([]);
              expect(duplicates(ids)).toEqual([]);
              expect(ids.every((id, i) => i === 0 || ids[i - 1]! > id)).toBe(true);
              expect(fetch.foreignRequests).toEqual([]);
            },
          ),
          { numRuns: RUNS, seed: SEED },
        ),
    );
  });

  it('offset mode without mutations, any concurrency, with faults: every item exactly once and in order', async () => {
    await recorded(
      '500/502/503/504 now and then, connection reset, refused for 3 s',
      'property: offset, concurrency 1-4, random sizes, page sizes, limits, faults',
      'every item exactly once, in order',
      () =>
        fc.assert(
          fc.asyncProperty(scenarioArb, fc.integer({ min: 1, max: 4 }), async (s, concurrency) => {
            const { client, baseUrl, start, initial, fetch } = setup(s);
            start.searchParams.set('page', '1');
            const steps = concurrency === 1 ? paginate({ client, baseUrl, start }) : offsetPages(client, baseUrl, start, concurrency);
            const ids = await collect(steps);
            expect(ids).toEqual(initial);
            expect(fetch.foreignRequests).toEqual([]);
          }),
          { numRuns: RUNS, seed: SEED + 1 },
        ),
    );
  });
});
