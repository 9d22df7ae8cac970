/**
 * Each page's text is read once (issue «Performance II», point 1): every format scans it once
 * (pagination/page-scan.ts, which also bounds the nesting, so the depth guard's own pass never
 * runs); JSON and NDJSON never `JSON.parse` an item; CSV `JSON.parse`s each member once, from its
 * text as the page holds it, for the values. Counted with spies on the scanner, the depth guard and `JSON.parse`, on the pages
 * recorded as they come out of the (in-process) sandbox.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { scanPageText } from '../../src/pagination/page-scan.js';
import { exceedsJsonDepth } from '../../src/pagination/json-scan.js';
import { runInProcess, useTempDir, useWorld } from '../helpers/world.js';

vi.mock('../../src/pagination/page-scan.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/pagination/page-scan.js')>();
  return { ...original, scanPageText: vi.fn(original.scanPageText) };
});
vi.mock('../../src/pagination/json-scan.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/pagination/json-scan.js')>();
  return { ...original, exceedsJsonDepth: vi.fn(original.exceedsJsonDepth) };
});

const dir = useTempDir();
// Pinned to JSON.stringify's bytes and to payments (no 64-bit or `1.0` number literals): until the
// page reader keeps members' source bytes, it re-serialises any member that is not canonical
// JSON.stringify text, so API Platform's escapes or an invoice's satFolio would be parsed here.
const world = useWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 5, paymentsPerTaxpayer: 95 }, wire: 'compact' });
let pages: string[];
beforeEach(() => {
  pages = [];
  vi.mocked(scanPageText).mockClear();
  vi.mocked(exceedsJsonDepth).mockClear();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Records the text of every collection page the sandbox sends. */
const recordPages =
  (inner: FetchLike): FetchLike =>
  async (input, init) => {
    const res = await inner(input, init);
    const text = await res.text();
    if (text.includes('member')) pages.push(text);
    return new Response(text, { status: res.status, headers: res.headers });
  };

/** Runs an export of the payments with `args`, counting what `JSON.parse` is given meanwhile. */
async function exportCounting(args: string[]): Promise<{ parsed: string[]; out: string }> {
  const parsed: string[] = [];
  const parse = JSON.parse.bind(JSON);
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    parsed.push(text);
    return parse(text, reviver) as unknown;
  });
  const r = await runInProcess(world, dir, ['payments', '--taxpayer', world.taxpayer, '--items-per-page', '20', '--quiet', ...args], {
    wrapFetch: recordPages,
  });
  vi.mocked(JSON.parse).mockRestore();
  expect(r.code).toBe(0);
  return { parsed, out: r.stdout };
}

const ids = (): string[] => world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices/payments`).map((i) => (i as { id: string }).id);

describe('a page is read once', () => {
  it.each([['ndjson'], ['json']])('%s: one scan per page, and no item is ever JSON.parsed', async (format) => {
    const { parsed, out } = await exportCounting(['--format', format]);
    expect(pages).toHaveLength(5);
    // Each page is scanned once, as its bytes (a byte text: http/body.ts readBoundedByteText), never decoded.
    expect(vi.mocked(scanPageText).mock.calls).toEqual(pages.map((page) => [Buffer.from(page, 'utf8').toString('latin1'), true]));
    expect(exceedsJsonDepth).not.toHaveBeenCalled();
    for (const page of pages) expect(parsed).not.toContain(page);
    // Only the envelopes were parsed: no parsed text holds an item.
    const itemIds = ids();
    expect(parsed.filter((text) => itemIds.some((id) => text.includes(id)))).toEqual([]);
    expect(itemIds.every((id) => out.includes(id))).toBe(true);
  });

  it('csv: one scan per page, and one JSON.parse of each member for the values', async () => {
    const { parsed, out } = await exportCounting(['--format', 'csv']);
    expect(pages).toHaveLength(5);
    expect(vi.mocked(scanPageText).mock.calls).toEqual(pages.map((page) => [Buffer.from(page, 'utf8').toString('latin1'), true]));
    expect(exceedsJsonDepth).not.toHaveBeenCalled();
    for (const page of pages) expect(parsed).not.toContain(page);
    // Each item is parsed once, alone, from its text exactly as its page holds it.
    const itemIds = ids();
    const withItems = parsed.filter((text) => itemIds.some((id) => text.includes(id)));
    expect(withItems).toHaveLength(itemIds.length);
    expect(withItems.map((text) => itemIds.filter((id) => text.includes(`"${id}"`)))).toEqual(itemIds.map((id) => [id]));
    for (const text of withItems) {
      expect(text.startsWith('{')).toBe(true);
      expect(pages.some((page) => page.includes(text))).toBe(true);
    }
    expect(out.split('\r\n').filter((l) => l !== '')).toHaveLength(96);
  });
});
