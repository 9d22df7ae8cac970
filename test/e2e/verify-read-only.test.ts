/**
 * `verify` of a DuckDB file the user may only read (docs/databases.md, "The run log and `verify`"):
 * the built CLI run as `nobody` on a file of mode 0444 in a folder it cannot write verifies, and
 * leaves the file as it was. Needs root to switch users; skipped otherwise.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, runCommand } from '../helpers/cli.js';
import { createWorld, removeTempDirs, runInProcess, tempDir } from '../helpers/world.js';

const NOBODY = 65534;
const root = process.getuid?.() === 0;

beforeAll(() => {
  if (root) requireBuild();
});
afterAll(removeTempDirs);

describe.skipIf(!root)('verify as a user who can only read the DuckDB file', () => {
  it('verifies (exit 0) and writes nothing beside it', async () => {
    const world = createWorld();
    const dir = tempDir();
    const out = dir.file('mirror.duckdb');
    const exported = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', out, '-q']);
    expect(exported.code, exported.stderr).toBe(0);
    chmodSync(out, 0o444);
    // Others may enter the folder and read the file, not write either.
    chmodSync(dir.path, 0o755);
    const before = readFileSync(out);
    const r = await runCommand('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, BIN, 'verify', out], {
      env: { HOME: dir.path },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok invoices \/taxpayers\/.+\/invoices: 60 rows, as run 1 left them\n$/);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(dir.has('mirror.duckdb.wal')).toBe(false);
  });
});
