/**
 * `collections sandbox` (docs/sandbox.md): the bundled API on loopback until Ctrl-C or SIGTERM. The
 * key printed is the sandbox's own, never a key of the user.
 */
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { DEFAULT_SIZES } from '../../sandbox/defaults.js';
import { serveSandbox } from '../../sandbox/serve.js';
import type { SandboxCommandOptions } from '../../sandbox/switches.js';

/** For POSIX shells: an RFC may hold `&`. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9._\-/:]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * @returns 0 after a clean stop
 * @throws {UsageError} (exit 2) for a switch out of range or a bad fault spec, before listening; when it cannot listen
 */
export async function runSandbox(ctx: Context, options: SandboxCommandOptions): Promise<number> {
  const { sandbox, server, faults, host, limit, windowSeconds, limitScope } = await serveSandbox(options, ctx.clock, 'flag');
  const out = ctx.io.stdout;
  const rfcs = sandbox.taxpayers();
  const lines = [
    `Sandbox Collection API listening on ${server.url}`,
    `API key: ${sandbox.apiKey}`,
    `Rate limit: ${limit === 0 ? 'none' : `${limit} requests per ${windowSeconds} s per ${limitScope === 'path' ? 'path' : 'endpoint'}`}`,
    `Taxpayers (${options.invoices ?? DEFAULT_SIZES.invoicesPerTaxpayer} invoices each):`,
    ...rfcs.map((rfc) => `  ${rfc}`),
    ...(faults && faults.rules.length > 0 ? [`Faults: ${faults.rules.map((r) => r.kind).join(', ')}`] : []),
    ...(options.errors === 'problem' ? ['Errors: application/problem+json, as API Platform writes them'] : []),
    ...(options.cursorOnly ? ['Paging: cursor only where cursor pagination exists (a request with page is a 400)'] : []),
    ...(options.ignorePaginationStyle ? ['Paging: offset only (X-Pagination-Style is ignored)'] : []),
    'Try:',
    `  collections invoices --taxpayer ${shellWord(rfcs[0]!)} --cursor --base-url ${server.url} --api-key ${shellWord(sandbox.apiKey)}`,
    'Press Ctrl-C to stop.',
    '',
  ];
  out.write(lines.join('\n'));
  if (!LOOPBACK.has(host)) {
    ctx.io.stderr.write(`collections: warning: the sandbox listens on ${host}, reachable from other machines\n`);
  }

  await new Promise<void>((resolve) => {
    const off = ctx.onSignal(() => {
      off();
      resolve();
    });
  });
  await server.close();
  ctx.io.stderr.write('collections: sandbox stopped\n');
  return ExitCode.Ok;
}
