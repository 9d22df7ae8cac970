/**
 * Issue 11, item 2: files opened safely. A symlink at `F.part` or at the checkpoint is refused
 * (the file it points to untouched); only a regular file of this user is emptied; an `--out` that
 * is a device or a FIFO is written straight through, and a signal stops the wait for a FIFO's reader.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordHostile } from '../faults/harness.js';
import {
  cliEnv,
  idsOfNdjson,
  removeTempDirs,
  runInProcess,
  serveWorld,
  tempDir,
  type ServedWorld,
  type TempDir,
  interruptAt,
  useTempDir,
  useWorld,
} from '../helpers/world.js';
import { requireBuild, runCli, runShell, BIN } from '../helpers/cli.js';
import { snapshot } from './snapshot.js';

/**
 * Sends `signal` once the CLI is idle, waiting for the FIFO's reader (its CPU time, utime + stime in
 * /proc/PID/stat, has not moved for 500 ms), so a loaded machine's slow start-up cannot make the
 * default action kill it before it listens for signals (exit code null); after 20 s it is sent anyway.
 */
function killWhenIdle(child: ChildProcess, signal: 'SIGTERM' | 'SIGINT'): void {
  const started = Date.now();
  const ticks: number[] = [];
  const poll = (): void => {
    let cpu: number;
    try {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpu = Number(fields[11]) + Number(fields[12]);
    } catch {
      return;
    }
    ticks.push(cpu);
    const idle = ticks.length >= 3 && ticks.at(-1) === ticks.at(-3);
    if (idle || Date.now() - started > 20_000) child.kill(signal);
    else setTimeout(poll, 250);
  };
  setTimeout(poll, 250);
}

const world = useWorld();
const dir = useTempDir('collections-hostile-files-');
let outside: TempDir;
const YESTERDAY = '{"id":"yesterday"}\n';
const SECRET = 'precious file the tool did not create\n';

beforeEach(() => {
  outside = tempDir('collections-hostile-outside-');
  writeFileSync(dir.file('out.ndjson'), YESTERDAY);
  writeFileSync(outside.file('precious'), SECRET);
});
afterAll(removeTempDirs);

/** Whether the file outside the output's folder is as it was (for the report). */
const targetKept = () => (readFileSync(outside.file('precious'), 'utf8') === SECRET ? 'untouched' : 'changed');
/** Whether yesterday's file is still there as it was (for the report). */
const kept = () => (dir.has('out.ndjson') && dir.read('out.ndjson').toString() === YESTERDAY ? 'kept' : 'changed');

const args = () => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', 'out.ndjson'];

describe('F.part and the checkpoint are never written through a link', () => {
  it('a symlink at F.part is refused: exit 7, nothing sent, the file it points to untouched', async () => {
    symlinkSync(outside.file('precious'), dir.file('out.ndjson.part'));
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, args());
    recordHostile({ exit: r.code, message: r.lines.join(' / '), files: `target ${targetKept()}`, output: `yesterday’s file ${kept()}` });
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: refusing to write \S+\/out\.ndjson\.part: it is a symbolic link$/)]);
    expect(r.requests).toHaveLength(0);
    expect(readFileSync(outside.file('precious'), 'utf8')).toBe(SECRET);
    expect(snapshot(dir.path)).toEqual(before);
  });

  it('a hard link at F.part is refused: exit 7, the other name untouched', async () => {
    linkSync(outside.file('precious'), dir.file('out.ndjson.part'));
    const r = await runInProcess(world, dir, args());
    recordHostile({ exit: r.code, message: r.lines.join(' / '), files: `other name ${targetKept()}`, output: `yesterday’s file ${kept()}` });
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: refusing to write \S+\/out\.ndjson\.part: it has other hard links$/)]);
    expect(r.requests).toHaveLength(0);
    expect(readFileSync(outside.file('precious'), 'utf8')).toBe(SECRET);
    expect(dir.read('out.ndjson').toString()).toBe(YESTERDAY);
  });

  it('a regular F.part left by an earlier run (no checkpoint) is emptied and replaced: exit 0, complete', async () => {
    writeFileSync(dir.file('out.ndjson.part'), '{"id":"half"}\n{"id":"of an ear');
    const r = await runInProcess(world, dir, args());
    expect(r.code).toBe(0);
    const ids = idsOfNdjson(dir.read('out.ndjson').toString());
    expect(ids).toHaveLength(60);
    expect(ids).not.toContain('half');
    expect(dir.has('out.ndjson.part')).toBe(false);
  });

  it('a symlink at F.part on --resume is refused: exit 7, checkpoint and target untouched', async () => {
    const first = await runInProcess(world, dir, args(), interruptAt(3));
    expect(first.code).toBe(130);
    writeFileSync(outside.file('precious'), dir.read('out.ndjson.part'));
    const { rmSync } = await import('node:fs');
    rmSync(dir.file('out.ndjson.part'));
    symlinkSync(outside.file('precious'), dir.file('out.ndjson.part'));
    const precious = readFileSync(outside.file('precious'));
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: refusing to write \S+\/out\.ndjson\.part: it is a symbolic link$/)]);
    expect(r.requests).toHaveLength(0);
    expect(readFileSync(outside.file('precious')).equals(precious)).toBe(true);
    expect(snapshot(dir.path)).toEqual(before);
  });

  it('a symlink as the checkpoint on --resume is refused (exit 2), nothing sent', async () => {
    writeFileSync(dir.file('out.ndjson.part'), '');
    symlinkSync(outside.file('precious'), dir.file('out.ndjson.checkpoint.json'));
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      expect.stringMatching(/^collections: the checkpoint \S+\/out\.ndjson\.checkpoint\.json is a symbolic link; refusing to read it$/),
    ]);
    expect(r.requests).toHaveLength(0);
    expect(snapshot(dir.path)).toEqual(before);
    expect(readFileSync(outside.file('precious'), 'utf8')).toBe(SECRET);
  });

  it('checkpoints are written through random temp names: planted links at old or guessable names stay unfollowed', async () => {
    symlinkSync(outside.file('precious'), dir.file('out.ndjson.checkpoint.json.tmp'));
    const r = await runInProcess(world, dir, args());
    expect(r.code).toBe(0);
    expect(readFileSync(outside.file('precious'), 'utf8')).toBe(SECRET);
    expect(idsOfNdjson(dir.read('out.ndjson').toString())).toHaveLength(60);
    expect(Object.keys(snapshot(dir.path)).sort()).toEqual(['out.ndjson', 'out.ndjson.checkpoint.json.tmp', 'out.ndjson.manifest.json']);
  });
});

