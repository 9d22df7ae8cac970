/**
 * SIGINT, SIGTERM and SIGKILL sent to a real export (the built bin, a separate process) of the
 * sandbox served on 127.0.0.1, then `--resume`: the finished file is byte-identical to a clean run.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/app.js';
import type { RunningServer } from '../../src/sandbox/server.js';
import { BIN, requireBuild, runCli, runShell } from '../helpers/cli.js';
import { CANARY, canaryFree, cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';
import { checkpointPages, referenceExport, runAndSignal, runAndSignalAtCheckpoint } from './spawn.js';

let world: ServedWorld | undefined;
let sandbox: Sandbox;
let server: RunningServer;
let dir: TempDir;
let taxpayer: string;
const references = new Map<string, Buffer>();

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  // 120 invoices, 12 pages of 10, 40 ms each: slow enough to pick a page (and for a kill to land
  // before the end even on a loaded machine), fast enough to finish.
  world = await serveWorld({ latencyMs: 40, sizes: { taxpayers: 1, invoicesPerTaxpayer: 120, entities: 25 } });
  ({ sandbox, server, taxpayer } = world);
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

const YESTERDAY = 'yesterday\n';

/** The export of `format` in `mode`, without `--out`. */
function exportArgs(mode: 'cursor' | 'offset'): string[] {
  return mode === 'cursor'
    ? ['invoices', '--taxpayer', taxpayer, '--cursor', '--items-per-page', '10']
    : ['invoices', '--taxpayer', taxpayer, '--items-per-page', '10', '--concurrency', '3'];
}

async function reference(mode: 'cursor' | 'offset', ext: string): Promise<Buffer> {
  const key = `${mode}.${ext}`;
  if (!references.has(key)) references.set(key, await referenceExport(world!, dir, exportArgs(mode), `ref-${mode}.${ext}`));
  return references.get(key)!;
}

