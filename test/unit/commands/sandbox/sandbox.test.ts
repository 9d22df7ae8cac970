/**
 * The `sandbox` command: it prints how to reach the sandbox it serves on 127.0.0.1, serves until a
 * signal, and refuses bad options before listening.
 */
import { describe, expect, it } from 'vitest';
import { runSandbox } from '../../../../src/commands/sandbox/sandbox.js';
import { createVirtualClock } from '../../../helpers/virtual-clock.js';
import { createTestContext } from '../../../helpers/world.js';

describe('runSandbox', () => {
  it('prints its URL, key, taxpayers and an example, serves, and stops on a signal', async () => {
    const t = createTestContext({ clock: createVirtualClock() });
    const done = runSandbox(t.ctx, { port: 0, key: 'demo-key', taxpayers: 3, invoices: 12, limit: 5, limitScope: 'path' });
    while (!t.stdout.text().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 5));
    const out = t.stdout.text();
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    expect(out).toContain('API key: demo-key');
    expect(out).toContain('Rate limit: 5 requests per 60 s per path');
    const rfcs = [...out.matchAll(/^ {2}([A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3})$/gmu)].map((m) => m[1]!);
    expect(rfcs).toHaveLength(3);
    expect(out).toContain(`collections invoices --taxpayer ${rfcs[0]} --cursor --base-url ${url} --api-key demo-key`);
    const res = await fetch(`${url}/taxpayers/${encodeURIComponent(rfcs[2]!)}/invoices`, { headers: { 'X-Api-Key': 'demo-key' } });
    expect(((await res.json()) as Record<string, unknown>)['hydra:totalItems']).toBe(12);
    // Path scope: another taxpayer's invoices have a window of their own.
    const other = await fetch(`${url}/taxpayers/${encodeURIComponent(rfcs[1]!)}/invoices`, { headers: { 'X-Api-Key': 'demo-key' } });
    expect(other.headers.get('x-ratelimit-remaining')).toBe('4');
    t.raise('SIGINT');
    expect(await done).toBe(0);
    await expect(fetch(`${url}/entities`)).rejects.toThrow();
  });

  it.each([
    [{}, /^\{"@context":"\\\/contexts\\\/Invoice",/, true],
    [{ wire: 'pretty', cursorEnd: 'last-page' }, /^\{\n {4}"@context": "\\\/contexts\\\/Invoice",\n/, false],
  ])("serves --wire and --cursor-end %j (default: API Platform's escapes, the last cursor page links next)", async (options, bytes, linksNext) => {
    const t = createTestContext({ clock: createVirtualClock() });
    const done = runSandbox(t.ctx, { port: 0, taxpayers: 1, invoices: 2, limit: 0, ...options });
    while (!t.stdout.text().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 5));
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(t.stdout.text())![1]!;
    const rfc = /^ {2}(\S+)$/mu.exec(t.stdout.text())![1]!;
    const res = await fetch(`${url}/taxpayers/${encodeURIComponent(rfc)}/invoices`, {
      headers: { 'X-Api-Key': 'sandbox-key', 'X-Pagination-Style': 'cursor' },
    });
    const text = await res.text();
    t.raise('SIGINT');
    expect(await done).toBe(0);
    expect(text).toMatch(bytes);
    const page = JSON.parse(text) as { 'hydra:member': unknown[]; 'hydra:view': { 'hydra:next'?: string } };
    expect(page['hydra:member']).toHaveLength(2);
    expect(page['hydra:view']['hydra:next'] !== undefined).toBe(linksNext);
  });

  it('serves --errors problem: the 404 of an unknown route as API Platform writes it, and says so', async () => {
    const t = createTestContext({ clock: createVirtualClock() });
    const done = runSandbox(t.ctx, { port: 0, taxpayers: 1, invoices: 2, limit: 0, errors: 'problem' });
    while (!t.stdout.text().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 5));
    expect(t.stdout.text()).toContain('Errors: application/problem+json, as API Platform writes them');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(t.stdout.text())![1]!;
    const res = await fetch(`${url}/nowhere`, { headers: { 'X-Api-Key': 'sandbox-key' } });
    const text = await res.text();
    t.raise('SIGINT');
    expect(await done).toBe(0);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(text).toBe('{"type":"https:\\/\\/tools.ietf.org\\/html\\/rfc2616#section-10","title":"An error occurred","detail":"Not Found"}');
  });

  it.each([
    [{ errors: 'json' }, /--errors must be message or problem/],
    [{ port: 70_000 }, /--port/],
    [{ limit: -1 }, /--limit/],
    [{ window: 0 }, /--window/],
    [{ lineItems: 500 }, /--line-items/],
    [{ faults: 'nonsense' }, /unknown fault/],
    [{ limitScope: 'taxpayer' }, /--limit-scope must be route or path/],
    [{ wire: 'json' }, /--wire must be apiplatform, compact or pretty/],
    [{ wire: 'APIPLATFORM' }, /--wire must be apiplatform, compact or pretty/],
    [{ cursorEnd: 'never' }, /--cursor-end must be endless, empty-page or last-page/],
  ])('refuses %j before listening', async (options, message) => {
    const t = createTestContext();
    await expect(runSandbox(t.ctx, options)).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(message) as string });
    expect(t.stdout.text()).toBe('');
  });
});
