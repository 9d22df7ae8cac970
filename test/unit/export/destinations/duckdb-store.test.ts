/** The DuckDB store on its own: a group's lines, the last of each key kept, and the row counts. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { openDuckDbStore } from '../../../../src/export/destinations/duckdb-store.js';
import { parseTableName } from '../../../../src/export/destinations/table-name.js';

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

const mark = (pages: number) => ({
  next: null,
  items: pages,
  pages,
  requestId: undefined,
  serverTime: undefined,
  checkpoint: { fingerprint: {}, formatter: {} },
  spent: { items: pages, pages, requests: pages, retries: 0, waits: 0, waitMs: 0 },
});
const lines = (...items: string[]) => [Buffer.from(items.map((i) => `${i}\n`).join(''))];

/** A fresh file's store on table `items`, prepared, with a run started. */
async function openStore(file: string) {
  const folder = mkdtempSync(join(tmpdir(), 'duckdb-store-'));
  folders.push(folder);
  const path = join(folder, file);
  const store = await openDuckDbStore({
    address: { kind: 'duckdb', path, shown: file },
    table: parseTableName('items'),
    key: undefined,
    source: '/items',
    taxpayer: undefined,
  });
  await store.prepare();
  const runId = await store.startRun('full', { fingerprint: {}, formatter: {} }, undefined);
  return { path, store, runId };
}

describe('the DuckDB store', () => {
  it('keeps the last line of a key within a group, counts rows by what changed, and leaves unchanged rows alone', async () => {
    const { path, store, runId } = await openStore('m.duckdb');
    // Three lines across two chunks, one key twice: the later text wins, byte for byte.
    const first = [Buffer.from('{"id":"a","v":1}\n{"id":"b",'), Buffer.from(' "v":1}\n{"id":"a", "v":2}\n')];
    expect(await store.commitGroup(runId, first, mark(1), false)).toEqual({ inserted: 2, updated: 0, rejected: 0 });
    expect(await store.commitGroup(runId, lines('{"id":"a", "v":2}', '{"id":"b", "v":1}'), mark(2), false)).toEqual({
      inserted: 0,
      updated: 0,
      rejected: 0,
    });
    expect(await store.commitGroup(runId, lines('{"id":"b", "v":3}', '{"@id":"/items/c"}'), mark(3), false)).toEqual({
      inserted: 1,
      updated: 1,
      rejected: 0,
    });
    await store.close();
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll('SELECT id, item::VARCHAR FROM items ORDER BY id')).getRows();
    connection.closeSync();
    instance.closeSync();
    expect(rows).toEqual([
      ['/items/c', '{"@id":"/items/c"}'],
      ['a', '{"id":"a", "v":2}'],
      ['b', '{"id":"b", "v":3}'],
    ]);
  });

  it('commits a group far larger than a usual one (a 64 MiB page): the memory limit follows the group', async () => {
    const { store, runId } = await openStore('big.duckdb');
    const filler = 'x'.repeat(1000);
    const count = 64 * 1024;
    const group = [Buffer.from(Array.from({ length: count }, (_, i) => `{"id":"i${i}","text":"${filler}"}\n`).join(''))];
    expect(group[0]!.length).toBeGreaterThan(64 * 1024 * 1024);
    expect(await store.commitGroup(runId, group, mark(1), false)).toEqual({ inserted: count, updated: 0, rejected: 0 });
    await store.close();
  }, 60_000);
});
