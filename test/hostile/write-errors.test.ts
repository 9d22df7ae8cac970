/**
 * Issue 11, item 3 (data and checkpoint): ENOSPC, EDQUOT, EFBIG, EIO, EACCES, EROFS while writing
 * the data or the checkpoint end with exit 7 and one line naming the path and the cause; the
 * checkpoint stays at the last page really on disk (a later `--resume` completes the export), and
 * no rejection goes unhandled. Through an injected file-system layer, and for real with `ulimit -f`.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatError } from '../../src/commands/error-text.js';
import { planExport } from '../../src/export/plan/plan.js';
import { toExitCode } from '../../src/errors.js';
import { runExport } from '../../src/export/run/run.js';
import type { ExportPlan, ExportServices } from '../../src/export/run/plan.js';
import { exportServices } from '../../src/export/run/services.js';

import { isRecordBoundary, type Checkpoint } from '../../src/export/files/checkpoint.js';
import { failingFs, type FailingFsOptions } from '../helpers/failing-fs.js';
import { BIN, requireBuild, runShell } from '../helpers/cli.js';
import {
  BASE,
  cliEnv,
  idsOfNdjson,
  removeTempDirs,
  runInProcess,
  serveWorld,
  tempDir,
  worldContext,
  type ServedWorld,
  type TempDir,
  useTempDir,
  useWorld,
} from '../helpers/world.js';
import { snapshot } from './snapshot.js';

const world = useWorld();
const dir = useTempDir('collections-hostile-write-');
const YESTERDAY = '{"id":"yesterday"}\n';
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeEach(() => {
  writeFileSync(dir.file('out.ndjson'), YESTERDAY);
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});
afterAll(removeTempDirs);

const ARGS = () => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', 'out.ndjson'];

/** The plan of `ARGS()`. */
function plan(): ExportPlan {
  const flags = { taxpayer: world.taxpayer, cursor: true, itemsPerPage: 10, out: 'out.ndjson', quiet: true };
  return planExport({
    command: 'invoices',
    options: flags,
    settings: { apiKey: world.key, baseUrl: new URL(BASE), defaults: {} },
    cwd: dir.path,
    resumeCommand: 'collections invoices',
  });
}

/**
 * Runs the export with a failing file system; returns the error's exit code and one-line message.
 * @param env e.g. `COLLECTIONS_CHECKPOINT_MS: '0'` for a checkpoint after every page
 */
async function runFailing(options: FailingFsOptions, env: Record<string, string> = {}): Promise<{ code: number; line: string }> {
  const { t } = worldContext(world, dir, { env });
  const p = plan();
  const services: ExportServices = exportServices(p, t.ctx, { fs: failingFs(options) });
  const error = await runExport(p, t.ctx, services).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  await new Promise((resolve) => setImmediate(resolve));
  return { code: toExitCode(error), line: formatError(error) };
}

/** Checks the checkpoint, if any, counts only bytes on disk, on a record boundary, and `--resume` completes. */
async function expectResumable(): Promise<void> {
  if (dir.has('out.ndjson.checkpoint.json')) {
    const cp = JSON.parse(dir.read('out.ndjson.checkpoint.json').toString()) as Checkpoint;
    const part = dir.read('out.ndjson.part');
    expect(part.length).toBeGreaterThanOrEqual(cp.bytes);
    expect(isRecordBoundary('ndjson', cp.bytes, cp.items, cp.bytes === 0 ? undefined : part[cp.bytes - 1])).toBe(true);
    expect(idsOfNdjson(part.subarray(0, cp.bytes).toString())).toHaveLength(cp.items);
  }
  expect(dir.read('out.ndjson').toString()).toBe(YESTERDAY);
  const r = await runInProcess(world, dir, [...ARGS(), '--resume']);
  expect(r.code).toBe(0);
  const ids = idsOfNdjson(dir.read('out.ndjson').toString());
  expect(ids).toHaveLength(60);
  expect(new Set(ids).size).toBe(60);
}

const CODES = [
  ['ENOSPC', 'no space left on the device'],
  ['EDQUOT', 'disk quota exceeded'],
  ['EFBIG', 'file too large'],
  ['EIO', 'input/output error'],
  ['EACCES', 'permission denied'],
  ['EROFS', 'read-only file system'],
] as const;

