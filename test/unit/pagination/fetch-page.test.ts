import { describe, expect, it } from 'vitest';
import type { BodyParser, Client, ClientResponse, GetOptions } from '../../../src/http/client.js';
import { UnreadableBodyError } from '../../../src/http/client.js';
import { HostileResponseError } from '../../../src/errors.js';
import { fetchPage } from '../../../src/pagination/fetch-page.js';

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

const fetchWith = (text: string, contentType?: string) => fetchPage(clientAnswering(text, contentType), URL_1);

describe('fetchPage: one reader for every format', () => {
  it('reads the envelope, and the members as texts and as values', async () => {
    const text = '{"hydra:totalItems":2,"hydra:member":[{"id":1,"x":1.50},{"id":2}],"hydra:view":{"hydra:next":"\\/x?page=2"}}';
    const fetched = await fetchWith(text);
    expect(fetched.page.totalItems).toBe(2);
    expect(fetched.page.view).toEqual({ next: '/x?page=2' });
    expect(fetched.page.members.texts()).toEqual(['{"id":1,"x":1.50}', '{"id":2}']);
    expect(fetched.page.members.values().map((v) => JSON.stringify(v))).toEqual(['{"id":1,"x":"1.50"}', '{"id":2}']);
    expect(String((fetched.page.members.values()[0] as { x: unknown }).x)).toBe('1.50');
    expect(fetched.text).toBe(text);
  });

  it.each<[string, string, string | undefined, RegExp]>([
    ['invalid JSON', '{"hydra:member":[{"a":1},', undefined, /^invalid JSON$/],
    ['an invalid member', '{"hydra:member":[{"a":01}]}', undefined, /^invalid JSON$/],
    ['HTML by its Content-Type, even when it would parse', '{"hydra:member":[]}', 'text/html; charset=utf-8', /^HTML instead of JSON$/],
    ['not a collection', '{"a":1}', undefined, /^not a Hydra collection/],
  ])('refuses %s: a retryable UnreadableBodyError', async (_name, text, contentType, message) => {
    const err = await fetchWith(text, contentType).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableBodyError);
    expect((err as Error).message).toMatch(message);
  });

  it('refuses JSON nested too deep, not retried, naming the page', async () => {
    const text = `{"hydra:member":[${'['.repeat(100)}${']'.repeat(100)}]}`;
    const err = await fetchWith(text).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostileResponseError);
    expect((err as Error).message).toMatch(/nested more than 64 levels deep \(GET \/taxpayers\/X\/invoices\?page=1\)/);
  });
});
