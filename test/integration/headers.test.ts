/**
 * `-H, --header 'Name: value'` and the profile's stored headers, through the whole CLI in process:
 * sent with every request of every command that sends one (exports in both modes, `get`, the dry
 * run's request, `ratelimit`'s probes), refused before any request for the tool's own and the
 * transport's headers, and a credential-like value in no output: stdout, stderr (`--verbose`, an
 * error, `--log-format json`, `--dry-run`), the manifest, the checkpoint, the state file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { SAMPLE_ENTITY_IDS } from '../../src/sandbox/records/entities.js';
import { createWorld, interruptAt, removeTempDirs, runInProcess, tempDir, type InProcessOptions, type TempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

const ENTITY = `/entities/${SAMPLE_ENTITY_IDS[0]}/invoices`;
/** Credential values that must appear in no output (only in the requests' headers). */
const TOKEN = 'canary-TOKEN-91c2-do-not-print';
const SESSION = 'canary-SESSION-5d0e-do-not-print';
const SECRET_FLAGS = ['-H', `Authorization: Bearer ${TOKEN}`, '-H', `X-Session-Token: ${SESSION}`];

/** Records the headers of every request sent through the run's fetch. */
function recordHeaders(into: Headers[]): InProcessOptions['wrapFetch'] {
  return (inner: FetchLike): FetchLike =>
    async (input, init) => {
      into.push(new Headers(init?.headers));
      return inner(input, init);
    };
}

/** A fetch that first answers `times` requests with `status` and a message quoting the credentials back (as a careless server might). */
function echoing(status: number, times: number): InProcessOptions['wrapFetch'] {
  let left = times;
  return (inner: FetchLike): FetchLike =>
    async (input, init) => {
      if (left-- <= 0) return inner(input, init);
      const h = new Headers(init?.headers);
      const body = JSON.stringify({ message: `rejected ${h.get('authorization')} and ${encodeURIComponent(h.get('x-session-token') ?? '')}` });
      return new Response(body, { status, headers: { 'Content-Type': 'application/json', 'X-Request-ID': 'Root=1-echo' } });
    };
}

function setup() {
  const world = createWorld({ seed: 3, limit: 0, sizes: { taxpayers: 2, invoicesPerTaxpayer: 23, paymentsPerTaxpayer: 9, entities: 5, events: 6 } });
  const dir = tempDir('collections-headers-');
  const run = (argv: string[], options: InProcessOptions = {}) => runInProcess(world, dir, argv, { connectVia: 'env', ...options });
  return { world, dir, run };
}

/** Every file under `dir`, with its text. */
function filesOf(dir: TempDir): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push([full, readFileSync(full, 'latin1')]);
    }
  };
  walk(dir.path);
  return out;
}

/** Whether a text holds a credential, raw or percent-encoded. */
const leaks = (text: string): boolean => [TOKEN, SESSION].some((s) => text.includes(s) || text.includes(encodeURIComponent(s)));

