/**
 * `--dry-run` runs the real run's checks before its first request, writing nothing, and exits with
 * the code the real run would (docs/progress.md, "Dry run"): each case runs the dry run, then the
 * real export, in process on the sandbox, and compares their exit codes and error lines.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockOutput } from '../../src/export/files/output-lock.js';
import { interruptAt, removeTempDirs, runInProcess, type InProcessOptions, useTempDir, useWorld } from '../helpers/world.js';

afterAll(removeTempDirs);

const world = useWorld({ sizes: { taxpayers: 3, invoicesPerTaxpayer: 30 } });
const dir = useTempDir();

/** Every path under the temp folder (files and folders, the config folder left out) with its size and mtime. */
function snapshot(): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const rel = relative(dir.path, path);
      if (rel === 'config') continue;
      const info = statSync(path);
      out.push(`${rel} ${info.isDirectory() ? 'dir' : info.size} ${info.mtimeMs}`);
      if (info.isDirectory()) walk(path);
    }
  };
  walk(dir.path);
  return out.sort();
}

const invoices = (...extra: string[]): string[] => ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '10', ...extra];

/** The line `collections: …` of an error on stderr. */
const errorLine = (stderr: string): string | undefined => stderr.split('\n').find((l) => l.startsWith('collections: ') && !l.includes('interrupted'));

/** How {@link predicts} compares: `stops` the dry run stops in the real run's checks (not at a usage error of the flags); `sameError` its error line is the real run's. */
interface Expect {
  stops?: boolean;
  sameError?: boolean;
}

/**
 * Runs `args` with `--dry-run`, checks it wrote nothing (and sent nothing when it stops), then runs
 * the real export and checks both exit with the same code and, on failure, the same error line.
 * @returns the dry run's exit code and output
 */
async function predicts(
  args: string[],
  options: InProcessOptions = {},
  { stops = true, sameError = true }: Expect = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const before = snapshot();
  const dry = await runInProcess(world, dir, [...args, '--dry-run'], options);
  expect(snapshot()).toEqual(before);
  if (dry.code !== 0) {
    expect(dry.requests).toEqual([]);
    expect(dry.stdout).toBe(stops ? `dry run: the export would stop before its first request (exit ${dry.code}); nothing was sent or written\n` : '');
  }
  const real = await runInProcess(world, dir, args, options);
  expect(dry.code, dry.stderr).toBe(real.code);
  if (dry.code !== 0 && sameError) expect(errorLine(dry.stderr)).toBe(errorLine(real.stderr));
  return dry;
}

describe('--dry-run exits as the real run would', () => {
  it('a checkpoint left by an interrupted run, without --resume: exit 2 with its message', async () => {
    const first = await runInProcess(world, dir, invoices('--out', 'inv.csv'), { ...interruptAt(2), stderrIsTTY: false });
    expect(first.code).toBe(130);
    const dry = await predicts(invoices('--out', 'inv.csv'));
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('has a checkpoint');
    expect(dry.stderr).toContain('use --resume to continue it, or --restart to start over');
  });

  it('--resume with other options than the checkpoint: exit 2', async () => {
    await runInProcess(world, dir, invoices('--out', 'inv.csv'), { ...interruptAt(2), stderrIsTTY: false });
    const dry = await predicts(invoices('--out', 'inv.csv', '--max-items', '15', '--resume'));
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain("--resume with different options than the interrupted export (its ≠ this run's): --max-items not given ≠ 15");
  });

  it('--resume with a partial file shorter than its checkpoint: exit 2', async () => {
    await runInProcess(world, dir, invoices('--out', 'inv.csv'), { ...interruptAt(3), stderrIsTTY: false });
    writeFileSync(dir.file('inv.csv.part'), 'id\n');
    expect((await predicts(invoices('--out', 'inv.csv', '--resume'))).code).toBe(2);
  });

  it('--resume to a device: exit 2', async () => {
    expect((await predicts(invoices('--out', '/dev/null', '--resume'))).code).toBe(2);
  });

  it('an output another export is writing: exit 7 naming it', async () => {
    const target = dir.file('inv.csv');
    const lock = await lockOutput(target, { now: () => Date.now(), note: () => undefined });
    try {
      const dry = await predicts(invoices('--out', 'inv.csv'));
      expect(dry.code).toBe(7);
      expect(dry.stderr).toContain(`another export is writing ${target} (pid ${process.pid}`);
    } finally {
      await lock.release();
    }
  });

  it('a file where the output, the --state file or a template needs a folder: exit 7', async () => {
    writeFileSync(dir.file('blocked'), 'not a folder');
    expect((await predicts(invoices('--out', 'blocked/inv.csv'))).code).toBe(7);
    // The state file is read while planning: a file in its way stops both there, before the checks.
    expect((await predicts(invoices('--out', 'inv.csv', '--state', 'blocked/state.json'), {}, { stops: false })).code).toBe(7);
    expect((await predicts(invoices('--out', 'blocked/{taxpayer}.csv'))).code).toBe(7);
  });

  it('an output that is a folder: exit 7', async () => {
    expect((await predicts(invoices('--out', 'config'))).code).toBe(7);
  });

  it('a bad COLLECTIONS_CHECKPOINT_MS, gzip to a terminal: exit 2', async () => {
    expect((await predicts(invoices('--out', 'inv.csv'), { env: { COLLECTIONS_CHECKPOINT_MS: 'soon' } })).code).toBe(2);
    expect((await predicts(invoices('--compress', 'gzip'), { stdoutIsTTY: true }, { stops: false })).code).toBe(2);
  });

  it('--restart with a checkpoint left, --resume with one: exit 0, saying what it would do with it', async () => {
    await runInProcess(world, dir, invoices('--out', 'inv.csv'), { ...interruptAt(2), stderrIsTTY: false });
    const before = snapshot();
    const resume = await runInProcess(world, dir, [...invoices('--out', 'inv.csv', '--resume'), '--dry-run']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toContain(`checkpoint: ${dir.file('inv.csv.checkpoint.json')} (--resume continues after 10 items, 1 page)\n`);
    expect(resume.stdout).toMatch(/^items: +30 \(10 written before\)$/m);
    expect(resume.stdout).toMatch(/^pages: +2 of 10 items to go$/m);
    const restart = await runInProcess(world, dir, [...invoices('--out', 'inv.csv', '--restart'), '--dry-run']);
    expect(restart.code, restart.stderr).toBe(0);
    expect(restart.stdout).toContain(`checkpoint: ${dir.file('inv.csv.checkpoint.json')} (--restart discards it)\n`);
    expect(snapshot()).toEqual(before);
  });

  it('an --out template whose folders are missing: exit 0, naming the folders it would create', async () => {
    const dry = await predicts(invoices('--out', 'out/{taxpayer}/inv.csv'));
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      `folders:    ${dir.file('out')} (would be created)\n            ${dir.file(`out/${world.taxpayer}`)} (would be created)\n`,
    );
  });
});

