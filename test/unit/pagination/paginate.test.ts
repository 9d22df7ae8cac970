import { describe, expect, it } from 'vitest';
import type { BodyParser, Client, ClientResponse, GetOptions } from '../../../src/http/client.js';
import { paginate, type PageStep } from '../../../src/pagination/paginate.js';
import { UnsafeLinkError } from '../../../src/errors.js';

const BASE = new URL('http://127.0.0.1:4010/');

/**
 * A client whose pages are a map from absolute URL to next link; each page's members are
 * `members(url)`, by default its URL alone.
 */
function fakeClient(
  links: Record<string, string | undefined>,
  members = (url: URL): unknown[] => [url.href],
  self: Record<string, string> = {},
): Client & { fetched: string[] } {
  const fetched: string[] = [];
  return {
    fetched,
    requests: 0,
    get<T>(url: URL, options: GetOptions<T> = {}): Promise<ClientResponse<T>> {
      fetched.push(url.href);
      if (!(url.href in links)) return Promise.reject(new Error(`unexpected request to ${url.href}`));
      const next = links[url.href];
      const view = { ...(self[url.href] !== undefined ? { '@id': self[url.href] } : {}), ...(next !== undefined ? { 'hydra:next': next } : {}) };
      const text = JSON.stringify({ 'hydra:member': members(url), ...(Object.keys(view).length > 0 ? { 'hydra:view': view } : {}) });
      const headers = new Headers({ 'content-type': 'application/ld+json' });
      const parse = (options.parse ?? ((t: string) => t)) as BodyParser<T>;
      const body = parse(text, { url, status: 200, headers, receivedAt: 0 });
      return Promise.resolve({ url, status: 200, headers, text, receivedAt: 0, body });
    },
    probe() {
      return Promise.reject(new Error('unused'));
    },
  };
}

async function run(client: Client, start: string): Promise<PageStep[]> {
  const out: PageStep[] = [];
  for await (const s of paginate({ client, baseUrl: BASE, start: new URL(start) })) out.push(s);
  return out;
}

