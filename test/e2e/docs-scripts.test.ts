/**
 * The shell scripts of docs/nightly-sync.md, whole, as cron would run them: `sh` with `collections`
 * being the built bin, against a sandbox served on 127.0.0.1. test/integration/docs-examples.test.ts
 * runs each of their `collections` lines; this runs their shell too (the `run` function, the retry
 * loop, `verify`, the exit code they end with). Their `/data` is a temp folder, and `sleep` returns
 * at once (it only runs between retries).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, runCommand } from '../helpers/cli.js';
import { docBlocks } from '../helpers/doc-examples.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scripts = docBlocks(ROOT, 'docs/nightly-sync.md').filter((b) => b.body[0] === '#!/bin/sh');
/** The nightly job's script (it reads `clients.txt`) and the one-taxpayer cron script. */
const nightly = scripts.find((b) => b.body.some((l) => l.includes('--taxpayers-file clients.txt')));
const cron = scripts.find((b) => b.body.some((l) => l.includes('case $? in')));

let world: ServedWorld | undefined;
beforeAll(async () => {
  requireBuild();
  world = await serveWorld({ sizes: { taxpayers: 3, invoicesPerTaxpayer: 20 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

/** Runs a script of the page with `sh`, its `/data` moved to `dir/data`. */
function runScript(lines: string[], dir: TempDir, env: Record<string, string> = {}): ReturnType<typeof runCommand> {
  const data = dir.file('data');
  const prologue = [`collections() { "${process.execPath}" "${BIN}" "$@"; }`, 'sleep() { :; }'];
  const body = lines.map((l) => l.replaceAll('/data', data));
  return runCommand('sh', ['-c', [...prologue, ...body].join('\n')], {
    cwd: dir.path,
    env: cliEnv(dir, { COLLECTIONS_BASE_URL: world!.base, COLLECTIONS_API_KEY: world!.key, ...env }),
  });
}

describe('the scripts of docs/nightly-sync.md', () => {
  it('finds both scripts on the page', () => {
    expect(nightly).toBeDefined();
    expect(cron).toBeDefined();
  });

  it('the nightly job exports every taxpayer of clients.txt, verifies the night and exits 0', async () => {
    const dir = tempDir('collections-nightly-');
    mkdirSync(dir.file('data'));
    writeFileSync(dir.file('data/clients.txt'), `# clients\n${world!.sandbox.taxpayers().join('\n')}\n`);
    const r = await runScript(nightly!.body, dir);
    expect(r.code, r.stderr).toBe(0);
    const [day] = readdirSync(dir.file('data/exports'));
    expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(readdirSync(dir.file(`data/exports/${day!}`)).sort()).toEqual([...world!.sandbox.taxpayers(), 'manifest.json'].sort());
    // The verify at the end of the script printed one `ok` line per output.
    expect(r.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength(3);
    expect(dir.has('data/state.json')).toBe(true);
  });

  it("the nightly job keeps the export's exit code when a taxpayer is unknown (4: no retry, verify still runs)", async () => {
    const dir = tempDir('collections-nightly-');
    mkdirSync(dir.file('data'));
    writeFileSync(dir.file('data/clients.txt'), `${world!.taxpayer}\nXAXX010101000\n`);
    const r = await runScript(nightly!.body, dir);
    expect(r.code).toBe(4);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength(1);
  });

  it('the cron script says the export is complete and where', async () => {
    const dir = tempDir('collections-cron-');
    mkdirSync(dir.file('data'));
    const r = await runScript(cron!.body, dir, { RFC: world!.taxpayer });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`complete: ${dir.file('data')}/invoices.csv\n`);
    expect(dir.has('data/invoices.csv')).toBe(true);
  });
});
