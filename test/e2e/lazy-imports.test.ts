/**
 * `--help` and `--version` stay cheap: run in their own process (the built CLI, which `npm test`
 * builds first) with a module hook that logs every module loaded, they load no HTTP, output,
 * export, pagination or config-store code, nor the libraries behind them (only http/redact.js and
 * io/terminal-text.js, the pure scrubbing of error lines that cli/main.ts needs for any failure,
 * and http/request-headers.js, the pure syntax of `--header` that the flag table's parser checks).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'collections-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.COLLECTIONS_TEST_MODULE_LOG, result.url + '\\n');
  return result;
}
`,
);
const register = join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

/** dist/cli-modules.json, written by the build's bundling step: the modules each file of the bin's bundle holds. */
const bundled = JSON.parse(readFileSync(new URL('../../dist/cli-modules.json', import.meta.url), 'utf8')) as Record<string, string[]>;

/** `url`, or for a file of the bundle (dist/cli.js, dist/cli-*.js) the URLs its modules had before bundling. */
function unbundled(url: string): string[] {
  const file = /\/dist\/(cli(?:-[\w-]+)?\.js)$/.exec(url)?.[1];
  const held = file === undefined ? undefined : bundled[file];
  return held === undefined ? [url] : held.map((path) => `${url.slice(0, url.lastIndexOf('/dist/'))}/${path}`);
}

/** The modules `collections ...args` loads, as URLs (a bundle file stands for the modules it holds). */
function modulesLoadedBy(args: string[], status = 0): string[] {
  const log = join(dir, `${args.join('_').replace(/[^a-z-]/gi, '') || 'none'}.log`);
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, COLLECTIONS_TEST_MODULE_LOG: log, COLLECTIONS_CONFIG_DIR: join(dir, 'config') },
  });
  expect(r.status, r.stderr).toBe(status);
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .flatMap(unbundled)
    : [];
}

/**
 * What `--help` must not load; http/redact.js and io/terminal-text.js (pure text scrubbing of error
 * lines, loaded by cli/main.ts) and io/terminal-text.js (the width help is wrapped to) are allowed.
 */
const HEAVY = [
  /\/dist\/(http\/(?!redact\.js|request-headers\.js)|output|export|pagination|io\/(?!terminal-text\.js|columns\.js)|sandbox\/(?!defaults|switches))/,
  /\/dist\/config\/(store|settings|folder|rate-limit-cache)\.js$/,
  /\/dist\/commands\/(export\/(?!export-command)|ratelimit\/(?!ratelimit-command)|config\/(?!config-command)|completion\/(?!completion-command)|sandbox\/(?!sandbox-command))/,
  /\/node_modules\/(conf|atomically|ajv|write-file-atomic|undici|csv-stringify|cli-table3|ora)\//,
];

describe('lazy imports', () => {
  it.each(
    [[], ['--help'], ['invoices', '--help'], ['line-items', '--help'], ['config', '--help'], ['sandbox', '--help'], ['--version']].map((args) => ({
      args,
    })),
  )('collections $args loads no HTTP, output or config-store code', ({ args }) => {
    const loaded = modulesLoadedBy(args);
    expect(loaded.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    const heavy = loaded.filter((url) => HEAVY.some((re) => re.test(url)));
    expect(heavy).toEqual([]);
  });

  it('a command that reads settings loads conf (and ajv) only when a settings file exists', () => {
    const conf = (loaded: string[]): string[] => loaded.filter((url) => /\/node_modules\/(conf|ajv)\//.test(url));
    expect(conf(modulesLoadedBy(['ratelimit', '--cached', '--base-url', 'http://127.0.0.1:9']))).toEqual([]);
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': 'http://127.0.0.1:9' } } }));
    expect(conf(modulesLoadedBy(['ratelimit', '--cached']))).not.toEqual([]);
  });

  it('an export command that commander refuses loads no HTTP transport (its runner starts that load)', () => {
    const loaded = modulesLoadedBy(['invoices', '--taxpayer', 'X', '--no-such-option'], 2);
    expect(loaded.some((url) => url.endsWith('/dist/cli/program.js'))).toBe(true);
    expect(loaded.filter((url) => /\/node_modules\/undici\/|\/dist\/http\/transport\.js$/.test(url))).toEqual([]);
  });

  it('the hook does see the heavy modules when a command needs them', () => {
    const loaded = modulesLoadedBy(['config', 'path']);
    expect(loaded.some((url) => url.endsWith('/dist/config/store.js'))).toBe(true);
    expect(loaded.some((url) => /\/node_modules\/conf\//.test(url))).toBe(true);
  });
});
