/**
 * The shell scripts of docs/nightly-sync.md, whole, as cron would run them: `sh` with `collections`
 * being the built bin, against a sandbox served on 127.0.0.1. test/integration/docs-examples.test.ts
 * runs each of their `collections` lines; this runs their shell too (the `run` function, the retry
 * loop, `verify`, the exit code they end with). Their `/data` is a temp folder, and `sleep` returns
 * at once (it only runs between retries). The nightly job runs twice in a row too (issue 27: the
 * script of one folder a day lost the first run's items to the second).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, runCommand } from '../helpers/cli.js';
import { docBlocks } from '../helpers/doc-examples.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scripts = docBlocks(ROOT, 'docs/nightly-sync.md').filter((b) => b.body[0] === '#!/bin/sh');
/** The nightly job's script (it reads `clients.txt`) and the one-taxpayer cron script. */
const nightly = scripts.find((b) => b.body.some((l) => l.includes('--taxpayers-file clients.txt')));
const cron = scripts.find((b) => b.body.some((l) => l.includes('--out /data/invoices.csv')));

/** The nightly job as docs/nightly-sync.md had it before issue 27: one folder a day. */
const ONE_FOLDER_A_DAY = `#!/bin/sh
set -u
cd /data || exit 1
DAY=$(date -u +%F)
run() {
  collections invoices --taxpayers-file clients.txt --out "exports/$DAY/{taxpayer}/invoices.ndjson" \\
    --state state.json --manifest "exports/$DAY/manifest.json" --parallel 4 --max-wait 900 --quiet "$@"
}
run
code=$?
tries=0
while [ $tries -lt 3 ]; do
  case $code in 5|6|130|143) ;; *) break ;; esac
  tries=$((tries + 1))
  sleep 300
  run --resume
  code=$?
done
collections verify "exports/$DAY/manifest.json" || [ $code -ne 0 ] || code=8
exit $code`.split('\n');

