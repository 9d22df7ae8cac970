/**
 * Durability in groups, end to end in process (docs/files.md, "Files, checkpoints and `--resume`"): a fast
 * export commits its checkpoint once at the end, not per page; a rate-limit wait commits the pages
 * written before the client sleeps; every checkpoint counts only bytes already in the sidecar.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { planExport } from '../../src/export/plan/plan.js';
import type { ExportOptions } from '../../src/export/plan/options.js';
import { runExport } from '../../src/export/run/run.js';
import { exportServices } from '../../src/export/run/services.js';

import type { Checkpoint } from '../../src/export/files/checkpoint.js';
import { nodeFileSystem, type FileSystem } from '../../src/io/files.js';
import { BASE, createWorld, removeTempDirs, tempDir, worldContext, type SandboxWorld, type TempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

/** A file system that records every checkpoint as it is renamed into place, with the sidecar's length then. */
function recordingFs(dir: TempDir, saved: Array<{ checkpoint: Checkpoint; sidecarBytes: number }>): FileSystem {
  return {
    open: (path, flags, mode) => nodeFileSystem.open(path, flags, mode),
    async rename(from, to) {
      if (to.endsWith('.checkpoint.json')) {
        const checkpoint = JSON.parse(readFileSync(from, 'utf8')) as Checkpoint;
        saved.push({ checkpoint, sidecarBytes: dir.read('out.ndjson.part').length });
      }
      await nodeFileSystem.rename(from, to);
    },
  };
}

/** The `invoices` export of `flags`, planned as the command plans it against the world's sandbox. */
function invoicesPlan(world: SandboxWorld, dir: TempDir, flags: ExportOptions) {
  return planExport({
    command: 'invoices',
    options: flags,
    settings: { apiKey: world.key, baseUrl: new URL(BASE), defaults: {} },
    cwd: dir.path,
    resumeCommand: 'collections invoices',
  });
}

async function exportWith(world: SandboxWorld, dir: TempDir) {
  const saved: Array<{ checkpoint: Checkpoint; sidecarBytes: number }> = [];
  const flags = { taxpayer: world.taxpayer, cursor: true, itemsPerPage: 10, out: 'out.ndjson', quiet: true };
  const plan = invoicesPlan(world, dir, flags);
  const waits: number[] = [];
  const { t } = worldContext(world, dir);
  await runExport(plan, t.ctx, exportServices(plan, t.ctx, { fs: recordingFs(dir, saved) }), {
    onClientEvent: (e) => e.type === 'wait' && waits.push(e.ms),
  });
  return { saved, waits };
}

describe('checkpoints per group of pages', () => {
  // 6 pages of items and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on).
  it('a fast export of 6 pages and the empty one saves one checkpoint, at the end, of all 7', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 60, entities: 5 } });
    const dir = tempDir();
    const { saved } = await exportWith(world, dir);
    expect(saved.map((s) => s.checkpoint.pages)).toEqual([7]);
    expect(dir.read('out.ndjson').toString().split('\n')).toHaveLength(61);
  });

  it('a rate-limit wait commits the pages written before it; each checkpoint counts bytes already in the sidecar', async () => {
    const world = createWorld({ limit: 2, windowSeconds: 10, sizes: { taxpayers: 1, invoicesPerTaxpayer: 60, entities: 5 } });
    const dir = tempDir();
    const { saved, waits } = await exportWith(world, dir);
    expect(waits.length).toBeGreaterThanOrEqual(2);
    const pages = saved.map((s) => s.checkpoint.pages);
    // The first wait (two requests per window) commits what was written before it, where a fast
    // export commits only at the end (above). The durability chain runs beside the export, so on
    // the virtual clock later commits may be folded into the one being saved.
    expect(pages[0]).toBeLessThanOrEqual(2);
    expect(pages.at(-1)).toBe(7);
    expect([...pages].sort((a, b) => a - b)).toEqual(pages);
    for (const s of saved) expect(s.checkpoint.bytes).toBeLessThanOrEqual(s.sidecarBytes);
    expect(dir.read('out.ndjson').toString().split('\n')).toHaveLength(61);
  });
});

describe('cursor pages fetched one ahead', () => {
  it('--max-items never fetches a page beyond the one that completes it', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 60, entities: 5 } });
    const dir = tempDir();
    const before = world.sandbox.requests().length;
    const { t } = worldContext(world, dir);
    const flags = { taxpayer: world.taxpayer, cursor: true, itemsPerPage: 10, maxItems: 20, quiet: true };
    const plan = invoicesPlan(world, dir, flags);
    const r = await runExport(plan, t.ctx, exportServices(plan, t.ctx));
    expect(r.stats.items).toBe(20);
    expect(world.sandbox.requests().length - before).toBe(2);
  });

  it('a failure of the page fetched ahead comes after the page before it was written and checkpointed', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 60, entities: 5 } });
    const dir = tempDir();
    const saved: Array<{ checkpoint: Checkpoint; sidecarBytes: number }> = [];
    const flags = { taxpayer: world.taxpayer, cursor: true, itemsPerPage: 10, out: 'out.ndjson', quiet: true, retries: 0 };
    const plan = invoicesPlan(world, dir, flags);
    let calls = 0;
    const { t } = worldContext(world, dir, {
      wrapFetch: (inner) => (input, init) => (++calls === 3 ? Promise.reject(new TypeError('fetch failed')) : inner(input, init)),
    });
    await expect(runExport(plan, t.ctx, exportServices(plan, t.ctx, { fs: recordingFs(dir, saved) }))).rejects.toThrow();
    expect(saved.map((s) => s.checkpoint.pages)).toEqual([2]);
    expect(dir.read('out.ndjson.part').toString().split('\n')).toHaveLength(21);
  });
});
