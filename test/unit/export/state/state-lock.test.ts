/**
 * The state file under parallel saves (export/state/state.ts `saveWatermark`): the exports of one run
 * with many taxpayers finish at the same time, and none may lose another's entry.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readState, saveWatermark } from '../../../../src/export/state/state.js';
import { removeTempDirs, tempDir } from '../../../helpers/world.js';

afterAll(removeTempDirs);

describe('saveWatermark', () => {
  it('keeps every entry of twenty saves started at once, and leaves no lock behind', async () => {
    const dir = tempDir();
    const path = dir.file('state.json');
    const keys = Array.from({ length: 20 }, (_v, i) => `invoices T${i}`);
    await Promise.all(keys.map((key, i) => saveWatermark(path, key, `2024-05-01T00:00:${String(i).padStart(2, '0')}+00:00`, 0)));
    const state = readState(path);
    expect(Object.keys(state.watermarks).sort()).toEqual([...keys].sort());
    expect(state.watermarks['invoices T7']!.since).toBe('2024-05-01T00:00:07+00:00');
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(state);
  });

  it('a failed save (a corrupt file) does not block the next one of the same file', async () => {
    const dir = tempDir();
    const path = dir.file('state.json');
    writeFileSync(path, 'not json');
    await expect(saveWatermark(path, 'k', '2024-05-01T00:00:00+00:00', 0)).rejects.toThrow(/corrupt/);
    rmSync(path);
    await saveWatermark(path, 'k', '2024-05-01T00:00:00+00:00', 0);
    expect(readState(path).watermarks.k!.since).toBe('2024-05-01T00:00:00+00:00');
  });
});