describe('paginate', () => {
  it('follows relative, query-only and absolute links against the current page URL', async () => {
    const client = fakeClient({
      'http://127.0.0.1:4010/taxpayers/X/invoices?page=1': '/taxpayers/X/invoices?page=2',
      'http://127.0.0.1:4010/taxpayers/X/invoices?page=2': '?page=3',
      'http://127.0.0.1:4010/taxpayers/X/invoices?page=3': 'http://127.0.0.1:4010/taxpayers/X/invoices?page=4',
      'http://127.0.0.1:4010/taxpayers/X/invoices?page=4': undefined,
    });
    const steps = await run(client, 'http://127.0.0.1:4010/taxpayers/X/invoices?page=1');
    expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(steps.map((s) => s.next?.search)).toEqual(['?page=2', '?page=3', '?page=4', undefined]);
    expect(client.fetched).toHaveLength(4);
    // Each step carries the exact text its page was parsed from.
    for (const s of steps) expect((JSON.parse(s.text) as { 'hydra:member': unknown[] })['hydra:member']).toEqual(s.page.members.values());
  });

  it.each([
    ['another host', 'http://evil.example/x?page=2'],
    ['scheme-relative', '//evil.example/x'],
    ['userinfo trick', 'http://127.0.0.1:80@evil/x'],
    ['another port', 'http://127.0.0.1:4011/x'],
  ])('refuses a next link to %s before requesting it, and does not yield the page', async (_n, link) => {
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=1': '/e?page=2', 'http://127.0.0.1:4010/e?page=2': link });
    const steps: PageStep[] = [];
    const err = await (async () => {
      for await (const s of paginate({ client, baseUrl: BASE, start: new URL('http://127.0.0.1:4010/e?page=1') })) steps.push(s);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeLinkError);
    expect(steps.map((s) => s.index)).toEqual([0]);
    expect(client.fetched).toEqual(['http://127.0.0.1:4010/e?page=1', 'http://127.0.0.1:4010/e?page=2']);
  });

  it.each([
    ['to itself', '?page=2'],
    ['to an earlier page', '/e?page=1'],
    ['to an earlier page spelled differently', 'HTTP://127.0.0.1:4010/x/../e?page=1#top'],
  ])('detects a loop %s', async (_n, link) => {
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=1': '?page=2', 'http://127.0.0.1:4010/e?page=2': link });
    await expect(run(client, 'http://127.0.0.1:4010/e?page=1')).rejects.toThrow(/loops back/);
    expect(client.fetched).toHaveLength(2);
  });

  it("detects a loop to the first page by the name it gives itself (view's @id: page=1 for a first page asked without page)", async () => {
    const first = 'http://127.0.0.1:4010/e?itemsPerPage=2';
    const client = fakeClient(
      { [first]: '/e?itemsPerPage=2&page=2', 'http://127.0.0.1:4010/e?itemsPerPage=2&page=2': '/e?itemsPerPage=2&page=1' },
      undefined,
      {
        [first]: '/e?itemsPerPage=2&page=1',
      },
    );
    await expect(run(client, first)).rejects.toThrow(/loops back .*page=1/);
    expect(client.fetched).toHaveLength(2);
  });

  it('a link padded with a repeated pair is the page it pads (query normalised: identical pairs in a row folded)', async () => {
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=1': '?page=1&x=1', 'http://127.0.0.1:4010/e?page=1&x=1': '?x=1&page=1&x=1' });
    await expect(run(client, 'http://127.0.0.1:4010/e?page=1')).rejects.toThrow(/loops back .*\?x=1&page=1&x=1/);
    expect(client.fetched).toHaveLength(2);
  });

  it('a page whose items were already fetched under another URL is a loop, refused before it is yielded', async () => {
    // Padding that alternates values defeats any URL normalisation; the same items do not.
    const links: Record<string, string> = {};
    let url = 'http://127.0.0.1:4010/e?page=2';
    for (let i = 0; i < 20; i++) {
      const next = `${url}&x=${i % 2}`;
      links[url] = next;
      url = next;
    }
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=1': '?page=2', ...links }, (u) => [{ page: u.searchParams.get('page') }]);
    const steps: PageStep[] = [];
    const err = await (async () => {
      for await (const s of paginate({ client, baseUrl: BASE, start: new URL('http://127.0.0.1:4010/e?page=1') })) steps.push(s);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeLinkError);
    expect(String(err)).toMatch(/answered a page already fetched again under another URL \(GET \/e\?page=2&x=0: the same 1 items\)/);
    expect(steps.map((s) => s.page.members.values())).toEqual([[{ page: '1' }], [{ page: '2' }]]);
    expect(client.fetched).toHaveLength(3);
  });

  it('pages with the same first and last item but another count are distinct pages', async () => {
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=1': '?page=2', 'http://127.0.0.1:4010/e?page=2': undefined }, (u) =>
      u.searchParams.get('page') === '1' ? ['a', 'b'] : ['a', 'x', 'b'],
    );
    expect((await run(client, 'http://127.0.0.1:4010/e?page=1')).map((s) => s.page.members.length)).toEqual([2, 3]);
  });

  it('emptyPageEnds: an empty page ends the chain whatever it links to (API Platform 4.3.5+ cursor pages)', async () => {
    const client = fakeClient(
      { 'http://127.0.0.1:4010/e': '?c=2', 'http://127.0.0.1:4010/e?c=2': '?c=1', 'http://127.0.0.1:4010/e?c=1': '?c=0' },
      (u) => (u.search === '?c=1' ? [] : [u.href]),
    );
    const steps: PageStep[] = [];
    for await (const s of paginate({ client, baseUrl: BASE, start: new URL('http://127.0.0.1:4010/e'), emptyPageEnds: true })) steps.push(s);
    expect(steps.map((s) => [s.page.members.length, s.next?.search])).toEqual([
      [1, '?c=2'],
      [1, '?c=1'],
      [0, undefined],
    ]);
    expect(client.fetched).toHaveLength(3);
  });

  it('refuses a start URL of another origin without any request', async () => {
    const client = fakeClient({});
    await expect(run(client, 'http://evil.example/e')).rejects.toBeInstanceOf(UnsafeLinkError);
    expect(client.fetched).toEqual([]);
  });

  it('lets the caller break without fetching further', async () => {
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=1': '?page=2', 'http://127.0.0.1:4010/e?page=2': '?page=3' });
    for await (const s of paginate({ client, baseUrl: BASE, start: new URL('http://127.0.0.1:4010/e?page=1') })) {
      if (s.index === 0) break;
    }
    expect(client.fetched).toHaveLength(1);
  });
});
