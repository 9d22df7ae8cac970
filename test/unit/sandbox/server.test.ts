/**
 * The socket side: startSandboxServer on 127.0.0.1 port 0, read with Node's own fetch, so the
 * network faults are seen as a real client sees them. The sandbox runs on a virtual clock (drip
 * waits take no real time); only the hang test waits on a real 300 ms abort timer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxOptions } from '../../../src/sandbox/app.js';
import { startRecorderServer, startSandboxServer, type RunningServer } from '../../../src/sandbox/server.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { headers, KEY, type HydraBody } from './helpers.js';

const open: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(options: SandboxOptions = {}) {
  const sandbox = createSandbox({ apiKey: KEY, clock: createVirtualClock(), sizes: { invoicesPerTaxpayer: 30 }, ...options });
  const server = await startSandboxServer(sandbox);
  open.push(server);
  const invoices = `${server.url}/taxpayers/${encodeURIComponent(sandbox.taxpayers()[2]!)}/invoices`;
  return { sandbox, server, invoices };
}

describe('startSandboxServer', () => {
  it('serves pages on loopback with Content-Length, Date, request id and rate-limit headers', async () => {
    const { server, invoices } = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${invoices}?itemsPerPage=7`, { headers: headers() });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect((JSON.parse(text) as HydraBody)['hydra:member']).toHaveLength(7);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(res.headers.get('x-request-id')).toMatch(/^Root=1-/);
    expect(res.headers.get('date')).toBe('Tue, 16 Apr 2024 18:00:00 GMT');
    const unauthorized = await fetch(invoices);
    expect([unauthorized.status, await unauthorized.json()]).toEqual([401, { message: 'Unauthorized' }]);
  });

  it('destroys the socket before the headers', async () => {
    const { invoices } = await serve({ faults: 'reset-before-headers requests=1' });
    await expect(fetch(invoices, { headers: headers() })).rejects.toThrow('fetch failed');
    expect((await fetch(invoices, { headers: headers() })).status).toBe(200);
  });

  it('destroys the socket mid-body after the headers', async () => {
    const { invoices } = await serve({ faults: [{ kind: 'reset-mid-body', afterBytes: 200 }] });
    const res = await fetch(invoices, { headers: headers() });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('never sends headers on a hang; close() still ends promptly', async () => {
    const { invoices, server } = await serve({ faults: 'hang' });
    await expect(fetch(invoices, { headers: headers(), signal: AbortSignal.timeout(300) })).rejects.toMatchObject({ name: 'TimeoutError' });
    const pending = fetch(invoices, { headers: headers() }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await server.close();
    open.length = 0;
    expect(await pending).toBeInstanceOf(TypeError);
  });

  it('drips the body in many chunks that add up to valid JSON', async () => {
    const { invoices } = await serve({ faults: [{ kind: 'drip', chunkBytes: 256, intervalMs: 100 }] });
    const res = await fetch(invoices, { headers: headers() });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const body = Buffer.concat(chunks);
    expect(chunks.length).toBeGreaterThan(5);
    expect((JSON.parse(body.toString('utf8')) as HydraBody)['hydra:member']).toHaveLength(20);
  });
});

describe('startRecorderServer', () => {
  it('records what reaches another origin: a followed redirect carries the key, a manual one does not', async () => {
    const recorder = await startRecorderServer();
    open.push(recorder);
    const { invoices } = await serve({ faults: [{ kind: 'redirect', url: `${recorder.url}/` }] });
    const manual = await fetch(invoices, { headers: headers(), redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe(`${recorder.url}${new URL(invoices).pathname}`);
    expect(recorder.requests).toEqual([]);
    // What the client must never do: Node's fetch follows and forwards X-Api-Key (undici #4917).
    await fetch(invoices, { headers: headers() });
    expect(recorder.requests).toHaveLength(1);
    expect(recorder.requests[0]).toMatchObject({ method: 'GET', url: new URL(invoices).pathname, headers: { 'x-api-key': KEY } });
  });
});
