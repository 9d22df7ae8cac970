/**
 * A finished file export renames `F.part` onto `F`, then removes its checkpoint: a kill between the
 * two leaves a checkpoint and no `F.part`. `--resume` (also of a many-taxpayer run) exports it
 * afresh instead of failing every night on "F.part is missing"; yesterday's `F` beside a lost
 * `F.part` is still refused.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWorld, idsOfNdjson, interruptAt, runInProcess, useTempDir } from '../helpers/world.js';

const dir = useTempDir();

describe('a checkpoint left after its export was published', () => {
  it('--resume exports it afresh, with a note, and the file equals a clean export', async () => {
    const world = createWorld();
    const rfc = world.sandbox.taxpayers()[0]!;
    const args = ['invoices', '--taxpayer', rfc, '--items-per-page', '10', '--concurrency', '1', '--out', 'inv.ndjson'];
    expect((await runInProcess(world, dir, args, interruptAt(3))).code).toBe(130);
    // What the kill at the very end leaves: the sidecar published onto F, the checkpoint still there.
    renameSync(dir.file('inv.ndjson.part'), dir.file('inv.ndjson'));
    const resumed = await runInProcess(world, dir, [...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('was published before its checkpoint was removed');
    expect(idsOfNdjson(dir.read('inv.ndjson').toString())).toEqual(world.sandbox.invoiceIds(rfc));
    expect(dir.has('inv.ndjson.checkpoint.json')).toBe(false);
  });

  it('in a many-taxpayer --resume too', async () => {
    const world = createWorld({ sizes: { taxpayers: 2 } });
    const [a, b] = world.sandbox.taxpayers();
    writeFileSync(dir.file('list.txt'), `${a}\n${b}\n`);
    const args = ['invoices', '--taxpayers-file', 'list.txt', '--items-per-page', '10', '--concurrency', '1', '--out', '{taxpayer}.ndjson'];
    expect((await runInProcess(world, dir, args, interruptAt(3))).code).toBe(130);
    renameSync(dir.file(`${a!}.ndjson.part`), dir.file(`${a!}.ndjson`));
    const resumed = await runInProcess(world, dir, [...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const rfc of [a!, b!]) expect(idsOfNdjson(dir.read(`${rfc}.ndjson`).toString())).toEqual(world.sandbox.invoiceIds(rfc));
  });

  it('an older F beside a lost F.part is still refused (exit 2): nothing says that export finished', async () => {
    const world = createWorld();
    const rfc = world.sandbox.taxpayers()[0]!;
    const args = ['invoices', '--taxpayer', rfc, '--items-per-page', '10', '--concurrency', '1', '--out', 'inv.ndjson'];
    expect((await runInProcess(world, dir, args)).code).toBe(0);
    expect((await runInProcess(world, dir, args, interruptAt(3))).code).toBe(130);
    rmSync(dir.file('inv.ndjson.part'));
    const resumed = await runInProcess(world, dir, [...args, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('inv.ndjson.part is missing');
  });
});
