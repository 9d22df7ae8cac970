/**
 * Issue 11, items 3 and 9: quiet pipes, stdout/config/cache write errors (`ulimit -f 0`: EFBIG, as
 * root too), the process-wide guard (in process through its hooks, and in the built bin), and
 * clear `sandbox` start-up errors (exit 2).
 */
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readCommandLine } from '../../src/cli/argv.js';
import { asWriteFailure, failureText, installProcessGuard, main, wantsStack } from '../../src/cli/main.js';
import { formatError } from '../../src/commands/error-text.js';
import { listenError } from '../../src/sandbox/serve.js';
import { OutputError, UsageError } from '../../src/errors.js';
import { createSecrets } from '../../src/secrets.js';
import { BIN, requireBuild, runCli, runShell, type CliResult } from '../helpers/cli.js';
import {
  createTestContext,
  CANARY,
  canaryFree,
  cliEnv,
  removeTempDirs,
  serveWorld,
  tempDir,
  type ServedWorld,
  type TempDir,
} from '../helpers/world.js';
const NODE = process.execPath;
const STACK_LINE = /^\s+at .+:\d+/m;

beforeAll(() => requireBuild());
afterAll(() => removeTempDirs());

/** stderr lines without the trailing empty one. */
function lines(r: Pick<CliResult, 'stderr'>): string[] {
  return r.stderr.split('\n').filter((l, i, a) => !(i === a.length - 1 && l === ''));
}

/** Files of a folder, recursively, as relative paths, sorted. */
function filesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  return (readdirSync(path, { recursive: true }) as string[]).sort();
}

const quote = (args: readonly string[]): string => args.map((a) => `'${a}'`).join(' ');

/** Runs `node ...args` (the args include the bin) with the world's environment. */
const runShellNode = (args: readonly string[], dir: TempDir, extra: Record<string, string> = {}): Promise<CliResult> =>
  runShell(`exec "${NODE}" ${quote(args)}`, { cwd: dir.path, env: cliEnv(dir, extra) });