describe.each([
  ['ndjson', 'cursor', 'SIGINT', 130, 3],
  ['json', 'cursor', 'SIGTERM', 143, 5],
  ['csv', 'cursor', 'SIGINT', 130, 2],
  ['ndjson', 'offset', 'SIGTERM', 143, 4],
  ['csv', 'offset', 'SIGINT', 130, 6],
] as const)('%s, %s mode, %s (exit %i) after %i responses', (ext, mode, signal, code, after) => {
  it(`exits ${code} with a checkpoint and a resume hint; --resume finishes a byte-identical file`, async () => {
    const out = `${mode}-${signal}.${ext}`;
    writeFileSync(dir.file(out), YESTERDAY);
    const args = [...exportArgs(mode), '--out', out, '--base-url', server.url];
    // SIGINT runs pass the key as a flag (the hint must drop it); SIGTERM runs take it from the environment.
    const keyArgs = signal === 'SIGINT' ? ['--api-key', CANARY] : [];
    const env = cliEnv(dir, signal === 'SIGINT' ? { COLLECTIONS_API_KEY: undefined } : {});
    const expected = await reference(mode, ext);
    const r = await runAndSignal([...args, ...keyArgs], { cwd: dir.path, env, signal, afterResponses: after });

    expect(r.code).toBe(code);
    expect(r.signal).toBeNull();
    const lines = r.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => !/^GET /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^collections: interrupted by ${signal}; checkpoint kept; resume with: collections .*--out ${out.replace('.', '\\.')} .*--resume$`),
    );
    expect(canaryFree(r.stderr)).toBe(true);
    expect(dir.read(out).toString()).toBe(YESTERDAY);
    expect(dir.has(`${out}.part`)).toBe(true);
    const checkpoint = JSON.parse(dir.read(`${out}.checkpoint.json`).toString()) as { pages: number; items: number; bytes: number; next: string };
    expect(checkpoint.pages).toBeGreaterThanOrEqual(1);
    expect(checkpoint.pages).toBeLessThan(12);
    expect(checkpoint.items).toBe(checkpoint.pages * 10);
    expect(canaryFree(dir.read(`${out}.checkpoint.json`))).toBe(true);

    // Resume exactly as the hint says (the key comes from the environment there).
    const hint = lines[0]!.replace(/^.*resume with: /, '');
    const requestsBefore = sandbox.requests().length;
    const resumed = await runShell(hint.replace(/^collections /, `"${process.execPath}" "${BIN}" `), { cwd: dir.path, env: cliEnv(dir) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`^collections: resuming after ${checkpoint.items} items \\(${checkpoint.pages} pages\\)$`, 'm'));
    expect(resumed.stderr).toMatch(/^collections: 120 items to .* \(\d+ requests?, 0 retries, no rate-limit waits\)$/m);
    expect(dir.read(out).equals(expected)).toBe(true);
    expect(dir.has(`${out}.part`) || dir.has(`${out}.checkpoint.json`)).toBe(false);
    // The resume fetched only what was missing: in cursor mode exactly the pages after the
    // checkpoint and the empty page that ends the chain (the sandbox's default, API Platform
    // ≥ 4.3.5, links on from the last item's page); in offset mode at most `--concurrency` more
    // (pages already in flight at the end).
    const spent = sandbox.requests().length - requestsBefore;
    if (mode === 'cursor') expect(spent).toBe(12 + 1 - checkpoint.pages);
    else expect(spent).toBeLessThanOrEqual(12 - checkpoint.pages + 3);
  });
});

describe('SIGKILL at any moment', () => {
  it.each(['csv', 'json', 'ndjson'])('a chain of kills and resumes of a %s export ends byte-identical', async (ext) => {
    const out = `killed.${ext}`;
    const args = [...exportArgs('cursor'), '--out', out, '--base-url', server.url];
    const checkpoint = dir.file(`${out}.checkpoint.json`);
    // First a kill 1 ms after spawning (nothing written yet), then kills a few ms after the
    // checkpoint reaches 2, 4 and 7 of the 12 pages: mid-write, between the write and its
    // checkpoint, mid-request. Whatever each kill leaves, --resume must complete it exactly.
    const early = await runAndSignal(args, { cwd: dir.path, env: cliEnv(dir), signal: 'SIGKILL', afterResponses: 0, delayMs: 1 });
    expect(early.signal).toBe('SIGKILL');
    const moments: Array<[number, number]> = [
      [2, 0],
      [4, 7],
      [7, 17],
    ];
    let resumeNext = checkpointPages(checkpoint) > 0;
    for (const [pages, delayMs] of moments) {
      const r = await runAndSignalAtCheckpoint([...args, ...(resumeNext ? ['--resume'] : [])], {
        cwd: dir.path,
        // Checkpoints every 100 ms (about every 3 pages of 40 ms) rather than every second.
        env: cliEnv(dir, { COLLECTIONS_CHECKPOINT_MS: '100' }),
        signal: 'SIGKILL',
        checkpoint,
        pages,
        delayMs,
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      expect(checkpointPages(checkpoint)).toBeGreaterThanOrEqual(pages);
      resumeNext = true;
    }
    const done = await runCli([...args, '--resume'], { cwd: dir.path, env: cliEnv(dir) });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/^collections: resuming after \d+ items/m);
    expect(dir.read(out).equals(await reference('cursor', ext))).toBe(true);
    expect(dir.has(`${out}.part`) || dir.has(`${out}.checkpoint.json`)).toBe(false);
  });

  it('--resume with no checkpoint (killed before the first page) starts afresh with a note', async () => {
    const out = 'never.ndjson';
    const r = await runCli([...exportArgs('cursor'), '--out', out, '--base-url', server.url, '--resume'], { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^collections: no checkpoint for .*never\.ndjson; starting afresh$/m);
    expect(dir.read(out).equals(await reference('cursor', 'ndjson'))).toBe(true);
  });
});
