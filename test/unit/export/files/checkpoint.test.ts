import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHECKPOINT_VERSION,
  fingerprintDifferences,
  loadCheckpoint,
  saveCheckpoint,
  type Checkpoint,
} from '../../../../src/export/files/checkpoint.js';
import { UsageError } from '../../../../src/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collections-cp-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fingerprint = { origin: 'http://127.0.0.1:1', request: '/entities?itemsPerPage=10&page=1', format: 'csv', fields: null };
const sample = (over: Partial<Checkpoint> = {}): Checkpoint => ({
  version: CHECKPOINT_VERSION,
  fingerprint,
  next: 'http://127.0.0.1:1/entities?itemsPerPage=10&page=3',
  pages: 2,
  items: 20,
  bytes: 1234,
  formatter: { columns: ['id', 'taxpayer.id'] },
  updatedAt: '2024-04-16T18:00:00.000Z',
  ...over,
});

describe('checkpoints', () => {
  it('round-trips and leaves no temp file, mode 0600', async () => {
    const path = join(dir, 'out.csv.checkpoint.json');
    await saveCheckpoint(path, sample());
    expect(await loadCheckpoint(path, fingerprint)).toEqual(sample());
    await expect(stat(`${path}.tmp`)).rejects.toThrow();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('replaces the previous checkpoint whole', async () => {
    const path = join(dir, 'cp.json');
    await saveCheckpoint(path, sample());
    await saveCheckpoint(path, sample({ pages: 3, items: 30, next: null }));
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pages: 3, items: 30, next: null });
  });

  it('returns undefined when there is none', async () => {
    expect(await loadCheckpoint(join(dir, 'missing.json'), fingerprint)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"version":1,'],
    ['another version', JSON.stringify({ ...sample(), version: 99 })],
    ['negative bytes', JSON.stringify({ ...sample(), bytes: -1 })],
    ['no formatter', JSON.stringify({ ...sample(), formatter: null })],
    ['an array', '[]'],
  ])('refuses a corrupt checkpoint (%s) with a usage error', async (_name, text) => {
    const path = join(dir, 'cp.json');
    await writeFile(path, text);
    await expect(loadCheckpoint(path, fingerprint)).rejects.toThrow(UsageError);
  });

  it('refuses a checkpoint of other options, naming what differs', async () => {
    const path = join(dir, 'cp.json');
    await saveCheckpoint(path, sample());
    const other = { ...fingerprint, format: 'ndjson' };
    await expect(loadCheckpoint(path, other)).rejects.toThrow(/different options.*: --format \S+ ≠ ndjson$/);
  });

  it.each([
    [{ request: '/t/A/invoices?itemsPerPage=100&page=1' }, { request: '/t/A/invoices?itemsPerPage=1000&page=1' }, ['--items-per-page 100 ≠ 1000']],
    [
      { request: '/t/A/invoices?page=1' },
      { request: '/t/B/invoices?status=X&page=1' },
      ['the path /t/A/invoices ≠ /t/B/invoices (the ids)', '--param status not given ≠ X'],
    ],
    [{ request: '/e?updatedAt%5Bafter%5D=2024-01-01' }, { request: '/e' }, ['--since (updatedAt[after]) 2024-01-01 ≠ not given']],
    [{ cursor: true, fields: ['id', 'total'] }, { cursor: false, fields: null }, ['--cursor given ≠ not given', '--fields id,total ≠ not given']],
    [{ origin: 'https://a.example' }, { origin: 'https://b.example' }, ['--base-url https://a.example ≠ https://b.example']],
  ])('fingerprintDifferences(%j, %j) names the flags: %j', (theirs, ours, expected) => {
    expect(fingerprintDifferences(theirs, ours)).toEqual(expected);
  });
});
