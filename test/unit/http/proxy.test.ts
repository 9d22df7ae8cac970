import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { isLoopbackHost, proxyFor } from '../../../src/http/proxy.js';

const HTTP = new URL('http://api.example.com/entities');
const HTTPS = new URL('https://api.example.com/entities');
const PROXY = 'http://proxy.example:3128';

describe('proxyFor: which proxy a request goes through (issue 27)', () => {
  it.each<[string, URL, Record<string, string>, string | undefined]>([
    ['http uses HTTP_PROXY', HTTP, { HTTP_PROXY: PROXY }, 'HTTP_PROXY'],
    ['lower case first', HTTP, { http_proxy: PROXY, HTTP_PROXY: 'http://other:1' }, 'http_proxy'],
    ['an empty variable counts as unset', HTTP, { http_proxy: '', HTTP_PROXY: PROXY }, 'HTTP_PROXY'],
    ['http never reads HTTPS_PROXY', HTTP, { HTTPS_PROXY: PROXY }, undefined],
    ['https uses HTTPS_PROXY first', HTTPS, { HTTPS_PROXY: PROXY, HTTP_PROXY: 'http://other:1' }, 'HTTPS_PROXY'],
    ['https falls back to HTTP_PROXY', HTTPS, { HTTP_PROXY: PROXY }, 'HTTP_PROXY'],
    ['NO_PROXY host', HTTPS, { HTTPS_PROXY: PROXY, NO_PROXY: 'api.example.com' }, undefined],
    ['NO_PROXY domain suffix', HTTPS, { HTTPS_PROXY: PROXY, NO_PROXY: '.example.com' }, undefined],
    ['NO_PROXY *.domain', HTTPS, { HTTPS_PROXY: PROXY, no_proxy: 'intranet, *.example.com' }, undefined],
    ['NO_PROXY host:port of another port', HTTPS, { HTTPS_PROXY: PROXY, NO_PROXY: 'api.example.com:8443' }, 'HTTPS_PROXY'],
    ['NO_PROXY host:port of its port', HTTPS, { HTTPS_PROXY: PROXY, NO_PROXY: 'api.example.com:443' }, undefined],
    ['NO_PROXY *', HTTPS, { HTTPS_PROXY: PROXY, NO_PROXY: '*' }, undefined],
    ['NO_PROXY of a name that only ends alike', HTTPS, { HTTPS_PROXY: PROXY, NO_PROXY: 'ample.com' }, 'HTTPS_PROXY'],
    ['127.0.0.1 goes direct', new URL('http://127.0.0.1:8787/'), { HTTP_PROXY: PROXY }, undefined],
    ['127.8.9.10 goes direct', new URL('http://127.8.9.10:8787/'), { HTTP_PROXY: PROXY }, undefined],
    ['localhost goes direct', new URL('http://localhost:8787/'), { HTTP_PROXY: PROXY }, undefined],
    ['[::1] goes direct', new URL('http://[::1]:8787/'), { HTTP_PROXY: PROXY }, undefined],
    ['10.0.0.1 is not loopback', new URL('http://10.0.0.1/'), { HTTP_PROXY: PROXY }, 'HTTP_PROXY'],
  ])('%s', (_name, target, env, variable) => {
    expect(proxyFor(target, env)?.variable).toBe(variable);
  });

  it('host:port is read as http://host:port (as curl and Go); userinfo is kept for Proxy-Authorization', () => {
    expect(proxyFor(HTTP, { HTTP_PROXY: 'proxy.example:3128' })?.url.href).toBe('http://proxy.example:3128/');
    expect(proxyFor(HTTP, { HTTP_PROXY: 'http://u:p@proxy.example:3128' })?.url.password).toBe('p');
  });

  it.each([
    ['notaurl', HTTPS, { HTTPS_PROXY: 'notaurl' }, 'HTTPS_PROXY'],
    ['a value with spaces', HTTP, { http_proxy: 'not a url' }, 'http_proxy'],
    ['another scheme', HTTP, { HTTP_PROXY: 'ftp://proxy.example:21' }, 'HTTP_PROXY'],
    ['a password in a malformed value', HTTP, { HTTP_PROXY: 'http://u:s3cret@[bad' }, 'HTTP_PROXY'],
    ['even for a loopback host (as Go)', new URL('http://127.0.0.1:8787/'), { HTTP_PROXY: 'not a url' }, 'HTTP_PROXY'],
  ])('%s that applies is a usage error naming the variable, never its value', (_name, target, env, variable) => {
    const err = (() => {
      try {
        proxyFor(target, env);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toBe(`${variable} is not a proxy URL (http://host:port or https://host:port)`);
    expect(`${(err as UsageError).message} ${(err as UsageError).hint}`).not.toContain(Object.values(env)[0]);
  });

  it('a malformed variable of the other scheme is not read', () => {
    expect(proxyFor(HTTP, { HTTPS_PROXY: 'notaurl' })).toBeUndefined();
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    ['localhost.example', false],
    ['128.0.0.1', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
