/**
 * No `F.lock` is left behind, however an export ends (docs/files.md, "Files, checkpoints and `--resume`"):
 * exit 0, SIGINT, SIGTERM, a write error, retries given up on a refused connection, a short run with
 * many taxpayers and `--dry-run`. Each run lasts longer than proper-lockfile's first refreshes of the
 * lock (a served sandbox answering after 800 ms), where a lock taken for compromised used to stay.
 * The runs go at once, each in its own folder; only the checkpoint and the partial file stay where
 * an export is meant to be resumed.
 */
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planExport } from '../../src/export/plan/plan.js';
import { toExitCode } from '../../src/errors.js';
import { runExport } from '../../src/export/run/run.js';
import { exportServices } from '../../src/export/run/services.js';

import { failingFs } from '../helpers/failing-fs.js';
import { requireBuild, runCli } from '../helpers/cli.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, worldContext, type ServedWorld, type TempDir } from '../helpers/world.js';
import { runAndSignal } from './spawn.js';

let world: ServedWorld | undefined;

beforeAll(async () => {
  requireBuild();
  // 7 requests of 10 items a taxpayer (the last page is empty), each answered after 800 ms: ~6 s.
  world = await serveWorld({ latencyMs: 800, sizes: { taxpayers: 2, invoicesPerTaxpayer: 60 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

/** The files an export left in `dir`, without the config and cache folders of the spawned runs. */
const left = (dir: TempDir): string[] =>
  readdirSync(dir.path)
    .filter((name) => name !== 'config' && name !== 'cache')
    .sort();

/** A loopback port nothing listens on (bound, then closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A folder and the spawned environment of one run. */
function folder() {
  const dir = tempDir('collections-lock-release-');
  return { dir, env: cliEnv(dir, { COLLECTIONS_CACHE_DIR: dir.file('cache') }) };
}

/** A write error after the first pages, in process (the file system is injected) against the served sandbox. */
async function writeError(w: ServedWorld): Promise<{ code: number; files: string[] }> {
  const { dir } = folder();
  const flags = { taxpayer: w.taxpayer, cursor: true, itemsPerPage: 10, out: 'out.ndjson', quiet: true };
  const plan = planExport({
    command: 'invoices',
    options: flags,
    settings: { apiKey: w.key, baseUrl: new URL(w.base), defaults: {} },
    cwd: dir.path,
    resumeCommand: 'collections invoices',
  });
  const { t } = worldContext(w, dir, { env: { COLLECTIONS_CHECKPOINT_MS: '0' } });
  const fs = failingFs({ code: 'ENOSPC', paths: (p) => p.endsWith('.part'), afterBytes: 40_000 });
  const error = await runExport(plan, t.ctx, exportServices(plan, t.ctx, { fs })).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { code: toExitCode(error), files: left(dir) };
}

describe('the output lock is removed on every exit path', () => {
  it('0, SIGINT, SIGTERM, a write error, connection refused, many taxpayers, --dry-run: no *.lock left', { timeout: 45_000 }, async () => {
    const w = world!;
    const args = ['invoices', '--taxpayer', w.taxpayer, '--cursor', '--items-per-page', '10', '--base-url', w.server.url];
    const spawn = async (extra: string[], base = args) => {
      const { dir, env } = folder();
      const r = await runCli([...base, ...extra], { cwd: dir.path, env });
      return { code: r.code, stderr: r.stderr, files: left(dir) };
    };
    const signalled = async (signal: NodeJS.Signals) => {
      const { dir, env } = folder();
      const r = await runAndSignal([...args, '--out', 'out.ndjson'], { cwd: dir.path, env, signal, afterResponses: 6 });
      return { code: r.code, stderr: r.stderr, files: left(dir) };
    };
    const refusedBase = ['invoices', '--taxpayer', w.taxpayer, '--cursor', '--base-url', `http://127.0.0.1:${await closedPort()}`];
    const taxpayers = w.sandbox.taxpayers();
    const [done, sigint, sigterm, written, refused, many, dry] = await Promise.all([
      spawn(['--out', 'out.ndjson']),
      signalled('SIGINT'),
      signalled('SIGTERM'),
      writeError(w),
      spawn(['--out', 'out.ndjson', '--retries', '3'], refusedBase),
      spawn(['--taxpayer', taxpayers.join(','), '--parallel', '2', '--out', '{taxpayer}.ndjson'], ['invoices', ...args.slice(3)]),
      spawn(['--out', 'out.ndjson', '--dry-run']),
    ]);

    expect(done.code, done.stderr).toBe(0);
    expect(done.files).toEqual(['out.ndjson', 'out.ndjson.manifest.json']);
    expect(sigint.code, sigint.stderr).toBe(130);
    expect(sigint.files).toEqual(['out.ndjson.checkpoint.json', 'out.ndjson.part']);
    expect(sigterm.code, sigterm.stderr).toBe(143);
    expect(sigterm.files).toEqual(['out.ndjson.checkpoint.json', 'out.ndjson.part']);
    expect(written.code).toBe(7);
    expect(written.files).toEqual(['out.ndjson.checkpoint.json', 'out.ndjson.part']);
    expect(refused.code, refused.stderr).toBe(6);
    expect(refused.files).toEqual([]);
    expect(many.code, many.stderr).toBe(0);
    expect(many.files.filter((f) => !f.endsWith('.manifest.json'))).toEqual(taxpayers.map((tp) => `${tp}.ndjson`).sort());
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.files).toEqual([]);
  });
});
