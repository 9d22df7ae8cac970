/**
 * Spawns the built CLI (`bin/collections.js`), or a shell or tool around it, for end-to-end tests,
 * with a clean environment. `npm test` builds first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of bin/collections.js. */
export const BIN = fileURLToPath(new URL('../../bin/collections.js', import.meta.url));

/**
 * Fails early, with the fix, when the bin has not been built.
 * @throws {Error} when dist/cli.js (the bundle the bin runs) is missing
 */
export function requireBuild(): void {
  if (!existsSync(new URL('../../dist/cli.js', import.meta.url))) {
    throw new Error(`${BIN} needs dist/: run \`npm run build\` first (npm test does)`);
  }
}

/** The outcome of a spawned run. */
export interface CliResult {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli} and {@link runCommand}. */
export interface RunCliOptions {
  /** Variables over the clean environment; undefined removes one. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Text written to stdin, which is then closed (closed at once without it). */
  input?: string;
  /** `ignore`: no stdin at all (default `pipe`). */
  stdin?: 'pipe' | 'ignore';
  /** Called once the process is spawned (e.g. to send it a signal later). */
  onSpawn?: (child: ChildProcess) => void;
  /** Called for each stderr chunk as it arrives. */
  onStderr?: (chunk: string, child: ChildProcess) => void;
  /** Called for each stdout chunk as it arrives. */
  onStdout?: (chunk: string, child: ChildProcess) => void;
}

/**
 * The environment of a spawned run: the test process's, without COLLECTIONS_* (from the
 * developer's shell) and CI (progress rules are the test's to choose), then `extra`.
 */
function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith('COLLECTIONS_') && k !== 'CI');
  const merged = new Map<string, string | undefined>([...inherited, ...Object.entries(extra)]);
  return Object.fromEntries([...merged].filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Runs `command ...args` in a {@link cleanEnv} and collects its output as text. */
export function runCommand(command: string, args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const stdin = options.stdin ?? 'pipe';
    const child = spawn(command, [...args], { cwd: options.cwd, env: cleanEnv(options.env), stdio: [stdin, 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      options.onStdout?.(c, child);
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      options.onStderr?.(c, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.onSpawn?.(child);
    if (stdin === 'pipe') {
      if (options.input !== undefined) child.stdin!.end(options.input);
      else child.stdin!.end();
    }
  });
}

/** Runs `node bin/collections.js ...args` (see {@link runCommand}). */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  return runCommand(process.execPath, [BIN, ...args], options);
}

/** Runs `bash -c script` (see {@link runCommand}); `${node} ${BIN}` in the script runs the CLI. */
export function runShell(script: string, options: RunCliOptions = {}): Promise<CliResult> {
  return runCommand('bash', ['-c', script], options);
}
