/**
 * The built bin under a real pseudo-terminal (`script -qfc`): the spinner shows on a terminal,
 * with the rate-limit wait line (quota state and the local time it resumes), and the summary.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/app.js';
import { startSandboxServer, type RunningServer } from '../../src/sandbox/server.js';
import { BIN } from '../helpers/cli.js';
import { CANARY, canaryFree, tempDir, type TempDir } from './harness.js';
import { cliEnv, requireBuild } from './spawn.js';

const SCRIPT = '/usr/bin/script';
let sandbox: Sandbox;
let server: RunningServer;
let dir: TempDir;

beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  // 1 request per 1 s window: every answer says Remaining 0, so the second of 2 pages always
  // waits (under a second) for the reset, however slow the machine is.
  sandbox = createSandbox({ apiKey: CANARY, limit: 1, windowSeconds: 1, sizes: { taxpayers: 1, invoicesPerTaxpayer: 20 } });
  server = await startSandboxServer(sandbox, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  dir?.remove();
});

/** Runs the bin under `script`, whose output is everything the terminal received. */
function underPty(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) fullEnv[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { cwd: dir.path, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (screen += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (screen += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

// eslint-disable-next-line no-control-regex
const strip = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n');

describe.skipIf(!existsSync(SCRIPT))('under a pseudo-terminal', () => {
  const args = () => ['invoices', '--taxpayer', sandbox.taxpayers()[0]!, '--cursor', '--items-per-page', '10', '--out', 'tty.ndjson', '--base-url', server.url];

  it('shows the spinner, the wait with quota and local resume time, then the summary', async () => {
    const { code, screen } = await underPty(args(), { ...cliEnv(dir), TERM: 'xterm-256color' });
    expect(code, screen).toBe(0);
    const text = strip(screen);
    expect(screen).toMatch(/\x1b\[\?25l/); // ora hides the cursor: a spinner ran
    expect(text).toMatch(/rate limit reached \(0\/1 left\), resuming at \d\d:\d\d:\d\d \(in (\d+ms|1\.0s)\)/);
    expect(text).toMatch(/✔ 20 items to \S*tty\.ndjson in \S+ \(2 requests, 0 retries, 1 rate-limit wait \(\S+\)\)/);
    expect(canaryFree(screen)).toBe(true);
  });

  it('with CI set: no spinner, plain lines', async () => {
    const { code, screen } = await underPty(['entities', '--out', 'ci.ndjson', '--base-url', server.url], { ...cliEnv(dir), TERM: 'xterm-256color', CI: 'true' });
    expect(code, screen).toBe(0);
    expect(screen).not.toMatch(/\x1b\[/);
    expect(strip(screen)).toMatch(/^collections: 25 items to \S*ci\.ndjson in \S+ \(1 request, 0 retries, no rate-limit waits\)/m);
  });
});