describe('--dry-run of an --out whose folder is missing', () => {
  it('names the folder it would create and exits 0; nothing is made', async () => {
    const dry = await runInProcess(world, dir, [...invoices('--out', 'dry/invoices.csv'), '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`folders:    ${dir.file('dry')} (would be created)\n`);
    expect(snapshot()).toEqual([]);
  });
});

describe('--dry-run of a run with many taxpayers exits as the run would', () => {
  it('a taxpayer with a checkpoint left is named with its exit 2; the others are planned; nothing is written', async () => {
    const [a, b] = world.sandbox.taxpayers();
    const out = ['--out', 'out/{taxpayer}.csv', '--items-per-page', '10'];
    const first = await runInProcess(world, dir, ['invoices', '--taxpayer', a!, ...out], { ...interruptAt(2), stderrIsTTY: false });
    expect(first.code).toBe(130);
    const before = snapshot();
    const dry = await runInProcess(world, dir, ['invoices', '--taxpayer', `${a},${b}`, ...out, '--dry-run']);
    expect(snapshot()).toEqual(before);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toMatch(new RegExp(`^${a}: GET .+ \\(would fail, exit 2: an interrupted export of .+ has a checkpoint .+\\)$`, 'm'));
    expect(dry.stdout).toMatch(new RegExp(`^${b}: GET .+ \\(30 items, 3 pages\\)$`, 'm'));
    expect(dry.stdout.split('\n')[0]).toBe('dry run: nothing was written; 1 request (itemsPerPage=1) was sent, one per taxpayer');
    const real = await runInProcess(world, dir, ['invoices', '--taxpayer', `${a},${b}`, ...out]);
    expect(real.code).toBe(2);
  });

  it('with --resume: a taxpayer finished earlier has nothing to do, one with a checkpoint continues', async () => {
    const [a, b] = world.sandbox.taxpayers();
    const out = ['--out', 'out/{taxpayer}.csv', '--items-per-page', '10'];
    expect((await runInProcess(world, dir, ['invoices', '--taxpayer', a!, ...out])).code).toBe(0);
    await runInProcess(world, dir, ['invoices', '--taxpayer', b!, ...out], { ...interruptAt(2), stderrIsTTY: false });
    const dry = await runInProcess(world, dir, ['invoices', '--taxpayer', `${a},${b}`, ...out, '--resume', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^${a}: GET .+ \\(done earlier, nothing to do\\)$`, 'm'));
    expect(dry.stdout).toMatch(new RegExp(`^${b}: GET .+ \\(30 items, 10 written before: 2 pages to go\\)$`, 'm'));
  });

  it('a folder that cannot be made stops the whole run: exit 7, no request', async () => {
    writeFileSync(dir.file('out'), 'not a folder');
    const dry = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.sandbox.taxpayers().slice(0, 2).join(','),
      '--out',
      'out/{taxpayer}.csv',
      '--dry-run',
    ]);
    expect(dry.code).toBe(7);
    expect(dry.requests).toEqual([]);
    const real = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.sandbox.taxpayers().slice(0, 2).join(','),
      '--out',
      'out/{taxpayer}.csv',
    ]);
    expect(real.code).toBe(7);
  });
});