describe('an --out that is not a regular file is written straight through', () => {
  it('/dev/null: exit 0, still a device, no sidecar, checkpoint or lock beside it', async () => {
    const r = await runInProcess(world, dir, [...args().slice(0, -1), '/dev/null']);
    expect(r.code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(existsSync('/dev/null.part') || existsSync('/dev/null.checkpoint.json') || existsSync('/dev/null.lock')).toBe(false);
  });

  it('--resume to a device is a usage error (exit 2), nothing sent', async () => {
    const r = await runInProcess(world, dir, [...args().slice(0, -1), '/dev/null', '--resume']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([expect.stringMatching(/^collections: --resume needs a regular file; \/dev\/null is a FIFO or device/)]);
    expect(r.requests).toHaveLength(0);
  });
});

describe.skipIf(process.platform === 'win32')('a FIFO as --out (spawned)', () => {
  let served: ServedWorld;
  beforeAll(async () => {
    requireBuild();
    served = await serveWorld();
  });
  afterAll(() => served.close());

  it('with a reader: the export goes through it whole, and the FIFO stays a FIFO', async () => {
    execFileSync('mkfifo', [dir.file('pipe')]);
    const r = await runShell(
      `cat pipe > got.ndjson & "${process.execPath}" "${BIN}" invoices --taxpayer ${served.taxpayer} --cursor --quiet --base-url ${served.base} --out pipe; code=$?; wait; exit $code`,
      { cwd: dir.path, env: cliEnv(dir) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(statSync(dir.file('pipe')).isFIFO()).toBe(true);
    expect(idsOfNdjson(dir.read('got.ndjson').toString())).toHaveLength(60);
    expect(Object.keys(snapshot(dir.path)).sort()).toEqual(['got.ndjson', 'out.ndjson', 'pipe']);
  });

  it('without a reader: SIGTERM stops the wait (exit 143, one line), nothing sent', async () => {
    execFileSync('mkfifo', [dir.file('pipe')]);
    const before = served.sandbox.requests().length;
    const r = await runCli(['invoices', '--taxpayer', served.taxpayer, '--cursor', '--base-url', served.base, '--out', 'pipe'], {
      cwd: dir.path,
      env: cliEnv(dir),
      onSpawn: (child) => killWhenIdle(child, 'SIGTERM'),
    });
    expect(r.code, JSON.stringify(r)).toBe(143);
    expect(r.stderr).toBe('collections: interrupted by SIGTERM\n');
    expect(served.sandbox.requests().length).toBe(before);
    expect(statSync(dir.file('pipe')).isFIFO()).toBe(true);
  });
});
