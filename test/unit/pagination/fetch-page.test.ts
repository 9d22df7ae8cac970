import { describe, expect, it } from 'vitest';
import type { BodyParser, Client, ClientResponse, GetOptions } from '../../../src/http/client.js';
import { UnreadableBodyError } from '../../../src/http/client.js';
import { HostileResponseError } from '../../../src/errors.js';
import { fetchPage, type PageParse } from '../../../src/pagination/fetch-page.js';

const URL_1 = new URL('http://127.0.0.1:4010/taxpayers/X/invoices?page=1');

/** A client that answers every GET with `text` and `contentType`, running the caller's parser as the real one does. */
function clientAnswering(text: string, contentType = 'application/ld+json'): Client {
  return {
    requests: 0,
    get<T>(url: URL, options: GetOptions<T> = {}): Promise<ClientResponse<T>> {
      const headers = new Headers({ 'content-type': contentType });
      const parse = (options.parse ?? ((t: string) => t)) as BodyParser<T>;
      try {
        const body = parse(text, { url, status: 200, headers, receivedAt: 0 });
        return Promise.resolve({ url, status: 200, headers, text, receivedAt: 0, body });
      } catch (err) {
        return Promise.reject(err);
      }
    },
    probe() {
      return Promise.reject(new Error('unused'));
    },
  };
}

const fetchWith = (text: string, pageParse: PageParse, contentType?: string) => fetchPage(clientAnswering(text, contentType), URL_1, { pageParse });

describe('fetchPage: the byte path and the value path', () => {
  it('read the same envelope; the byte path gives the members as their JSON texts', async () => {
    const text = '{"hydra:totalItems":2,"hydra:member":[{"id":1,"x":1.50},{"id":2}],"hydra:view":{"hydra:next":"/x?page=2"}}';
    const bytes = await fetchWith(text, 'bytes');
    const values = await fetchWith(text, 'values');
    expect(bytes.page).toEqual({ members: ['{"id":1,"x":1.5}', '{"id":2}'], membersAsJson: true, totalItems: 2, view: { next: '/x?page=2' } });
    expect(values.page).toEqual({ members: [{ id: 1, x: 1.5 }, { id: 2 }], totalItems: 2, view: { next: '/x?page=2' } });
    expect(bytes.text).toBe(text);
  });

  it('fall back to the value path where the scan gives up (values, not texts)', async () => {
    const page = await fetchWith('{"member":[1],"hydra:member":[2]}', 'bytes');
    expect(page.page).toEqual({ members: [2] });
  });

  it.each<[string, string, string | undefined, RegExp]>([
    ['invalid JSON', '{"hydra:member":[{"a":1},', undefined, /^invalid JSON$/],
    ['an invalid member', '{"hydra:member":[{"a":01}]}', undefined, /^invalid JSON$/],
    ['HTML', '{"hydra:member":[]}', 'text/html', /^HTML instead of JSON$/],
    ['not a collection', '{"a":1}', undefined, /^not a Hydra collection/],
  ])('refuse %s the same way: a retryable UnreadableBodyError', async (_name, text, contentType, message) => {
    for (const mode of ['bytes', 'values'] as const) {
      const err = await fetchWith(text, mode, contentType).catch((e: unknown) => e);
      expect(err, mode).toBeInstanceOf(UnreadableBodyError);
      expect((err as Error).message, mode).toMatch(message);
    }
  });

  it('refuse JSON nested too deep on both paths, not retried, naming the page', async () => {
    const text = `{"hydra:member":[${'['.repeat(100)}${']'.repeat(100)}]}`;
    for (const mode of ['bytes', 'values'] as const) {
      const err = await fetchWith(text, mode).catch((e: unknown) => e);
      expect(err, mode).toBeInstanceOf(HostileResponseError);
      expect((err as Error).message, mode).toMatch(/nested more than 64 levels deep \(GET \/taxpayers\/X\/invoices\?page=1\)/);
    }
  });
});
