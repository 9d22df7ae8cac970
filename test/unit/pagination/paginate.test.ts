import { describe, expect, it } from 'vitest';
import type { BodyParser, Client, ClientResponse, GetOptions } from '../../../src/http/client.js';
import { paginate, type PageStep } from '../../../src/pagination/paginate.js';
import { UnsafeLinkError } from '../../../src/errors.js';

const BASE = new URL('http://127.0.0.1:4010/');

/** A client whose pages are a map from absolute URL to next link; each page's one member is its URL. */
function fakeClient(links: Record<string, string | undefined>): Client & { fetched: string[] } {
  const fetched: string[] = [];
  return {
    fetched,
    requests: 0,
    get<T>(url: URL, options: GetOptions<T> = {}): Promise<ClientResponse<T>> {
      fetched.push(url.href);
      if (!(url.href in links)) return Promise.reject(new Error(`unexpected request to ${url.href}`));
      const next = links[url.href];
      const text = JSON.stringify({ 'hydra:member': [url.href], ...(next !== undefined ? { 'hydra:view': { 'hydra:next': next } } : {}) });
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

async function run(client: Client, start: string, seen?: string[]): Promise<PageStep[]> {
  const out: PageStep[] = [];
  for await (const s of paginate({ client, baseUrl: BASE, start: new URL(start), ...(seen ? { seen } : {}) })) out.push(s);
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

  it('detects a loop to a page fetched before a resume', async () => {
    const client = fakeClient({ 'http://127.0.0.1:4010/e?page=3': '/e?page=1' });
    await expect(run(client, 'http://127.0.0.1:4010/e?page=3', ['http://127.0.0.1:4010/e?page=1'])).rejects.toBeInstanceOf(UnsafeLinkError);
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
