/**
 * Error answers as real API Platform writes them: the sandbox's `errors: 'problem'`
 * switch answers its 400, 404 and 405 as `application/problem+json` (an unknown route's 404 with its
 * own body), and the one-line error shows the server's reason, the exit code of the status, and a
 * hint that names what may be wrong: the ids given or the path itself, and `--items-per-page` when
 * the server refuses the page size. The default `{"message": …}` bodies give the same lines.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { API_ERROR_BODIES } from '../fixtures/api-errors.js';
import { BASE, canaryFree, createWorld, removeTempDirs, runInProcess, tempDir, type SandboxWorld } from '../helpers/world.js';

afterAll(removeTempDirs);

/** Asks for one page size more than the sandbox allows (1000): a server whose maximum is below what the tool asks. */
const askTooMany =
  (inner: FetchLike): FetchLike =>
  (input, init) =>
    inner(String(input).replace('itemsPerPage=1000', 'itemsPerPage=1001'), init);

const fixture = (name: string): string => API_ERROR_BODIES.find((e) => e.name === name)!.body;

async function answer(world: SandboxWorld, path: string): Promise<{ type: string | null; body: string }> {
  const res = await world.sandbox.handle(new Request(`${BASE}${path}`, { headers: { 'X-Api-Key': world.key } }));
  return { type: res.headers.get('content-type'), body: await res.text() };
}

async function run(world: SandboxWorld, args: string[], wrapFetch?: (inner: FetchLike) => FetchLike) {
  const r = await runInProcess(world, tempDir(), [...args, '--no-progress'], wrapFetch ? { wrapFetch } : {});
  expect(r.lines).toHaveLength(1);
  expect(canaryFree(r.stderr)).toBe(true);
  return { code: r.code, line: r.lines[0]! };
}

describe("the sandbox's problem+json errors (errors: 'problem')", () => {
  const world = createWorld({ errors: 'problem' });

  it("writes the framework's bodies: an unknown route's 404, an unknown id's 404, a 400", async () => {
    expect(await answer(world, '/v2/entities')).toEqual({ type: 'application/problem+json', body: fixture("an unknown route's 404") });
    expect(await answer(world, '/taxpayers/NOPE010101AAA/invoices')).toEqual({
      type: 'application/problem+json',
      body: fixture("the framework's 404 of an unknown id"),
    });
    const bad = await answer(world, '/entities?itemsPerPage=0');
    expect(bad.type).toBe('application/problem+json');
    expect(JSON.parse(bad.body)).toEqual({
      '@context': '/contexts/Error',
      '@type': 'Error',
      title: 'An error occurred',
      detail: 'itemsPerPage must be an integer between 1 and 1000',
      status: 400,
      description: 'itemsPerPage must be an integer between 1 and 1000',
      type: '/errors/400',
    });
  });

  it('400 naming itemsPerPage: exit 2, the reason, and the --items-per-page hint', async () => {
    const r = await run(world, ['entities'], askTooMany);
    expect(r.code).toBe(2);
    expect(r.line).toMatch(
      /^collections: the API rejected the parameters \(GET \/entities\?itemsPerPage=1000: HTTP 400\): itemsPerPage must be an integer between 1 and 1000 \[X-Request-ID: \S+\]; the API refuses this page size \(itemsPerPage=1000\): give --items-per-page 1000 or less$/,
    );
  });

  it('404 of an unknown taxpayer: exit 4, "Not Found", the hint names the id and the path', async () => {
    const r = await run(world, ['invoices', '--taxpayer', 'NOPE010101AAA']);
    expect(r.code).toBe(4);
    expect(r.line).toMatch(
      /: HTTP 404\): Not Found \[X-Request-ID: \S+\]; check --taxpayer NOPE010101AAA, or whether the API serves http:\/\/127\.0\.0\.1:9\/taxpayers\/NOPE010101AAA\/invoices at all$/,
    );
  });

  it('404 of a route the server lacks (a base URL with a wrong prefix): the hint names the path, not --taxpayer alone', async () => {
    const r = await runInProcess(world, tempDir(), ['invoices', '--taxpayer', world.taxpayer, '--no-progress'], {
      connectVia: 'env',
      env: { COLLECTIONS_BASE_URL: `${BASE}/v2` },
    });
    expect(r.code).toBe(4);
    expect(r.lines[0]).toContain(
      `; check --taxpayer ${world.taxpayer}, or whether the API serves http://127.0.0.1:9/v2/taxpayers/${world.taxpayer}/invoices at all`,
    );
    const none = await runInProcess(world, tempDir(), ['entities', '--no-progress'], {
      connectVia: 'env',
      env: { COLLECTIONS_BASE_URL: `${BASE}/v2` },
    });
    expect(none.code).toBe(4);
    expect(none.lines[0]).toContain('): Not Found [X-Request-ID: ');
    expect(none.lines[0]).toContain('; check the path /v2/entities and the path of base-url http://127.0.0.1:9/v2 (');
  });

  it('422 of an invalid filter value: exit 2, the violations as the reason', async () => {
    const r = await run(world, ['entities', '--param', 'updatedAt[after]=yesterday']);
    expect(r.code).toBe(2);
    expect(r.line).toMatch(/: HTTP 422\): updatedAt\[after\]: This value is not a valid datetime\. \[X-Request-ID: \S+\]; check --param values$/);
  });
});

describe('the default {"message": …} bodies give the same lines', () => {
  const world = createWorld();

  it('writes {"message": …} as application/json', async () => {
    expect(await answer(world, '/taxpayers/NOPE010101AAA/invoices')).toEqual({ type: 'application/json', body: '{"message":"Not Found"}' });
  });

  it('400 naming itemsPerPage: exit 2 and the --items-per-page hint; 404: exit 4 and the id', async () => {
    const bad = await run(world, ['entities'], askTooMany);
    expect(bad.code).toBe(2);
    expect(bad.line).toMatch(
      /: itemsPerPage must be an integer between 1 and 1000 \[X-Request-ID: \S+\]; the API refuses this page size \(itemsPerPage=1000\)/,
    );
    const missing = await run(world, ['invoices', '--taxpayer', 'NOPE010101AAA']);
    expect(missing.code).toBe(4);
    expect(missing.line).toMatch(/: HTTP 404\): Not Found \[X-Request-ID: \S+\]; check --taxpayer NOPE010101AAA, or whether/);
  });
});
