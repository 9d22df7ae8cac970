/**
 * The built CLI keeps V8's young generation at its first size through an export (cli/main.ts
 * `run()`): a page's bytes live off the V8 heap until a scavenge finds them dead, and a young
 * generation grown to 16 MiB a semi-space let tens of MiB of dead pages wait (peak RSS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild, runCommand } from '../helpers/cli.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

let world: ServedWorld | undefined;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  world = await serveWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 3000 } });
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

/** A preload that prints the new space's size (bytes) when the process exits. */
const REPORT_NEW_SPACE =
  "data:text/javascript,import v8 from 'node:v8'; process.on('exit', () => process.stderr.write(`new space ${" +
  "v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size}\\n`));";

describe('the young generation of an export', () => {
  it('stays at its first size (1 MiB a semi-space) while three pages of 1000 items are exported', async () => {
    const args = ['invoices', '--taxpayer', world!.taxpayer, '--base-url', world!.base, '--out', dir.file('i.ndjson'), '-q'];
    const r = await runCommand(process.execPath, ['--import', REPORT_NEW_SPACE, BIN, ...args], { env: cliEnv(dir) });
    expect(r.code).toBe(0);
    expect(dir.read('i.ndjson').toString('utf8').split('\n')).toHaveLength(3001);
    const size = Number(/new space (\d+)/.exec(r.stderr)?.[1]);
    expect(size).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});