describe('write errors through an injected file system', () => {
  it.each(CODES)('%s writing the data after a few pages: exit 7, one line, checkpoint on disk, --resume completes', async (code, reason) => {
    const r = await runFailing({ code, paths: (p) => p.endsWith('.part'), afterBytes: 2500 });
    expect(r.code).toBe(7);
    expect(r.line).toBe(`collections: cannot write ${dir.file('out.ndjson.part')}: ${reason} (${code})`);
    expect(Object.keys(snapshot(dir.path)).filter((k) => !k.startsWith('out.ndjson.'))).toEqual(['out.ndjson']);
    expect(unhandled).toEqual([]);
    await expectResumable();
  });

  // A checkpoint per page (COLLECTIONS_CHECKPOINT_MS=0), so the second one falls mid-export.
  it.each(CODES)('%s writing a checkpoint after the first: exit 7, one line, the last checkpoint kept', async (code, reason) => {
    const r = await runFailing({ code, paths: (p) => p.endsWith('.tmp'), afterOpens: 1 }, { COLLECTIONS_CHECKPOINT_MS: '0' });
    expect(r.code).toBe(7);
    expect(r.line).toBe(`collections: cannot write the checkpoint ${dir.file('out.ndjson.checkpoint.json')}: ${reason} (${code})`);
    expect(Object.keys(snapshot(dir.path)).sort()).toEqual(['out.ndjson', 'out.ndjson.checkpoint.json', 'out.ndjson.part']);
    expect(unhandled).toEqual([]);
    await expectResumable();
  });

  it('EIO on the flush (fdatasync) of the data: exit 7, the checkpoint never counts the unflushed page', async () => {
    const r = await runFailing({ code: 'EIO', on: 'sync', paths: (p) => p.endsWith('.part') });
    expect(r.code).toBe(7);
    expect(r.line).toBe(`collections: cannot sync ${dir.file('out.ndjson.part')}: input/output error (EIO)`);
    expect(dir.has('out.ndjson.checkpoint.json')).toBe(false);
    expect(unhandled).toEqual([]);
    await expectResumable();
  });

  it('ENOSPC on the publishing rename: exit 7, yesterday’s file untouched', async () => {
    const r = await runFailing({ code: 'ENOSPC', on: 'rename', paths: (p) => p.endsWith('out.ndjson') });
    expect(r.code).toBe(7);
    expect(r.line).toBe(`collections: cannot rename the finished export onto ${dir.file('out.ndjson')}: no space left on the device (ENOSPC)`);
    expect(dir.read('out.ndjson').toString()).toBe(YESTERDAY);
    expect(unhandled).toEqual([]);
  });
});

describe.skipIf(process.platform === 'win32')('write errors for real: ulimit -f (EFBIG), SIGXFSZ ignored', () => {
  let served: ServedWorld;
  let spawnDir: TempDir;
  beforeAll(async () => {
    requireBuild();
    served = await serveWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 1500 } });
  });
  afterAll(() => served.close());
  beforeEach(() => {
    spawnDir = tempDir('collections-hostile-ulimit-');
    writeFileSync(spawnDir.file('out.ndjson'), YESTERDAY);
  });

  const command = (extra: string) =>
    `"${process.execPath}" "${BIN}" invoices --taxpayer ${served.taxpayer} --cursor --items-per-page 20 --quiet --base-url ${served.base} --out out.ndjson ${extra}`;

  // A checkpoint per page (COLLECTIONS_CHECKPOINT_MS=0): the limit is hit well within the first second.
  it('the data file hits the limit: exit 7, one line, checkpoint on disk; --resume without the limit completes', async () => {
    const env = { ...cliEnv(spawnDir), COLLECTIONS_CHECKPOINT_MS: '0' };
    const r = await runShell(`trap '' XFSZ; ulimit -f 64; exec ${command('')}`, { cwd: spawnDir.path, env });
    expect([r.code, r.signal], r.stderr).toEqual([7, null]);
    expect(r.stderr).toMatch(/^collections: cannot write \S+\/out\.ndjson\.part: file too large \(EFBIG\)\n$/);
    expect(readFileSync(spawnDir.file('out.ndjson'), 'utf8')).toBe(YESTERDAY);
    const cp = JSON.parse(spawnDir.read('out.ndjson.checkpoint.json').toString()) as Checkpoint;
    expect(cp.bytes).toBeLessThanOrEqual(statSync(spawnDir.file('out.ndjson.part')).size);
    expect(cp.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(Object.keys(snapshot(spawnDir.path)).sort()).toEqual(['out.ndjson', 'out.ndjson.checkpoint.json', 'out.ndjson.part']);
    const resumed = await runShell(`exec ${command('--resume')}`, { cwd: spawnDir.path, env: cliEnv(spawnDir) });
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = idsOfNdjson(spawnDir.read('out.ndjson').toString());
    expect(ids).toHaveLength(1500);
    expect(new Set(ids).size).toBe(1500);
  });
});