describe('quiet pipes: a reader that leaves ends the run with exit 0, no stack', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = tempDir();
    const r = await runCli(['config', 'set', 'base-url', 'https://api.example.com'], { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(0);
  });

  const cases: Array<[string, string[], RegExp]> = [
    ['collections --help', ['--help'], /^Usage: collections /],
    ['invoices --help', ['invoices', '--help'], /^Usage: collections invoices /],
    ['completion bash', ['completion', 'bash'], /^# bash completion for collections/],
    ['config list', ['config', 'list'], /^base-url=https:\/\/api\.example\.com\/?$/],
  ];

  it.each(cases)('%s | head -1: the first line, exit 0 with pipefail, stderr empty', async (_name, args, first) => {
    const before = filesOf(dir.path);
    const r = await runShell(`set -o pipefail; "${NODE}" "${BIN}" ${quote(args)} | head -1`, { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(first);
    expect(r.stderr).toBe('');
    expect(filesOf(dir.path)).toEqual(before);
  });

  it.each(cases)('%s | true (the reader is gone before the first write): exit 0, stderr empty', async (_name, args) => {
    const r = await runShell(`set -o pipefail; "${NODE}" "${BIN}" ${quote(args)} | true`, { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('stdout on a full device (/dev/full): exit 7, one line naming stdout and the cause', async () => {
    if (!existsSync('/dev/full')) return;
    const r = await runShell(`"${NODE}" "${BIN}" completion bash > /dev/full`, { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(7);
    expect(lines(r)).toEqual([expect.stringMatching(/^collections: cannot write to stdout: ENOSPC: no space left on device/)]);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it('in process: EPIPE on stdout ends the run with 0 through forceExit, nothing on stderr', async () => {
    const t = createTestContext({ configDir: dir.file('config') });
    t.ctx.io.stdout = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' }));
      },
    });
    const code = await main(['completion', 'bash'], t.ctx);
    await new Promise((resolve) => setImmediate(resolve));
    expect(code).toBe(0);
    expect(t.forcedExits).toEqual([0]);
    expect(t.stderr.text()).toBe('');
  });

  it('in process: another stdout write error (EIO) is exit 7 with one line', async () => {
    const t = createTestContext({ configDir: dir.file('config') });
    t.ctx.io.stdout = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', syscall: 'write' }));
      },
    });
    // The stream reports the error after main() returned: the process ends through forceExit.
    await main(['completion', 'bash'], t.ctx);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.forcedExits).toEqual([7]);
    expect(t.stderr.text()).toBe('collections: cannot write to stdout: EIO: i/o error, write\n');
  });
});

describe('write errors of the config file and the rate-limit cache (ulimit -f 0: EFBIG, as root too)', () => {
  let world: ServedWorld | undefined;
  afterAll(async () => world?.close());

  it('config set that cannot save: exit 7, one line with the path and the cause, the file unchanged', async () => {
    const dir = tempDir();
    const env = cliEnv(dir);
    expect((await runCli(['config', 'set', 'base-url', 'https://api.example.com'], { cwd: dir.path, env })).code).toBe(0);
    const path = dir.file('config/config.json');
    const before = readFileSync(path);
    const filesBefore = filesOf(dir.path);
    const r = await runShell(`ulimit -f 0; "${NODE}" "${BIN}" config set base-url https://other.example.com`, { cwd: dir.path, env });
    expect(r.code).toBe(7);
    expect(lines(r)).toEqual([`collections: cannot save the config file ${path}: file too large (EFBIG)`]);
    expect(readFileSync(path)).toEqual(before);
    expect(filesOf(dir.path)).toEqual(filesBefore);
  });

  it('config unset that cannot save: exit 7, one line', async () => {
    const dir = tempDir();
    const env = cliEnv(dir);
    expect((await runCli(['config', 'set', 'base-url', 'https://api.example.com'], { cwd: dir.path, env })).code).toBe(0);
    const r = await runShell(`ulimit -f 0; "${NODE}" "${BIN}" config unset base-url`, { cwd: dir.path, env });
    expect(r.code).toBe(7);
    expect(lines(r)).toEqual([expect.stringMatching(/^collections: cannot save the config file .*config\.json: file too large \(EFBIG\)$/)]);
  });

  it('an export to stdout whose rate-limit cache cannot be saved: complete, exit 0, one warning line', async () => {
    world = await serveWorld({ limit: 100, sizes: { taxpayers: 1, invoicesPerTaxpayer: 60 } });
    const dir = tempDir();
    const args = ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '25', '--base-url', world.base];
    const reference = await runCli(args, { cwd: dir.path, env: cliEnv(dir) });
    expect(reference.code).toBe(0);
    const cache = dir.file('config/rate-budget.json');
    const cacheBefore = readFileSync(cache);
    const r = await runShell(`ulimit -f 0; "${NODE}" "${BIN}" ${quote(args)}`, { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(reference.stdout);
    expect(r.stdout.trim().split('\n')).toHaveLength(60);
    const out = lines(r);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^collections: 60 items to stdout in /);
    expect(out[1]).toBe(
      `collections: warning: cannot save the rate-limit cache ${cache}: file too large (EFBIG); \`ratelimit --cached\` may show older values`,
    );
    expect(readFileSync(cache)).toEqual(cacheBefore);
    expect(filesOf(dir.path)).toEqual(['config', 'config/rate-budget.json']);
    expect(canaryFree(r.stdout, r.stderr)).toBe(true);
  });
});

describe('the process-wide guard', () => {
  /** A fake process: the guard's events, and what it reported and how it ended. */
  function guarded(argv: string[] = [], env: Record<string, string> = {}, secrets: string[] = []) {
    const proc = new EventEmitter();
    const reported: string[] = [];
    const ended: number[] = [];
    const known = createSecrets();
    for (const secret of secrets) known.add(secret);
    installProcessGuard(
      proc,
      (err) => reported.push(failureText(err, known, wantsStack(readCommandLine(argv), env))),
      (code) => ended.push(code),
    );
    return { proc, reported, ended };
  }

  it('an uncaught exception: one line "internal error, please report", exit 1, no stack', async () => {
    const g = guarded();
    g.proc.emit('uncaughtException', new TypeError('boom'));
    await vi.waitFor(() => expect(g.ended).toHaveLength(1));
    expect(g.reported).toEqual(['collections: internal error, please report: boom\n']);
    expect(g.ended).toEqual([1]);
  });

  it('an unhandled rejection with --verbose: the line, then the stack; the key scrubbed from both', async () => {
    const g = guarded(['invoices', '--verbose'], {}, [CANARY]);
    g.proc.emit('unhandledRejection', new Error(`bad ${CANARY}`));
    await vi.waitFor(() => expect(g.ended).toHaveLength(1));
    expect(g.ended).toEqual([1]);
    expect(g.reported[0]).toMatch(/^collections: internal error, please report: bad \[REDACTED\]\n/);
    expect(g.reported[0]).toMatch(STACK_LINE);
    expect(canaryFree(g.reported[0]!)).toBe(true);
  });

  it('a CollectionsError keeps its exit code; a raw write error (ENOSPC) is exit 7 naming the path', async () => {
    const g = guarded();
    g.proc.emit('unhandledRejection', new OutputError('cannot write /x/out.part: no space left on the device (ENOSPC)'));
    g.proc.emit(
      'uncaughtException',
      Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write', path: '/x/y' }),
    );
    await vi.waitFor(() => expect(g.ended).toHaveLength(2));
    expect(g.ended).toEqual([7, 7]);
    expect(g.reported).toEqual([
      'collections: cannot write /x/out.part: no space left on the device (ENOSPC)\n',
      'collections: cannot write /x/y: no space left on the device (ENOSPC)\n',
    ]);
  });

  it('a permission error of a read is not a write error; of an open for writing it is', async () => {
    const read = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'scandir', path: '/p' });
    expect(await asWriteFailure(read)).toBe(read);
    expect(await asWriteFailure(Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open', path: '/p' }))).toBeInstanceOf(OutputError);
  });

  it('the stack is asked for by --verbose, -v or COLLECTIONS_DEBUG, not by a --verbose after --', () => {
    expect(wantsStack(readCommandLine(['invoices', '-v']), {})).toBe(true);
    expect(wantsStack(readCommandLine(['x']), { COLLECTIONS_DEBUG: '1' })).toBe(true);
    expect(wantsStack(readCommandLine(['x', '--', '--verbose']), {})).toBe(false);
    expect(wantsStack(readCommandLine(['x']), { COLLECTIONS_DEBUG: '' })).toBe(false);
  });

  it('main(): an unexpected failure with --verbose prints the line and the stack, exit 1', async () => {
    const dir = tempDir();
    const t = createTestContext({
      cwd: dir.path,
      configDir: dir.file('config'),
      env: { COLLECTIONS_API_KEY: CANARY, COLLECTIONS_BASE_URL: 'http://127.0.0.1:9' },
    });
    t.ctx.onSignal = () => {
      throw new Error('injected failure');
    };
    const code = await main(['entities', '--verbose'], t.ctx);
    expect(code).toBe(1);
    const text = t.stderr.text();
    expect(text.split('\n')[0]).toBe('collections: internal error, please report: injected failure');
    expect(text).toMatch(STACK_LINE);
    expect(canaryFree(text)).toBe(true);
  });

  it.each([
    ['uncaughtException', 'setTimeout(() => { throw new Error("injected late failure"); }, 300);'],
    ['unhandledRejection', 'setTimeout(() => { Promise.reject(new Error("injected late failure")); }, 300);'],
  ])('the built bin: a late %s while the sandbox serves is one line and exit 1 (stack with COLLECTIONS_DEBUG)', async (_kind, body) => {
    const dir = tempDir();
    const preload = dir.file('fail-later.mjs');
    writeFileSync(preload, `${body}\n`);
    const args = ['--import', preload, BIN, 'sandbox', '--port', '0'];
    const r = await runShellNode(args, dir);
    expect(r.code).toBe(1);
    expect(lines(r)).toEqual(['collections: internal error, please report: injected late failure']);
    const debug = await runShellNode(args, dir, { COLLECTIONS_DEBUG: '1' });
    expect(debug.code).toBe(1);
    expect(lines(debug)[0]).toBe('collections: internal error, please report: injected late failure');
    expect(debug.stderr).toMatch(STACK_LINE);
  });
});

describe('sandbox start-up errors: exit 2, one line', () => {
  let busy: Server;
  let port = 0;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(async () => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('a port in use', async () => {
    const dir = tempDir();
    const r = await runCli(['sandbox', '--port', String(port)], { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(2);
    expect(lines(r)).toEqual([`collections: cannot listen on 127.0.0.1:${port}: address in use; choose another --port (0 = any free port)`]);
    expect(r.stdout).toBe('');
  });

  it.each([
    [['--port', '70000'], /^collections: --port must be an integer from 0 to 65535$/],
    [['--port', '-1'], /^collections: option '--port <n>' argument '-1' is invalid\. --port must be a whole number at least 0/],
    [
      ['--host', 'no-such-host.invalid', '--port', '0'],
      /^collections: cannot listen on no-such-host\.invalid:0: (unknown host|the host name could not be resolved); check --host/,
    ],
  ])('sandbox %j', async (args, message) => {
    const dir = tempDir();
    const r = await runCli(['sandbox', ...args], { cwd: dir.path, env: cliEnv(dir) });
    expect(r.code).toBe(2);
    expect(lines(r)).toHaveLength(1);
    expect(lines(r)[0]).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('a port that needs privileges (EACCES, which root never sees) and an unknown listen error', () => {
    const denied = listenError(Object.assign(new Error('listen EACCES'), { code: 'EACCES' }), '127.0.0.1', 80);
    expect(denied).toBeInstanceOf(UsageError);
    expect(formatError(denied)).toBe(
      'collections: cannot listen on 127.0.0.1:80: permission denied (ports below 1024 need privileges); choose another --port (0 = any free port)',
    );
    const odd = listenError(Object.assign(new Error('listen EWHAT'), { code: 'EWHAT' }), '::1', 9);
    expect(formatError(odd)).toBe('collections: cannot listen on [::1]:9: listen EWHAT (EWHAT); check --host and --port');
    const bug = new TypeError('x');
    expect(listenError(bug, '127.0.0.1', 1)).toBe(bug);
  });
});
