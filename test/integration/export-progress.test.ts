/**
 * Progress on stderr from real in-process exports: the ora spinner on an injected TTY with the
 * rate-limit wait line (quota state and local resume time), nothing with --quiet, plain lines in
 * CI, NO_COLOR honoured, the summary line, and --verbose request lines.
 */
import { describe, expect, it } from 'vitest';
import { CANARY, canaryFree, runInProcess, START, useTempDir, useWorld } from '../helpers/world.js';

const dir = useTempDir();
// 3 requests a minute: 7 pages of 9 need two waits, each until the next whole minute.
const world = useWorld({ limit: 3, windowSeconds: 60 });

// eslint-disable-next-line no-control-regex -- ANSI sequences start with ESC, the character looked for
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/;
// eslint-disable-next-line no-control-regex -- SGR colour sequences start with ESC, the character looked for
const SGR_COLOUR = /\x1b\[(3\d|9\d|38;[\d;]+)m/;
// eslint-disable-next-line no-control-regex -- ANSI sequences start with ESC, the character stripped
const strip = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** `HH:MM:SS` of an instant in this machine's time zone, computed independently of src/io. */
const localTime = (epochMs: number): string => new Date(epochMs).toLocaleTimeString('en-GB', { hour12: false });

/** 60 invoices: 7 pages of 9 and the empty page that ends the cursor chain (API Platform ≥ 4.3.5 links on), 8 requests. */
const ARGS = () => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '9', '--out', 'x.ndjson'];

describe('progress', () => {
  it('on a terminal: a spinner that shows the quota and the local time it resumes, then the summary', async () => {
    const r = await runInProcess(world, dir, ARGS(), { stderrIsTTY: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(ANSI);
    const text = strip(r.stderr);
    // The first window ends at the next whole minute of the server clock: START + 60 s.
    expect(text).toContain(`rate limit reached (0/3 left), resuming at ${localTime(START + 60_000)}`);
    expect(text).toContain(`resuming at ${localTime(START + 120_000)}`);
    expect(text).toMatch(/\d+ items · \d+ pages · [\d,]+ items\/s · \S+ elapsed/);
    // The time left, drawn at once; ora's own frames count it down (test/unit/io/progress.test.ts).
    expect(text).toContain('resuming at ' + localTime(START + 60_000) + ' (in 1m)');
    expect(text).toMatch(/✔ 60 items to \S*x\.ndjson in .+ \(8 requests, 0 retries, 2 rate-limit waits \(2m\)\)\n$/);
    expect(canaryFree(r.stderr)).toBe(true);
  });

  it('shows a percentage and, once time has passed (a rate-limit wait), an ETA when the total is known (--total)', async () => {
    const r = await runInProcess(world, dir, [...ARGS(), '--total'], { stderrIsTTY: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(strip(r.stderr)).toMatch(/\d+ of 60 items \(\d+%\) · \d+ pages · [\d,]+ items\/s · \S+ elapsed · ETA \S+/);
  });

  it('NO_COLOR: no colour codes at all (the spinner still moves)', async () => {
    const r = await runInProcess(world, dir, ARGS(), { stderrIsTTY: true, columns: 120, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(ANSI);
    expect(r.stderr).not.toMatch(SGR_COLOUR);
    expect(strip(r.stderr)).toContain('✔ 60 items to');
  });

  it('--quiet: nothing at all on stderr', async () => {
    const r = await runInProcess(world, dir, [...ARGS(), '--quiet'], { stderrIsTTY: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.each([
    ['CI set on a terminal', { stderrIsTTY: true, env: { CI: 'true' } }],
    ['--no-progress on a terminal', { stderrIsTTY: true, args: ['--no-progress'] }],
    ['stderr not a terminal', { stderrIsTTY: false }],
    ['TERM=dumb on a terminal', { stderrIsTTY: true, env: { TERM: 'dumb' } }],
  ])('%s: no spinner, plain wait lines and the summary', async (_name, o) => {
    const r = await runInProcess(world, dir, [...ARGS(), ...((o as { args?: string[] }).args ?? [])], {
      stderrIsTTY: o.stderrIsTTY,
      env: (o as { env?: Record<string, string> }).env ?? {},
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(ANSI);
    expect(r.lines).toEqual([
      expect.stringMatching(new RegExp(`^collections: rate limit reached \\(0/3 left\\), resuming at ${localTime(START + 60_000)} \\(in 1m\\)$`)),
      expect.stringMatching(new RegExp(`^collections: rate limit reached \\(0/3 left\\), resuming at ${localTime(START + 120_000)} \\(in 1m\\)$`)),
      expect.stringMatching(/^collections: 60 items to \S*x\.ndjson in .+ \(8 requests, 0 retries, 2 rate-limit waits \(2m\)\)$/),
    ]);
  });

  it('the summary counts retries', async () => {
    world.recreate({ faults: [{ kind: 'status', status: 503, pages: 2, times: 2 }] });
    const r = await runInProcess(world, dir, ARGS());
    expect(r.code).toBe(0);
    expect(r.lines.at(-1)).toMatch(/^collections: 60 items to \S+ in \S+ \(10 requests, 2 retries, no rate-limit waits\)$/);
  });

  it('--verbose: one line per request (method, path, status, ms, quota, X-Request-ID), never the key', async () => {
    world.recreate({ limit: 100 });
    const r = await runInProcess(world, dir, [...ARGS(), '--verbose']);
    expect(r.code).toBe(0);
    const requests = r.lines.filter((l) => l.startsWith('GET '));
    expect(requests).toHaveLength(world.sandbox.requests().length);
    expect(requests).toHaveLength(8);
    requests.forEach((line, i) => {
      expect(line).toMatch(
        new RegExp(`^GET /taxpayers/${world.taxpayer}/invoices\\?itemsPerPage=9\\S* 200 \\d+ms remaining=${99 - i}/100 X-Request-ID=\\S+$`),
      );
    });
    expect(canaryFree(r.stderr)).toBe(true);
    expect(r.lines.at(-1)).toMatch(/^collections: 60 items to /);
  });

  it('--verbose with --quiet contradict each other: a usage error before any request (they were both accepted)', async () => {
    world.recreate({ limit: 100 });
    const r = await runInProcess(world, dir, [...ARGS(), '--verbose', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.lines).toEqual(['collections: --quiet and --verbose exclude each other; give one of them']);
    expect(r.requests).toHaveLength(0);
    expect(r.stderr).not.toContain(CANARY);
  });
});
