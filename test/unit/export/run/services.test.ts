/**
 * Summaries count only the rate-limit waits that were taken (docs/rate-limits.md, "Rate limits, retries and
 * safety"): a wait announced to progress and then cut by an abort is taken out of its counts again
 * (createWaitLedger, exportServices). Sandbox world, virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { exportClient } from '../../../../src/export/run/services.js';
import { clientWiring } from '../../../../src/export/run/run.js';
import { createProgress } from '../../../../src/io/progress.js';
import { createWaitLedger, type WaitCut } from '../../../../src/rate/index.js';
import type { ClientEvent } from '../../../../src/http/client.js';
import { createVirtualClock } from '../../../helpers/virtual-clock.js';
import { BASE, START, createWorld, worldContext, useTempDir } from '../../../helpers/world.js';

const dir = useTempDir();

describe('wait ledger', () => {
  it('cuts only the waits not over yet, by the part not waited; one not begun is flagged', () => {
    const clock = createVirtualClock(START, { autoAdvance: false });
    const events: ClientEvent[] = [];
    const cuts: WaitCut[] = [];
    const ledger = createWaitLedger<ClientEvent>(
      clock,
      (e) => events.push(e),
      (c) => cuts.push(c),
    );
    ledger.emit({ type: 'wait', reason: 'pacing', ms: 1000, until: START + 1000 });
    clock.advance(1000);
    ledger.emit({ type: 'wait', reason: 'pacing', ms: 30_000, until: START + 31_000 });
    clock.advance(10_000);
    ledger.cut();
    expect(cuts).toEqual([{ ms: 20_000, begun: true }]);
    ledger.emit({ type: 'wait', reason: 'rate-limit', ms: 5000, until: START + 16_000 });
    ledger.cut();
    ledger.cut();
    expect(cuts).toEqual([
      { ms: 20_000, begun: true },
      { ms: 5000, begun: false },
    ]);
    expect(events.map((e) => e.type)).toEqual(['wait', 'wait', 'wait']);
  });
});

describe('an export client’s waits in the summary counts', () => {
  /** A client on a world of 2 requests a minute whose quota is spent, and the progress it reports to. */
  async function spent() {
    const w = createWorld({ limit: 2, windowSeconds: 60 });
    const { t } = worldContext(w, dir);
    const progress = createProgress({ stderr: t.ctx.io.stderr, isTTY: false, env: {}, clock: w.clock, quiet: true, spinner: false, verbose: false });
    const plan = {
      baseUrl: new URL(BASE),
      apiKey: w.key,
      retries: 0,
      timeoutMs: 60_000,
      maxWaitMs: Number.POSITIVE_INFINITY,
      maxBodyBytes: 256 * 1024 * 1024,
    };
    const client = exportClient(plan, t.ctx, clientWiring(progress, new AbortController().signal));
    const url = new URL('/entities?itemsPerPage=1', BASE);
    await client.get(url);
    await client.get(url);
    return { w, client, progress, url };
  }

  it('a wait aborted after 10 s counts 10 s', async () => {
    const { w, client, progress, url } = await spent();
    const controller = new AbortController();
    void w.clock.sleep(10_000).then(() => controller.abort());
    await expect(client.get(url, { signal: controller.signal })).rejects.toThrow();
    expect(progress.stats.waits).toBe(1);
    expect(progress.stats.waitMs).toBe(10_000);
  });

  it('a wait aborted before it began is no wait; one taken in full counts in full', async () => {
    const { w, client, progress, url } = await spent();
    const controller = new AbortController();
    const cutAtOnce = client.get(url, { signal: controller.signal });
    controller.abort();
    await expect(cutAtOnce).rejects.toThrow();
    expect(progress.stats).toMatchObject({ waits: 0, waitMs: 0 });
    const before = w.clock.now();
    await client.get(url);
    expect(progress.stats.waits).toBe(1);
    expect(progress.stats.waitMs).toBe(w.clock.now() - before);
  });
});
