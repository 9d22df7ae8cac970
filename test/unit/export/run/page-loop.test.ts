/**
 * Durability in groups (export/run/checkpoint-group.ts): a commit per 8 MiB or 1 s of pages, on
 * request between pages at once and mid-page only once the page is written, on flush; never a
 * mark other than the last page written, in order.
 */
import { describe, expect, it } from 'vitest';
import { createCheckpointGroups, GROUP_BYTES, GROUP_MS, parseGroupMs } from '../../../../src/export/run/page-loop.js';
import type { PageMark } from '../../../../src/export/files/destination.js';

const mark = (pages: number): PageMark => ({
  next: `https://api.test/x?page=${pages + 1}`,
  pages,
  items: pages * 10,
  totalItems: undefined,
  formatterState: () => ({}),
});

function setup(groupMs = GROUP_MS) {
  let now = 0;
  const committed: number[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const out = {
    pageWritten: async (m: PageMark): Promise<void> => {
      if (hold) await new Promise<void>((resolve) => (release = resolve));
      committed.push(m.pages);
    },
  };
  const groups = createCheckpointGroups({ out, clock: { monotonic: () => now }, groupMs });
  const page = async (n: number, bytes = 100): Promise<void> => {
    await groups.beginPage();
    await groups.pageWritten(mark(n), bytes);
  };
  return {
    groups,
    committed,
    page,
    advance: (ms: number) => (now += ms),
    hold: (on: boolean) => (hold = on),
    release: () => release?.(),
  };
}

describe('checkpoint groups', () => {
  it('commits the last page written once 1 s passed since the last commit, not before', async () => {
    const t = setup();
    await t.page(1);
    t.advance(999);
    await t.page(2);
    expect(t.committed).toEqual([]);
    t.advance(1);
    await t.page(3);
    expect(t.committed).toEqual([3]);
    t.advance(500);
    await t.page(4);
    expect(t.committed).toEqual([3]);
    expect(t.groups.commits).toBe(1);
  });

  it('commits once 8 MiB of text were written in the group', async () => {
    const t = setup();
    await t.page(1, GROUP_BYTES - 1);
    expect(t.committed).toEqual([]);
    await t.page(2, 1);
    expect(t.committed).toEqual([2]);
    await t.page(3, GROUP_BYTES - 1);
    expect(t.committed).toEqual([2]);
  });

  it('a request between pages (a rate-limit wait) commits at once, and the next page written too', async () => {
    const t = setup();
    await t.page(1);
    t.groups.request();
    await Promise.resolve();
    expect(t.committed).toEqual([1]);
    await t.page(2);
    expect(t.committed).toEqual([1, 2]);
    await t.page(3);
    expect(t.committed).toEqual([1, 2]);
  });

  it('a request mid-page commits once the page is written, not before', async () => {
    const t = setup();
    await t.page(1);
    await t.groups.beginPage();
    t.groups.request();
    await Promise.resolve();
    expect(t.committed).toEqual([]);
    await t.groups.pageWritten(mark(2), 10);
    expect(t.committed).toEqual([2]);
    await t.page(3);
    expect(t.committed).toEqual([2]);
  });

  it('a request with nothing new written commits nothing', async () => {
    const t = setup();
    t.groups.request();
    t.groups.request();
    await Promise.resolve();
    expect(t.committed).toEqual([]);
    expect(t.groups.commits).toBe(0);
  });

  it('the next page waits for a commit in flight, so commits never interleave with a write', async () => {
    const t = setup();
    await t.page(1);
    t.hold(true);
    t.groups.request();
    let began = false;
    const next = t.groups.beginPage().then(() => (began = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(began).toBe(false);
    t.release();
    await next;
    expect(t.committed).toEqual([1]);
  });

  it('flush commits the pending page; after a page whose write failed it commits nothing', async () => {
    const t = setup();
    await t.page(1);
    await t.groups.flush();
    expect(t.committed).toEqual([1]);
    await t.page(2);
    await t.groups.beginPage(); // page 3 starts, its write fails
    await t.groups.flush();
    expect(t.committed).toEqual([1]);
  });

  it('COLLECTIONS_CHECKPOINT_MS=0 commits every page', async () => {
    const t = setup(0);
    await t.page(1);
    await t.page(2);
    expect(t.committed).toEqual([1, 2]);
  });

  it('a failed commit is thrown by the next page and by flush', async () => {
    const groups = createCheckpointGroups({
      out: { pageWritten: () => Promise.reject(new Error('ENOSPC')) },
      clock: { monotonic: () => 0 },
      groupMs: GROUP_MS,
    });
    await groups.beginPage();
    await groups.pageWritten(mark(1), 1);
    groups.request();
    await expect(groups.beginPage()).rejects.toThrow('ENOSPC');
    await expect(groups.flush()).rejects.toThrow('ENOSPC');
  });
});

describe('parseGroupMs', () => {
  it('reads COLLECTIONS_CHECKPOINT_MS: unset or empty is 1 s; 0 to 3600000 ms', () => {
    expect(parseGroupMs({})).toBe(1000);
    expect(parseGroupMs({ COLLECTIONS_CHECKPOINT_MS: '' })).toBe(1000);
    expect(parseGroupMs({ COLLECTIONS_CHECKPOINT_MS: '0' })).toBe(0);
    expect(parseGroupMs({ COLLECTIONS_CHECKPOINT_MS: '3600000' })).toBe(3_600_000);
  });

  it.each(['-1', '1.5', '1e3', 'soon', '3600001', ' 5'])('refuses %j (exit 2)', (text) => {
    expect(() => parseGroupMs({ COLLECTIONS_CHECKPOINT_MS: text })).toThrow(/COLLECTIONS_CHECKPOINT_MS must be a whole number/);
  });
});
