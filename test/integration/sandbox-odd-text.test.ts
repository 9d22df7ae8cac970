/**
 * The sandbox's `oddText` switch (`collections sandbox --odd-text`, `startSandbox({ oddText })`):
 * the third invoice of each taxpayer has a NUL and a lone surrogate in `reference`, as JSON
 * escapes on the wire; without the switch every invoice is as before.
 */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { createWorld } from '../helpers/world.js';

describe('sandbox oddText', () => {
  it('serves the third invoice of each taxpayer with "odd\\u0000text\\ud800" as its reference, escaped on the wire', async () => {
    const sandbox = await startSandbox({ oddText: true, taxpayers: 2, invoices: 5, limit: 0 });
    try {
      for (const taxpayer of sandbox.taxpayers) {
        const response = await fetch(`${sandbox.baseUrl}/taxpayers/${taxpayer}/invoices`, { headers: { 'X-Api-Key': sandbox.apiKey } });
        const body = await response.text();
        expect(body.match(/"reference":"odd\\u0000text\\ud800"/g)).toHaveLength(1);
        const page = JSON.parse(body) as Record<string, Array<{ reference: string | null }> | undefined>;
        const members = page.member ?? page['hydra:member']!;
        expect(members.findIndex((m) => m.reference === 'odd\u0000text\ud800')).toBe(2);
      }
    } finally {
      await sandbox.close();
    }
  });

  it('is off by default', () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 5 } });
    const items = world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`) as Array<{ reference: string | null }>;
    expect(items.some((i) => i.reference?.includes('\u0000'))).toBe(false);
  });
});
