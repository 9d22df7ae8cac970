/**
 * The built bin under a real pseudo-terminal (`script -qfc`): the spinner shows on a terminal,
 * with the rate-limit wait line (quota state and the local time it resumes), and the summary.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/app.js';
import type { RunningServer } from '../../src/sandbox/server.js';
import { BIN, requireBuild, runCommand } from '../helpers/cli.js';
import { canaryFree, cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

const SCRIPT = '/usr/bin/script';
let world: ServedWorld | undefined;
let sandbox: Sandbox;
let server: RunningServer;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  // 1 request per 1 s window: every answer says Remaining 0, so each request after the first (the
  // second of 2 pages, then the empty page that ends the cursor chain, API Platform ≥ 4.3.5) always
  // waits (under a second) for the reset, however slow the machine is.
  world = await serveWorld({ limit: 1, windowSeconds: 1, sizes: { taxpayers: 1, invoicesPerTaxpayer: 20 } });
  ({ sandbox, server } = world);
});
afterAll(async () => {
  await world?.close();
  removeTempDirs();
});

/** Runs the bin under `script`, whose output is everything the terminal received. */
async function underPty(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  let screen = '';
  const collect = (c: string): void => {
    screen += c;
  };
  const { code } = await runCommand(SCRIPT, ['-qfec', command, '/dev/null'], {
    cwd: dir.path,
    env,
    stdin: 'ignore',
    onStdout: collect,
    onStderr: collect,
  });
  return { code, screen };
}

// eslint-disable-next-line no-control-regex -- ANSI sequences start with ESC, the character stripped
const strip = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n');

describe.skipIf(!existsSync(SCRIPT))('under a pseudo-terminal', () => {
  const args = () => [
    'invoices',
    '--taxpayer',
    sandbox.taxpayers()[0]!,
    '--cursor',
    '--items-per-page',
    '10',
    '--out',
    'tty.ndjson',
    '--base-url',
    server.url,
  ];

  it('shows the spinner, the wait with quota and local resume time, then the summary', async () => {
    const { code, screen } = await underPty(args(), { ...cliEnv(dir), TERM: 'xterm-256color' });
    expect(code, screen).toBe(0);
    const text = strip(screen);
    expect(screen).toContain('\x1b[?25l'); // ora hides the cursor: a spinner ran
    expect(text).toMatch(/rate limit reached \(0\/1 left\), resuming at \d\d:\d\d:\d\d \(in (\d+ms|1\.0s|1s)\)/); // the live countdown shows whole seconds
    expect(text).toMatch(/✔ 20 items to \S*tty\.ndjson in \S+ \(3 requests, 0 retries, 2 rate-limit waits \(\S+\)\)/);
    expect(canaryFree(screen)).toBe(true);
  });

  it('with CI set: no spinner, plain lines', async () => {
    const { code, screen } = await underPty(['entities', '--out', 'ci.ndjson', '--base-url', server.url], {
      ...cliEnv(dir),
      TERM: 'xterm-256color',
      CI: 'true',
    });
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('\x1b[');
    expect(strip(screen)).toMatch(/^collections: 25 items to \S*ci\.ndjson in \S+ \(1 request, 0 retries, no rate-limit waits\)/m);
  });
});
