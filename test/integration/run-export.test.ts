/**
 * runExport, the run loop (export/run/run.ts). What it returns for the summary and the rate-limit
 * cache: the progress counts, the requests sent, the last rate-limit state seen, and `brokenPipe`.
 * And the services handed to it beside its plan (export/run/plan.ts `ExportServices`) are seams:
 * a fake page source, formatter or output replaces the real one, and the run loop does with it
 * what it does with the real ones (pages → formatter → destination → checkpoint).
 */
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { planExport } from '../../src/export/plan/plan.js';
import type { ExportFlags } from '../../src/commands/flags.js';
import { runExport } from '../../src/export/run/run.js';
import { exportServices } from '../../src/export/run/services.js';
import type { ExportServices } from '../../src/export/run/plan.js';
import type { Destination, PageMark } from '../../src/export/files/destination.js';
import type { Formatter } from '../../src/output/formatter.js';
import type { PageStep } from '../../src/pagination/paginate.js';
import { valueMembers } from '../../src/json/members.js';
import { BASE, CANARY, worldContext, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
const world = useWorld({ limit: 100, windowSeconds: 60 });

function plan(flags: Partial<ExportFlags>) {
  const settings = { apiKey: CANARY, baseUrl: new URL(BASE), defaults: {} };
  const full: ExportFlags = { taxpayer: world.taxpayer, cursor: true, itemsPerPage: 7, quiet: true, progress: false, ...flags };
  return planExport({ command: 'invoices', options: full, settings, cwd: dir.path, resumeCommand: 'collections invoices' });
}

/** A page of `values`, linking on to `next` (a page of the sandbox's origin) unless it is the last. */
function step(index: number, values: unknown[], next: string | undefined): PageStep {
  return {
    index,
    url: new URL(`${BASE}/fake?page=${index + 1}`),
    status: 200,
    page: { members: valueMembers(values) },
    text: JSON.stringify(values),
    next: next === undefined ? undefined : new URL(next, BASE),
  };
}

/** A page source yielding two pages (2 items, then 1) without a request; records where it was asked to start. */
function twoPages(starts: string[]): ExportServices['openPages'] {
  return async function* (_client, start) {
    starts.push(start.href);
    await Promise.resolve();
    yield step(0, [{ id: 1 }, { id: 2 }], '/fake?page=2');
    yield step(1, [{ id: 3 }], undefined);
  };
}

describe('runExport services', () => {
  it('writes the pages of a fake page source, from the plan’s first page, without a request', async () => {
    const { t } = worldContext(world, dir);
    const p = plan({ out: 'x.ndjson' });
    const starts: string[] = [];
    const result = await runExport(p, t.ctx, { ...exportServices(p, t.ctx), openPages: twoPages(starts) });
    expect(starts).toEqual([p.pages.start.href]);
    expect(dir.read('x.ndjson').toString()).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    expect(result.stats).toMatchObject({ items: 3, pages: 2 });
    expect(world.sandbox.requests()).toHaveLength(0);
  });

  it('writes what a fake formatter makes of the sandbox’s pages', async () => {
    const { t } = worldContext(world, dir);
    const p = plan({ maxItems: 10 });
    const fake: Formatter = {
      begin: () => 'B\n',
      page: (items) => `P${items.length}\n`,
      end: () => 'E\n',
      state: () => ({}),
    };
    const resumedWith: unknown[] = [];
    const openFormatter: ExportServices['openFormatter'] = (resumed) => {
      resumedWith.push(resumed);
      return Promise.resolve(fake);
    };
    const result = await runExport(p, t.ctx, { ...exportServices(p, t.ctx), openFormatter });
    // Pages of 7: the second is cut to the 3 items that complete --max-items 10.
    expect(t.stdout.text()).toBe('B\nP7\nP3\nE\n');
    expect(resumedWith).toEqual([undefined]);
    expect(result.stats).toMatchObject({ items: 10, pages: 2 });
  });

  it('writes to a fake output and checkpoints there, then releases it', async () => {
    const { t } = worldContext(world, dir);
    const p = plan({ out: 'x.ndjson' });
    const written: string[] = [];
    const marks: Array<Omit<PageMark, 'formatterState'>> = [];
    let finished = '';
    let released = 0;
    const destination: Destination = {
      name: 'fake',
      resumed: undefined,
      write: (text) => Promise.resolve(void written.push(text.toString())),
      pageWritten: ({ formatterState: _state, ...mark }) => Promise.resolve(void marks.push(mark)),
      settle: () => Promise.resolve(),
      finish: (text) => Promise.resolve(void (finished = text.toString())),
      abort: () => Promise.resolve(),
    };
    const services: ExportServices = {
      ...exportServices(p, t.ctx),
      openPages: twoPages([]),
      openOutput: () => ({
        open: () => Promise.resolve(destination),
        device: false,
        release: () => Promise.resolve(void (released += 1)),
      }),
      openManifest: () => undefined,
    };
    const result = await runExport(p, t.ctx, services);
    expect(written.join('') + finished).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    // The last checkpoint says the export is complete: no next page, every page and item counted, the mode paged in.
    expect(marks.at(-1)).toEqual({ next: null, pages: 2, items: 3, totalItems: undefined, mode: 'cursor' });
    expect(released).toBe(1);
    expect(result.stats).toMatchObject({ items: 3, pages: 2 });
    expect(dir.has('x.ndjson')).toBe(false);
  });
});

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
