#!/usr/bin/env node
// `npm run demo`: start the bundled sandbox on a free loopback port with a small rate limit, export
// one taxpayer's invoices with --cursor to demo/invoices.ndjson (progress, a rate-limit wait and
// the summary show on the terminal), then the same invoices into the DuckDB table
// demo/invoices.duckdb (one request of 1000; a database destination needs no server), then stop the sandbox. Uses the built dist/ (npm run build).
// Every command it prints pastes into a POSIX shell as it is, from the folder the demo ran in: the
// RFC (which may hold `&` or `Ñ`) and paths (which may hold spaces) are quoted, and the base URL and
// key are given as environment variables.
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../dist/sandbox/app.js';
import { startSandboxServer } from '../dist/sandbox/server.js';

/**
 * The sandbox's settings, as `createSandbox` options and as `collections sandbox` flags. Otherwise
 * it keeps its defaults, the real service's: API Platform's escapes on the wire and its ≥ 4.3.5
 * cursor chain, which never ends by itself (the export ends at the first empty page).
 */
const SANDBOX = { limit: 5, windowSeconds: 3, latencyMs: 40, invoicesPerTaxpayer: 600 };
/** The port the printed "run it yourself" sandbox command listens on (`collections sandbox`'s default). */
const REPLAY_PORT = 8787;

/** Quotes `word` for a POSIX shell: as it is when it holds only safe characters, else in single quotes. */
const shellQuote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);
/** `path` relative to the current folder (where the printed commands are pasted), quoted. */
const shown = (path) => shellQuote(relative(process.cwd(), path) || '.');

const root = fileURLToPath(new URL('..', import.meta.url));
const demoDir = join(root, 'demo');
const configDir = join(demoDir, '.config');
const bin = join(root, 'bin', 'collections.js');
const out = join(demoDir, 'invoices.ndjson');
const duckdb = join(demoDir, 'invoices.duckdb');
await mkdir(demoDir, { recursive: true });
// A config folder of the demo's own, so the demo never touches the user's stored settings.
await rm(configDir, { recursive: true, force: true });

const sandbox = createSandbox({
  limit: SANDBOX.limit,
  windowSeconds: SANDBOX.windowSeconds,
  latencyMs: SANDBOX.latencyMs,
  sizes: { invoicesPerTaxpayer: SANDBOX.invoicesPerTaxpayer },
  warmAhead: true,
});
const server = await startSandboxServer(sandbox, { port: 0 });
const taxpayer = sandbox.taxpayers()[0];
const args = ['invoices', '--taxpayer', taxpayer, '--cursor', '--total', '--items-per-page', '50', '--out', out];
const env = { COLLECTIONS_BASE_URL: server.url, COLLECTIONS_API_KEY: sandbox.apiKey, COLLECTIONS_CONFIG_DIR: configDir };

/** The export as a command line to paste: environment, `node bin/collections.js`, arguments. */
const commandLine = (baseUrl) =>
  [
    ...Object.entries({ ...env, COLLECTIONS_BASE_URL: baseUrl }).map(([name, value]) =>
      name === 'COLLECTIONS_CONFIG_DIR' ? `${name}=${shown(value)}` : `${name}=${shellQuote(value)}`,
    ),
    'node',
    shown(bin),
    ...args.map((arg) => (arg === out ? shown(arg) : shellQuote(arg))),
  ].join(' ');

process.stderr.write(`Sandbox API on ${server.url} (${SANDBOX.limit} requests per ${SANDBOX.windowSeconds} s window per endpoint)\n`);
process.stderr.write(`$ ${commandLine(server.url)}\n`);

/** Runs the CLI with `argv`, its output on this terminal; resolves to its exit code. */
const collections = (argv) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...argv], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('close', (c) => resolve(c ?? 1));
  });

let code = await collections(args);
const tableArgs = ['invoices', '--taxpayer', taxpayer, '--cursor', '--items-per-page', '1000', '--out', duckdb];
if (code === 0) {
  process.stderr.write(`$ collections ${tableArgs.map((a) => (a === duckdb ? shown(a) : shellQuote(a))).join(' ')}\n`);
  code = await collections(tableArgs);
}
await server.close();
if (code === 0) {
  const count = sandbox.items(`/taxpayers/${encodeURIComponent(taxpayer)}/invoices`).length;
  const sandboxCommand = [
    'node',
    shown(bin),
    'sandbox',
    ...['--port', REPLAY_PORT, '--limit', SANDBOX.limit, '--window', SANDBOX.windowSeconds],
    ...['--latency', SANDBOX.latencyMs, '--invoices', SANDBOX.invoicesPerTaxpayer],
  ].join(' ');
  process.stderr.write(
    [
      `Done: ${shown(out)} holds ${count} invoices, one JSON object a line.`,
      'The demo sandbox has stopped. To run the export yourself, start the same sandbox in one terminal:',
      `  ${sandboxCommand}`,
      'and paste this in another:',
      `  ${commandLine(`http://127.0.0.1:${REPLAY_PORT}`)}`,
      '',
    ].join('\n'),
  );
}
process.exitCode = code;
