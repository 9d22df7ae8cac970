/**
 * What runExport returns for the summary and the rate-limit cache: the progress counts, the
 * requests sent, the last rate-limit state seen, and `brokenPipe`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { planExport } from '../../src/commands/export.js';
import type { ExportFlags } from '../../src/commands/flags.js';
import { runExport } from '../../src/export/run/run.js';
import { exportServices } from '../../src/export/run/services.js';

import type { PageStep } from '../../src/pagination/paginate.js';
import { BASE, CANARY, createWorld, tempDir, worldContext, type SandboxWorld, type TempDir } from '../helpers/world.js';

let dir: TempDir;
let world: SandboxWorld;
beforeEach(() => {
  dir = tempDir();
  world = createWorld({ limit: 100, windowSeconds: 60 });
});
afterEach(() => dir.remove());

function plan(flags: Partial<ExportFlags>) {
  const settings = { apiKey: CANARY, baseUrl: new URL(BASE), defaults: {} };
  const full: ExportFlags = { taxpayer: world.taxpayer, cursor: true, itemsPerPage: 7, quiet: true, progress: false, ...flags };
  return planExport('invoices', full, settings, dir.path, 'collections invoices');
}

describe('runExport result', () => {
  it('returns the counts, the requests sent and the rate-limit state of the last page', async () => {
    const { t } = worldContext(world, dir);
    const p = plan({ out: 'x.ndjson' });
    const pages: PageStep[] = [];
    const result = await runExport(p, t.ctx, exportServices(p, t.ctx), { onPageFetched: (page) => pages.push(page) });
    expect(result.brokenPipe).toBe(false);
    // 9 pages of 7 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on).
    expect(result.stats).toMatchObject({ items: 60, pages: 10, requests: 10, retries: 0, waits: 0 });
    expect(result.requests).toBe(world.sandbox.requests().length);
    expect(result.requests).toBe(10);
    expect(pages).toHaveLength(10);
    expect(result.rateLimit).toEqual(pages.at(-1)!.rateLimit);
    expect(result.rateLimit).toMatchObject({ limit: 100, remaining: 90 });
  });

  it('reports a reader that went away as brokenPipe, with what was fetched until then', async () => {
    const { t } = worldContext(world, dir);
    const gone = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    t.ctx.io.stdout = gone;
    const p = plan({});
    const result = await runExport(p, t.ctx, exportServices(p, t.ctx));
    expect(result.brokenPipe).toBe(true);
    expect(result.requests).toBeGreaterThanOrEqual(1);
    expect(result.requests).toBe(world.sandbox.requests().length);
    expect(result.rateLimit?.limit).toBe(100);
  });
});