let world: ServedWorld | undefined;
beforeAll(async () => {
  requireBuild();
  world = await serveWorld({ sizes: { taxpayers: 3, invoicesPerTaxpayer: 20 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

/**
 * Runs a script of the page with `sh`, its `/data` moved to `dir/data`. With `pidFile`, each
 * `collections` runs in the background and writes its pid there, then is waited for (its exit code
 * is the one `wait` returns), so a test can signal it.
 */
function runScript(lines: string[], dir: TempDir, env: Record<string, string> = {}, pidFile?: string): ReturnType<typeof runCommand> {
  const data = dir.file('data');
  const call = `"${process.execPath}" "${BIN}" "$@"`;
  const prologue = [pidFile ? `collections() { ${call} & echo $! > "${pidFile}"; wait $!; }` : `collections() { ${call}; }`, 'sleep() { :; }'];
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
    const [run] = readdirSync(dir.file('data/exports'));
    expect(run).toMatch(/^\d{8}T\d{6}Z$/);
    expect(readdirSync(dir.file(`data/exports/${run!}`)).sort()).toEqual([...world!.sandbox.taxpayers(), 'manifest.json'].sort());
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

  /** The invoice ids of an NDJSON file. */
  const idsIn = (path: string): string[] =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => String((JSON.parse(l) as { id: unknown }).id));
  /** Every file under `data/exports` with its bytes, by path. */
  const exported = (dir: TempDir): Map<string, string> => {
    const files = new Map<string, string>();
    const walk = (rel: string): void => {
      for (const name of readdirSync(dir.file(rel), { withFileTypes: true })) {
        if (name.isDirectory()) walk(`${rel}/${name.name}`);
        else files.set(`${rel}/${name.name}`, readFileSync(dir.file(`${rel}/${name.name}`), 'latin1'));
      }
    };
    walk('data/exports');
    return files;
  };
  /** `date -u +%Y%m%dT%H%M%SZ` now. */
  const stampNow = (): string => new Date().toISOString().replace(/[-:]|\.\d+/g, '');

  it('the nightly job run twice in a row: the second run writes beside the first, and every item of the first is still on disk', async () => {
    const dir = tempDir('collections-nightly-');
    mkdirSync(dir.file('data'));
    const taxpayers = world!.sandbox.taxpayers();
    writeFileSync(dir.file('data/clients.txt'), `${taxpayers.join('\n')}\n`);
    const first = await runScript(nightly!.body, dir);
    expect(first.code, first.stderr).toBe(0);
    const firstFiles = exported(dir);
    const [firstRun] = readdirSync(dir.file('data/exports'));
    const firstIds = new Map(taxpayers.map((t) => [t, idsIn(dir.file(`data/exports/${firstRun!}/${t}/invoices.ndjson`))]));
    for (const t of taxpayers) expect(firstIds.get(t)).toHaveLength(world!.sandbox.invoiceIds(t).length);
    // Changes between the runs, and a second run within the same day: the folder is named to the
    // second, so wait for the next one (the only wall-clock wait here: the script reads `date`).
    const inserted = new Map(taxpayers.map((t) => [t, world!.sandbox.insert(`/taxpayers/${t}/invoices`, 2)]));
    while (stampNow() === firstRun) await new Promise((r) => setTimeout(r, 20));

    const second = await runScript(nightly!.body, dir);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength(taxpayers.length);
    // The first run's files, byte for byte (one folder a day, they held the second run's delta alone).
    const after = exported(dir);
    for (const [path, bytes] of firstFiles) expect(after.get(path), path).toBe(bytes);
    const runs = readdirSync(dir.file('data/exports')).sort();
    expect(runs).toEqual([firstRun, expect.stringMatching(/^\d{8}T\d{6}Z$/)]);
    for (const t of taxpayers) {
      const delta = idsIn(dir.file(`data/exports/${runs[1]!}/${t}/invoices.ndjson`));
      expect(delta).toEqual(expect.arrayContaining(inserted.get(t)!));
      // Nothing lost: every invoice the sandbox holds is in one of the two runs.
      expect(new Set([...firstIds.get(t)!, ...delta])).toEqual(new Set(world!.sandbox.invoiceIds(t)));
    }
  });

  it('the nightly job as it was (one folder a day), run twice: the second run now stops (exit 2) and the first run keeps every item', async () => {
    const dir = tempDir('collections-nightly-');
    mkdirSync(dir.file('data'));
    const taxpayers = world!.sandbox.taxpayers();
    writeFileSync(dir.file('data/clients.txt'), `${taxpayers.join('\n')}\n`);
    expect((await runScript(ONE_FOLDER_A_DAY, dir)).code).toBe(0);
    const firstFiles = exported(dir);
    const state = readFileSync(dir.file('data/state.json'), 'utf8');
    world!.sandbox.insert(`/taxpayers/${taxpayers[0]!}/invoices`, 1);

    const second = await runScript(ONE_FOLDER_A_DAY, dir);
    // Before issue 27 this run exited 0 and left every file with the delta alone (0 items), while
    // the watermark moved past the items it dropped.
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/holds a full export \(its manifest says so\); this export asks only for what changed since /);
    expect(exported(dir)).toEqual(firstFiles);
    for (const [path] of firstFiles) if (path.endsWith('.ndjson')) expect(idsIn(dir.file(path)).length, path).toBeGreaterThan(0);
    expect(readFileSync(dir.file('data/state.json'), 'utf8')).toBe(state);
  });

  it('the cron script ends with the export code when the export is interrupted (143), not 0', async () => {
    const dir = tempDir('collections-cron-');
    mkdirSync(dir.file('data'));
    const pidFile = dir.file('collections.pid');
    const seen = world!.sandbox.requests().length;
    // Every request hangs, so the export is still running when SIGTERM comes.
    world!.sandbox.setFaults('hang');
    const timer = setInterval(() => {
      if (!existsSync(pidFile) || world!.sandbox.requests().length === seen) return;
      clearInterval(timer);
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    }, 10);
    try {
      const r = await runScript(cron!.body, dir, { RFC: world!.taxpayer }, pidFile);
      expect(r.code).toBe(143);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('incomplete; the checkpoint is kept');
    } finally {
      clearInterval(timer);
      world!.sandbox.setFaults([]);
    }
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