describe('--header on every request', () => {
  it.each([
    ['a named export, offset with pages in flight', ['invoices', '--taxpayer', 'TP0', '--items-per-page', '5', '--concurrency', '3', '-q']],
    ['a named export, cursor', ['payments', '--taxpayer', 'TP0', '--cursor', '--items-per-page', '4', '-q']],
    ['get', ['get', ENTITY, '--cursor', '--items-per-page', '7', '-q']],
    ['the dry run', ['get', ENTITY, '--dry-run']],
    ["ratelimit's probes", ['ratelimit', '--taxpayer', 'TP0', '--json']],
  ])('%s', async (_what, argv) => {
    const { world, run } = setup();
    const sent: Headers[] = [];
    const args = argv.map((a) => (a === 'TP0' ? world.taxpayer : a));
    const r = await run([...args, '-H', 'Accept-Version: 2020-06-28', '--header', 'X-Trace:  abc  '], { wrapFetch: recordHeaders(sent) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(sent.length).toBeGreaterThanOrEqual(argv.includes('--dry-run') ? 1 : 2);
    for (const h of sent) {
      expect(h.get('accept-version')).toBe('2020-06-28');
      expect(h.get('x-trace')).toBe('abc');
      expect(h.get('accept')).toBe('application/ld+json');
      expect(h.get('x-api-key')).toBe(world.key);
    }
  });

  it('a header stored in the profile goes with every request; --header replaces it by name, in any case', async () => {
    const { run } = setup();
    expect((await run(['config', 'set', 'header', 'Accept-Version: 2019-01-01'])).code).toBe(0);
    expect((await run(['config', 'set', 'header', 'X-Team: data'])).code).toBe(0);
    const stored: Headers[] = [];
    expect((await run(['get', '/invoices/payments', '-q'], { wrapFetch: recordHeaders(stored) })).code).toBe(0);
    expect(stored.map((h) => [h.get('accept-version'), h.get('x-team')])).toEqual([['2019-01-01', 'data']]);
    const flagged: Headers[] = [];
    const r = await run(['get', '/invoices/payments', '-q', '-H', 'accept-version: 2020-06-28'], { wrapFetch: recordHeaders(flagged) });
    expect(r.code).toBe(0);
    expect(flagged.map((h) => [h.get('accept-version'), h.get('x-team')])).toEqual([['2020-06-28', 'data']]);
    // User-Agent may be replaced (curl and gh allow it); Accept may not.
    const agent: Headers[] = [];
    await run(['entities', '-q', '-H', 'User-Agent: nightly-job/2'], { wrapFetch: recordHeaders(agent) });
    expect(agent[0]!.get('user-agent')).toBe('nightly-job/2');
  });
});

describe('refused headers: exit 2, one line, nothing sent or written', () => {
  const refused: Array<[string, RegExp]> = [
    ['X-Api-Key: other', /X-Api-Key cannot be set this way: the key comes from/],
    ['x-api-key: other', /x-api-key cannot be set this way/],
    ['Accept: application/json', /Accept cannot be set this way: the tool reads JSON-LD\/Hydra/],
    ['X-Pagination-Style: cursor', /--cursor sets it/],
    ['X-Pagination-Enable-Partial: 0', /--total sets it/],
    ['Host: evil.example', /Host cannot be set: the HTTP transport sets it/],
    ['Content-Length: 5', /transport sets it/],
    ['Accept-Encoding: identity', /transport sets it/],
    ['Bad Name: x', /is not a valid header name/],
    ['NoColon', /takes 'Name: value'/],
    ['X-Empty:', /has no value/],
    ['X-Split: a\r\nX-Api-Key: b', /line break, control character/],
    ['X-Euro: 5 €', /past U\+00FF/],
  ];
  it.each(refused.flatMap(([header, message]) => ['get', 'invoices', 'ratelimit'].map((command) => ({ command, header, message }))))(
    '$command -H $header',
    async ({ command, header, message }) => {
      const { world, run, dir } = setup();
      const out = ['--out', 'x.ndjson'];
      const args =
        command === 'get'
          ? ['get', '/entities', ...out]
          : command === 'invoices'
            ? ['invoices', '--taxpayer', world.taxpayer, ...out]
            : ['ratelimit'];
      const r = await run([...args, '-H', header]);
      expect(r.code).toBe(2);
      expect(r.requests).toHaveLength(0);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(dir.has('x.ndjson')).toBe(false);
    },
  );

  it('a stored header is checked as the flag is', async () => {
    const { run } = setup();
    const r = await run(['config', 'set', 'header', 'Accept: text/csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Accept cannot be set this way/);
  });
});

describe('a credential-like header value is masked in every output', () => {
  it('--verbose, an echoed error, --log-format json, --dry-run, the manifest, the checkpoint, the state file, config', async () => {
    const { run, dir } = setup();
    const texts: string[] = [];
    const keep = (r: { stdout: string; stderr: string }) => texts.push(r.stdout, r.stderr);
    const export_ = ['get', ENTITY, '--cursor', '--items-per-page', '5', '--out', 'inv.ndjson', '--state', 'state.json', ...SECRET_FLAGS];

    // --verbose, a 503 quoting the credentials back (retried), then a kill that keeps the checkpoint.
    const sent: Headers[] = [];
    const killed = await run([...export_, '-v', '-H', 'Accept-Version: 2020-06-28'], {
      wrapFetch: (inner) => recordHeaders(sent)!(echoing(503, 1)!(inner)),
      onContext: interruptAt(4).onContext!,
    });
    keep(killed);
    expect(killed.code).toBe(130);
    expect(sent[0]!.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(killed.stderr).toMatch(/HTTP 503: rejected \[REDACTED\] and \[REDACTED\]/);
    const checkpoint = filesOf(dir).find(([name]) => name.endsWith('inv.ndjson.checkpoint.json'));
    expect(checkpoint).toBeDefined();
    expect(checkpoint![1]).toContain('Accept-Version');

    // --log-format json, resumed to the end: manifest and state written.
    const resumed = await run([...export_, '--resume', '--log-format', 'json', '-H', 'Accept-Version: 2020-06-28'], { wrapFetch: echoing(502, 1) });
    keep(resumed);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('[REDACTED]');
    const manifest = JSON.parse(dir.read('inv.ndjson.manifest.json').toString()) as { outputs: Array<{ headers: Record<string, string> }> };
    expect(manifest.outputs[0]!.headers).toEqual({ Authorization: 'Bearer ****rint', 'X-Session-Token': '****rint', 'Accept-Version': '2020-06-28' });

    // An error the server words with the credentials: one line, scrubbed.
    const failed = await run(['get', ENTITY, '--retries', '0', ...SECRET_FLAGS], { wrapFetch: echoing(400, 1) });
    keep(failed);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^collections: .*rejected \[REDACTED\]/);

    // The dry run shows the headers it would send, masked like the key.
    const dry = await run(['get', ENTITY, '--dry-run', ...SECRET_FLAGS]);
    keep(dry);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/Authorization: Bearer \*\*\*\*rint\n.*X-Session-Token: \*\*\*\*rint\n/s);

    // Stored in a profile: config shows it masked.
    keep(await run(['config', 'set', 'header', `Authorization: Bearer ${TOKEN}`]));
    const listed = await run(['config', 'list']);
    keep(listed);
    expect(listed.stdout).toContain('header=Authorization: Bearer ****rint\n');
    keep(await run(['config', 'get', 'header']));
    keep(await run(['get', ENTITY, '-v', '--max-items', '3', '--out', 'stored.ndjson']));

    for (const text of texts) expect(leaks(text)).toBe(false);
    const files = filesOf(dir).filter(([name]) => !name.endsWith('config.json'));
    expect(files.map(([name]) => name).some((n) => n.endsWith('state.json'))).toBe(true);
    for (const [name, text] of files) expect(leaks(text), name).toBe(false);
  });
});
