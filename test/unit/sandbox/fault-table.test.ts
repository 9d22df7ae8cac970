import { describe, expect, it } from 'vitest';
import { createSandbox, type SandboxReply } from '../../../src/sandbox/app.js';
import { FAULT_REWRITES, FAULT_STAGES } from '../../../src/sandbox/fault-table.js';
import { FAULT_KINDS, type FaultRule } from '../../../src/sandbox/faults.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { KEY, ORIGIN } from './helpers.js';

const T0 = Date.UTC(2024, 3, 16, 18, 0, 7, 250);

/** One authenticated GET of `pathAndQuery` (page 2 of 10 invoices by default) with `faults`. */
async function replyWith(faults: FaultRule[] | string, pathAndQuery?: string): Promise<SandboxReply> {
  const sandbox = createSandbox({ apiKey: KEY, clock: createVirtualClock(T0), faults, sizes: { invoicesPerTaxpayer: 30 } });
  const path = pathAndQuery ?? `/taxpayers/${encodeURIComponent(sandbox.taxpayers()[0]!)}/invoices?itemsPerPage=10&page=2`;
  return sandbox.reply({ method: 'GET', url: ORIGIN + path, header: (n) => (n === 'x-api-key' ? KEY : null) });
}

describe('the fault table', () => {
  it('has a rewrite for every kind, and every kind in exactly one stage', () => {
    const staged = Object.values(FAULT_STAGES).flatMap((s) => s.kinds);
    expect([...staged].sort()).toEqual([...FAULT_KINDS].sort());
    expect(new Set(staged).size).toBe(staged.length);
    expect(Object.keys(FAULT_REWRITES).sort()).toEqual([...FAULT_KINDS].sort());
  });

  it('lets a connection fault replace everything, the first listed winning', async () => {
    const r = await replyWith('hang; status; refuse; drip');
    expect(r).toEqual({ status: 0, headers: {}, body: Buffer.alloc(0), network: { kind: 'refuse' } });
  });

  it('answers a redirect before a permanent 429, and a permanent 429 before a status', async () => {
    const redirect = await replyWith('status; permanent-429; redirect url=http://other.test');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.Location).toMatch(/^http:\/\/other\.test\/taxpayers\//);
    const limited = await replyWith('status status=502; permanent-429');
    expect(limited.status).toBe(429);
    expect(limited.headers['X-RateLimit-Remaining']).toBe('0');
    expect(JSON.parse(limited.body.toString())).toEqual({ message: 'Too Many Requests' });
  });

  it('rewrites a page body with html before invalid-json before truncate', async () => {
    const html = await replyWith('truncate; invalid-json; html');
    expect(html.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(html.body.toString()).toContain('<!DOCTYPE html>');
    const invalid = await replyWith('truncate; invalid-json');
    expect(invalid.body.toString()).toContain('NaN');
  });

  it('adds up clock offsets and shifts Date and X-RateLimit-Reset by their sum', async () => {
    const plain = await replyWith([]);
    const shifted = await replyWith('clock-offset offsetMs=60000; clock-offset offsetMs=30000');
    expect(Date.parse(shifted.headers.Date!) - Date.parse(plain.headers.Date!)).toBe(90_000);
    expect(Number(shifted.headers['X-RateLimit-Reset']) - Number(plain.headers['X-RateLimit-Reset'])).toBe(90);
  });

  it('cuts a reset mid-body before it drips, after the body faults', async () => {
    const r = await replyWith('drip; truncate afterBytes=40; reset-mid-body');
    expect(r.body.length).toBe(40);
    expect(r.network).toEqual({ kind: 'reset-mid-body', afterBytes: 20 });
  });

  it('leaves pages alone for faults that only rewrite pages when the answer is not one', async () => {
    const r = await replyWith('html; loop-next; unprefixed', '/nope');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body.toString())).toEqual({ message: 'Not Found' });
  });
});
