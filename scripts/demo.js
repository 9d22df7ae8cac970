#!/usr/bin/env node
// `npm run demo`: start the bundled sandbox on a free loopback port with a small rate limit, export
// one taxpayer's invoices with --cursor to demo/invoices.ndjson (progress, a rate-limit wait and
// the summary show on the terminal), then stop the sandbox. Uses the built dist/ (npm run build).
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../dist/sandbox/app.js';
import { startSandboxServer } from '../dist/sandbox/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const demoDir = `${root}demo`;
await mkdir(demoDir, { recursive: true });
// A config folder of the demo's own, so the demo never touches the user's stored settings.
await rm(`${demoDir}/.config`, { recursive: true, force: true });

const sandbox = createSandbox({ limit: 5, windowSeconds: 3, latencyMs: 40, sizes: { invoicesPerTaxpayer: 600 }, warmAhead: true });
const server = await startSandboxServer(sandbox, { port: 0 });
const taxpayer = sandbox.taxpayers()[0];
const args = ['invoices', '--taxpayer', taxpayer, '--cursor', '--total', '--items-per-page', '50', '--out', `${demoDir}/invoices.ndjson`];
process.stderr.write(`Sandbox API on ${server.url} (5 requests per 3 s window per endpoint)\n`);
process.stderr.write(`$ collections ${args.join(' ').replace(demoDir, 'demo')}\n`);

const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [`${root}bin/collections.js`, ...args], {
    stdio: 'inherit',
    env: {
      ...process.env,
      COLLECTIONS_BASE_URL: server.url,
      COLLECTIONS_API_KEY: sandbox.apiKey,
      COLLECTIONS_CONFIG_DIR: `${demoDir}/.config`,
    },
  });
  child.on('close', (c) => resolve(c ?? 1));
});
await server.close();
if (code === 0)
  process.stderr.write(
    `Done: demo/invoices.ndjson holds ${sandbox.items(`/taxpayers/${encodeURIComponent(taxpayer)}/invoices`).length} invoices, one JSON object a line.\n`,
  );
process.exitCode = code;
