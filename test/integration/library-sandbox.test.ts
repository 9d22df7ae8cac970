/**
 * The library's `startSandbox()` (src/index.ts), over real sockets on 127.0.0.1 with the
 * library's own transport: a free port, the data a user's code reads through `collection()` and
 * exports with `exportCollection()`, and `close()`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { collection, exportCollection, startSandbox, UsageError, type RunningSandbox } from '../../src/index.js';
import { tempDir } from '../helpers/world.js';

const started: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(options: Parameters<typeof startSandbox>[0]): Promise<RunningSandbox> {
  const sandbox = await startSandbox(options);
  started.push(sandbox);
  return sandbox;
}

describe('startSandbox()', () => {
  it('listens on a free port of loopback, serves what collection() and exportCollection() read, and closes', async () => {
    const sandbox = await start({ port: 0, limit: 0, taxpayers: 2, invoices: 30 });
    expect(sandbox.baseUrl).toBe(`http://127.0.0.1:${sandbox.port}`);
    expect(sandbox.port).toBeGreaterThan(0);
    expect(sandbox.apiKey).toBe('sandbox-key');
    expect(sandbox.taxpayers).toHaveLength(2);
    const connection = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey };
    const path = `/taxpayers/${sandbox.taxpayers[1]}/invoices`;
    let items = 0;
    for await (const _item of collection(path, { ...connection, cursor: true, itemsPerPage: 8 })) items++;
    expect(items).toBe(30);
    const dir = tempDir();
    try {
      const summary = await exportCollection({ ...connection, path, out: dir.file('invoices.ndjson') });
      expect(summary.items).toBe(30);
      expect(dir.read('invoices.ndjson').toString().trim().split('\n')).toHaveLength(30);
    } finally {
      dir.remove();
    }
    await sandbox.close();
    await expect(fetch(`${sandbox.baseUrl}/entities`)).rejects.toThrow();
  });

  it('takes the command’s flags as options: its key, and faults set later', async () => {
    const sandbox = await start({ key: 'my-key', limit: 0, entities: 3 });
    const res = await fetch(`${sandbox.baseUrl}/entities`, { headers: { 'X-Api-Key': 'my-key' } });
    expect(res.status).toBe(200);
    sandbox.setFaults('status status=503');
    expect((await fetch(`${sandbox.baseUrl}/entities`, { headers: { 'X-Api-Key': 'my-key' } })).status).toBe(503);
    sandbox.setFaults('');
    expect((await fetch(`${sandbox.baseUrl}/entities`, { headers: { 'X-Api-Key': 'my-key' } })).status).toBe(200);
  });

  it("takes every switch of the command, typed: the real service's cursor-only pages, naive dates and embedded batch payments", async () => {
    const sandbox = await start({ limit: 0, taxpayers: 1, invoices: 3, payments: 2, cursorOnly: true, dates: 'naive', batchPayment: 'object' });
    const headers = { 'X-Api-Key': sandbox.apiKey };
    const invoices = `${sandbox.baseUrl}/taxpayers/${encodeURIComponent(sandbox.taxpayers[0]!)}/invoices`;
    const paged = await fetch(`${invoices}?page=1`, { headers });
    expect(paged.status).toBe(400);
    expect(await paged.json()).toEqual({ message: 'Only cursor pagination is available for this endpoint.' });
    const page = (await (await fetch(invoices, { headers })).json()) as { 'hydra:member': Array<{ issuedAt: string }> };
    expect(page['hydra:member']).toHaveLength(3);
    for (const invoice of page['hydra:member']) expect(invoice.issuedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const payments = (await (await fetch(`${invoices}/payments`, { headers })).json()) as {
      'hydra:member': Array<{ batchPayment: unknown }>;
    };
    expect(payments['hydra:member'].map((p) => typeof p.batchPayment)).toEqual(['object', 'object']);
    // @ts-expect-error -- a word of no row: the option's type is the row's words
    await expect(startSandbox({ dates: 'local' })).rejects.toThrow(new UsageError('dates must be iso or naive'));
  });

  it('refuses an option out of range, and a port in use, with a usage error naming the option as the library spells it', async () => {
    await expect(startSandbox({ limit: -1 })).rejects.toThrow(new UsageError('limit must be an integer from 0 up'));
    await expect(startSandbox({ cursorOnly: true, ignorePaginationStyle: true })).rejects.toThrow(
      new UsageError('cursorOnly and ignorePaginationStyle exclude each other: one pages by cursor only, the other by offset only'),
    );
    const first = await start({});
    const err: unknown = await startSandbox({ port: first.port }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(`cannot listen on 127.0.0.1:${first.port}: address in use`);
    expect((err as UsageError).hint).toBe('choose another port (0 = any free port)');
  });
});
