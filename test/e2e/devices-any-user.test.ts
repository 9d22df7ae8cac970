/**
 * `--out /dev/stdout` and a FIFO are written straight through, with no manifest, lock or sidecar
 * beside them, as any user: `/dev` is root's, so a check of its folder stopped everyone else with
 * exit 7 ("cannot write /dev/stdout.manifest.json"). Each case runs as the test's user and, when the
 * tests run as root (CI), again as `nobody` through setpriv, in a shell of that user so that the
 * pipe behind `/dev/stdout` is that user's own (as at a terminal).
 */
import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, runCommand, type CliResult } from '../helpers/cli.js';
import { cliEnv, idsOfNdjson, removeTempDirs, runInProcess, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const SETPRIV = '/usr/bin/setpriv';
const isRoot = process.getuid?.() === 0;
/** uid and gid 65534: `nobody` and `nogroup` (`nobody` on some systems) by number, whatever their names. */
const USERS: ReadonlyArray<{ name: string; as: readonly string[] }> = [
  { name: 'this user', as: [] },
  ...(isRoot && existsSync(SETPRIV) ? [{ name: 'nobody', as: [SETPRIV, '--reuid=65534', '--regid=65534', '--clear-groups'] }] : []),
];

let world: ServedWorld;
let reference: string;
beforeAll(async () => {
  requireBuild();
  world = await serveWorld();
  const dir = tempDir();
  const r = await runInProcess(world, dir, [...exportArgs(), '--quiet']);
  expect(r.code).toBe(0);
  reference = r.stdout;
});
afterAll(async () => {
  await world.close();
  removeTempDirs();
});

function exportArgs(): string[] {
  return ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '20'];
}

/** The CLI in a script of {@link shellAs}. */
function cli(rest: string): string {
  return `"${process.execPath}" "${BIN}" ${exportArgs().join(' ')} --base-url ${world.base} ${rest}`;
}

/** `bash -c script` as `user`, in `dir`: its pipes and FIFOs are that user's own, as at a terminal. */
function shellAs(user: (typeof USERS)[number], script: string, dir: TempDir): Promise<CliResult> {
  const argv = [...user.as, 'bash', '-c', script];
  return runCommand(argv[0]!, argv.slice(1), { cwd: dir.path, env: cliEnv(dir, { HOME: dir.path }) });
}

function openDir(): TempDir {
  const dir = tempDir();
  chmodSync(dir.path, 0o777);
  return dir;
}

describe.skipIf(process.platform === 'win32').each(USERS)('as $name', (user) => {
  it('--out /dev/stdout into a pipe: the items, exit 0, no manifest anywhere', async () => {
    const dir = openDir();
    const r = await shellAs(user, `set -o pipefail; ${cli('--out /dev/stdout')} | cat`, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout === reference).toBe(true);
    expect(r.stderr).toMatch(/^collections: 60 items to \/dev\/stdout in /);
    expect(existsSync('/dev/stdout.manifest.json')).toBe(false);
    expect(readdirSync(dir.path).filter((f) => f !== 'config')).toEqual([]);
  });

  it("--out /dev/stdout when stdout is a socket (a Node parent's stdio, systemd's journal), which cannot be opened by name", async () => {
    const dir = openDir();
    const argv = [...user.as, process.execPath, BIN, ...exportArgs(), '--base-url', world.base, '--out', '/dev/stdout'];
    const r = await runCommand(argv[0]!, argv.slice(1), { cwd: dir.path, env: cliEnv(dir, { HOME: dir.path }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout === reference).toBe(true);
  });

  it('--out /dev/stdout behind a shell redirection appends to that file; /dev/stdout stays the link it was', async () => {
    const dir = openDir();
    const r = await shellAs(user, `echo 'first line' > got.ndjson; ${cli('--out /dev/stdout')} >> got.ndjson`, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(dir.read('got.ndjson').toString()).toBe(`first line\n${reference}`);
    expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
    expect(
      readdirSync(dir.path)
        .filter((f) => f !== 'config')
        .sort(),
    ).toEqual(['got.ndjson']);
  });

  it('a FIFO: its reader gets the items, no manifest beside it', async () => {
    const dir = openDir();
    const r = await shellAs(user, `mkfifo pipe && { cat pipe > got.ndjson & } && ${cli('--out pipe')}; code=$?; wait; exit $code`, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(idsOfNdjson(dir.read('got.ndjson').toString())).toHaveLength(60);
    expect(
      readdirSync(dir.path)
        .filter((f) => f !== 'config')
        .sort(),
    ).toEqual(['got.ndjson', 'pipe']);
  });

  it('--dry-run of --out /dev/stdout: exit 0, written straight through', async () => {
    const dir = openDir();
    const r = await shellAs(user, `${cli('--out /dev/stdout --dry-run')} | cat`, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('output:     /dev/stdout (FIFO or device, written straight through)');
  });
});
