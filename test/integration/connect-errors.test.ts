/**
 * A wrong base URL fails at once: a connection refused, an unknown host, a blocked port
 * or a server without TLS before the API answered anything in this run ends with exit 6 and one
 * line naming the origin, the likely cause and base-url; after the API has answered, the same
 * failures are retried. The bounds of each attempt are named in words (`1 ms`, not `0.0 s`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { createTransportFetch } from '../../src/http/transport.js';
import { canaryFree, createWorld, removeTempDirs, runInProcess, serveWorld, tempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

const WRONG_URL = 'before the API answered anything in this run: the base URL is most likely wrong; check base-url';

/** Counts the requests a run sends through `inner`. */
function counting(calls: { n: number }): (inner: FetchLike) => FetchLike {
  return (inner) => (input, init) => {
    calls.n++;
    return inner(input, init);
  };
}

/** A served world, closed: a port where nothing listens, and its base URL. */
async function closedWorld() {
  const world = await serveWorld();
  await world.close();
  return world;
}

describe('first contact with an origin where nothing listens', () => {
  it('names the origin, suggests base-url and the sandbox, exit 6 at once: one request, no retry', async () => {
    const world = await closedWorld();
    const calls = { n: 0 };
    const run = await runInProcess(world, tempDir(), ['entities', '--no-progress'], { wrapFetch: counting(calls) });
    expect(run.code).toBe(6);
    expect(calls.n).toBe(1);
    expect(run.lines).toEqual([
      `collections: ECONNREFUSED: connection refused by ${world.base}, ${WRONG_URL} (\`collections config get base-url\`, --base-url or COLLECTIONS_BASE_URL); ` +
        'to try the tool locally, run `collections sandbox` and use the base URL it prints',
    ]);
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
  });

  it.each([
    ['ratelimit (a probe of entities and one of events)', ['ratelimit'], 2],
    ['the dry run', ['entities', '--dry-run'], 1],
  ])('%s answers at once with the same line', async (_name, args, requests) => {
    const world = await closedWorld();
    const calls = { n: 0 };
    const run = await runInProcess(world, tempDir(), args, { wrapFetch: counting(calls) });
    expect(run.code).toBe(6);
    expect(calls.n).toBe(requests);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toContain(`ECONNREFUSED: connection refused by ${world.base}, ${WRONG_URL}`);
  });

  it('port 9 (one fetch blocks, "bad port"): at once, the line names the port and base-url, never the key', async () => {
    const world = createWorld();
    const run = await runInProcess(world, tempDir(), ['entities', '--no-progress'], {
      onContext: (t) => {
        t.ctx.fetch = createTransportFetch({ env: {} });
      },
    });
    expect(run.code).toBe(6);
    expect(run.lines).toEqual([
      'collections: bad port: fetch never connects to port 9 of http://127.0.0.1:9 (a port the Fetch standard blocks, like a refused connection), ' +
        `${WRONG_URL} (\`collections config get base-url\`, --base-url or COLLECTIONS_BASE_URL); the API listens on another port`,
    ]);
    expect(canaryFree(run.stdout, run.stderr)).toBe(true);
  });

  it('an https:// base URL to an http server says it does not speak TLS and suggests http://, at once', async () => {
    const world = await serveWorld();
    const https = world.base.replace('http:', 'https:');
    try {
      const run = await runInProcess(world, tempDir(), ['entities', '--no-progress', '--base-url', https, '--api-key', world.key], {
        connectVia: 'none',
        onContext: (t) => {
          t.ctx.fetch = createTransportFetch({ env: {} });
        },
      });
      expect(run.code).toBe(6);
      expect(run.lines).toHaveLength(1);
      expect(run.lines[0]).toMatch(
        new RegExp(
          `^collections: ${https.replace(/\./g, '\\.')} does not speak TLS \\(ERR_SSL_[A-Z_]+: its answer to the handshake was plain text\\), `,
        ),
      );
      expect(run.lines[0]).toContain(`if it is an http server, use ${world.base} as base-url`);
    } finally {
      await world.close();
    }
  });
});

describe('after the API has answered, the same failure is an outage: retried', () => {
  it('refused after the first page: retried with backoff, exit 0, output complete', async () => {
    const world = createWorld({ faults: 'refuse requests=2-3' });
    const run = await runInProcess(world, tempDir(), ['invoices', '--taxpayer', createWorld().taxpayer, '--items-per-page', '20', '--no-progress']);
    expect(run.code).toBe(0);
    expect(run.lines.filter((l) => l.includes('ECONNREFUSED: connection refused by') && / retry \d in /.test(l))).toHaveLength(2);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(60);
  });

  it('the answer of an earlier run of the same process counts (a client of a many-taxpayer run, say)', async () => {
    const world = createWorld();
    const first = await runInProcess(world, tempDir(), ['entities', '--no-progress']);
    expect(first.code).toBe(0);
    const n = world.sandbox.requests().length;
    world.sandbox.setFaults(`refuse requests=${n + 1}-${n + 2}`);
    const run = await runInProcess(world, tempDir(), ['entities', '--no-progress']);
    expect(run.code).toBe(0);
    expect(run.lines.filter((l) => / retry \d in /.test(l))).toHaveLength(2);
  });
});

describe('per-attempt timeouts in words', () => {
  it('--timeout 0.001 reports "timeout after 1 ms", never 0.0 s', async () => {
    const world = createWorld({ faults: 'hang' });
    const run = await runInProcess(world, tempDir(), ['entities', '--timeout', '0.001', '--retries', '0', '--no-progress']);
    expect(run.code).toBe(6);
    expect(run.lines.at(-1)).toMatch(/^collections: the API could not be read \(GET \/entities\?\S+\): timeout after 1 ms$/);
  });
});
