/**
 * Spawns the built CLI (`bin/collections.js`) for end-to-end tests. `npm test` builds first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Absolute path of bin/collections.js. */
export const BIN = fileURLToPath(new URL('../../bin/collections.js', import.meta.url));

/** The outcome of a CLI run. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  /** Called once the process is spawned (e.g. to send it a signal later). */
  onSpawn?: (child: ChildProcess) => void;
  /** Called for each stderr chunk as it arrives. */
  onStderr?: (chunk: string, child: ChildProcess) => void;
  /** Called for each stdout chunk as it arrives. */
  onStdout?: (chunk: string, child: ChildProcess) => void;
}

/**
 * Runs `node bin/collections.js ...args` with a clean environment (no COLLECTIONS_* from the
 * developer's shell, CI unset so progress rules are the test's to choose).
 */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('COLLECTIONS_') && k !== 'CI') env[k] = v;
  }
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      options.onStdout?.(c, child);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      options.onStderr?.(c, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.onSpawn?.(child);
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}
