/**
 * The Kubernetes manifests of docs/nightly-sync.md, checked as Kubernetes would run them: the
 * CronJob's container arguments export its taxpayer; the Indexed Job's pods, one per
 * `JOB_COMPLETION_INDEX` from 0 to `completions` − 1, split the list with `--shard auto/N` into
 * disjoint shards that together export every taxpayer once. `/data` is a temp folder.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorld, idsOfNdjson, removeTempDirs, runInProcess, tempDir, type TempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

const ROOT = new URL('../..', import.meta.url).pathname;

interface Manifest {
  line: number;
  text: string;
  kind: string;
  args: string[];
  env: string[];
}

/** The ```yaml blocks of the page, with their container `args` (a flow sequence of quoted strings, JSON's syntax too). */
function manifests(): Manifest[] {
  const lines = readFileSync(join(ROOT, 'docs/nightly-sync.md'), 'utf8').split('\n');
  const found: Manifest[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```yaml') continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    const text = lines.slice(i + 1, end).join('\n');
    const args = /^\s*args: (\[[^\]]*\])/m.exec(text);
    found.push({
      line: i + 1,
      text,
      kind: /^kind: (\w+)$/m.exec(text)?.[1] ?? '',
      args: args ? (JSON.parse(args[1]!.replace(/\n\s*/g, ' ')) as string[]) : [],
      env: [...text.matchAll(/^\s*- name: (COLLECTIONS_\w+)$/gm)].map((m) => m[1]!),
    });
    i = end;
  }
  return found;
}

const field = (m: Manifest, name: string): string | undefined => new RegExp(`^\\s*${name}: (\\S+)$`, 'm').exec(m.text)?.[1];

const onData = (args: string[], dir: TempDir): string[] => args.map((a) => a.replaceAll('/data', dir.path));

describe('the Kubernetes manifests of docs/nightly-sync.md', () => {
  const all = manifests();

  it('are a CronJob and an Indexed Job', () => {
    expect(all.map((m) => m.kind)).toEqual(['CronJob', 'Job']);
  });

  it("the CronJob's container exports its taxpayer whole", async () => {
    const cron = all.find((m) => m.kind === 'CronJob')!;
    expect(field(cron, 'concurrencyPolicy')).toBe('Forbid');
    expect(cron.env).toEqual(expect.arrayContaining(['COLLECTIONS_BASE_URL', 'COLLECTIONS_API_KEY']));
    const world = createWorld({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 30 } });
    const dir = tempDir();
    const r = await runInProcess(world, dir, onData(cron.args, dir), { connectVia: 'env' });
    expect(r.code, r.stderr).toBe(0);
    const taxpayer = cron.args[cron.args.indexOf('--taxpayer') + 1]!;
    const csv = readFileSync(join(dir.path, 'invoices.csv'), 'utf8');
    expect(csv.trim().split('\n').length - 1).toBe(world.sandbox.invoiceIds(taxpayer).length);
  });

  it("the Indexed Job's pods, one per completion index, export every taxpayer once between them", async () => {
    const job = all.find((m) => m.kind === 'Job')!;
    expect(field(job, 'completionMode')).toBe('Indexed');
    expect(field(job, 'restartPolicy')).toBe('Never');
    expect(Number(field(job, 'backoffLimitPerIndex'))).toBeGreaterThan(0);
    const completions = Number(field(job, 'completions'));
    expect(Number(field(job, 'parallelism'))).toBe(completions);
    expect(job.args[job.args.indexOf('--shard') + 1]).toBe(`auto/${completions}`);
    expect(job.env).toEqual(expect.arrayContaining(['COLLECTIONS_BASE_URL', 'COLLECTIONS_API_KEY', 'COLLECTIONS_BUDGET']));

    const world = createWorld({ sizes: { taxpayers: 12, invoicesPerTaxpayer: 5 } });
    const dir = tempDir();
    const list = job.args[job.args.indexOf('--taxpayers-file') + 1]!.replace('/data', dir.path);
    writeFileSync(list, `${world.sandbox.taxpayers().join('\n')}\n`);
    mkdirSync(join(dir.path, 'exports'));
    const sent: string[][] = [];
    for (let index = 0; index < completions; index++) {
      const r = await runInProcess(world, dir, onData(job.args, dir), { connectVia: 'env', env: { JOB_COMPLETION_INDEX: String(index) } });
      expect(r.code, r.stderr).toBe(0);
      sent.push([...new Set(r.requests.map((q) => decodeURIComponent(q.url.split('/')[2]!)))]);
    }
    // Each taxpayer asked for by one pod only, and every one by some pod.
    expect(sent.flat().sort()).toEqual([...world.sandbox.taxpayers()].sort());
    const exported = readdirSync(join(dir.path, 'exports'));
    expect(exported.sort()).toEqual([...world.sandbox.taxpayers()].sort());
    for (const taxpayer of exported) {
      const ids = idsOfNdjson(readFileSync(join(dir.path, 'exports', taxpayer, 'invoices.ndjson'), 'utf8'));
      expect(ids).toEqual(world.sandbox.invoiceIds(taxpayer));
    }
  });
});
