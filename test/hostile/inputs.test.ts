/**
 * Hostile inputs: every number is checked against its range before anything is
 * sent or written (flags and the config file alike; timers hold at most 2^31 - 1 ms), field names
 * are plain keys (`__proto__` in the data is exported, `constructor` finds nothing), and a base URL
 * with `user:password@` is refused with exit 2 and never echoed in full.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/context.js';
import { canaryFree, createWorld, removeTempDirs, runInProcess, tempDir, type TempDir, filesBelow } from '../helpers/world.js';

afterAll(removeTempDirs);

/** Wraps the sandbox's fetch so that the members of each page pass through `edit` as text. */
function editMembersText(edit: (text: string) => string): (inner: FetchLike) => FetchLike {
  return (inner) => async (input, init) => {
    const res = await inner(input, init);
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    return new Response(edit(await res.text()), { status: res.status, headers });
  };
}

/** Writes a settings file of the tool's config folder in `dir` (modes the tool accepts silently). */
function writeConfig(dir: TempDir, profile: Record<string, unknown>): void {
  mkdirSync(dir.file('config'), { mode: 0o700 });
  writeFileSync(dir.file('config/config.json'), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
}

describe('numbers are range-checked before anything starts', () => {
  it.each([
    [['--timeout', '2147484'], /^collections: .*--timeout must be at most 2147483 seconds, the longest a timer can hold \(got '2147484'\)/],
    [['--timeout', '1' + '0'.repeat(400)], /^collections: .*--timeout must be a number of seconds of at least 0\.001/],
    [['--max-wait', '99999999'], /^collections: .*--max-wait must be at most 2147483 seconds/],
    [['--page', '9007199254740992'], /^collections: .*--page must be a whole number at least 1 \(got '9007199254740992'\)/],
    [['--max-items', '99999999999999999999'], /^collections: .*--max-items must be a whole number at least 1/],
    [['--items-per-page', '1001'], /^collections: .*--items-per-page must be a whole number from 1 to 1000/],
  ])('%j: exit 2, one line, nothing sent, nothing written', async (args, message) => {
    const world = createWorld();
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson', ...args]);
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(message);
    expect(r.requests).toHaveLength(0);
    expect(filesBelow(dir)).toEqual([]);
  });

  it('the largest timeout a timer holds is accepted and the export completes', async () => {
    const world = createWorld();
    const dir = tempDir();
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--out',
      'x.ndjson',
      '--timeout',
      '2147483',
      '--max-wait',
      '2147483',
    ]);
    expect(r.code).toBe(0);
    expect(dir.read('x.ndjson').toString().trim().split('\n')).toHaveLength(60);
    expect(filesBelow(dir)).toEqual(['x.ndjson', 'x.ndjson.manifest.json']);
  });

  it.each([
    ['timeout', 1e10],
    ['max-wait', 3e9],
  ])('a config file with %s %d: exit 2 (E_CONFIG), nothing sent, nothing written', async (key, value) => {
    const world = createWorld();
    const dir = tempDir();
    writeConfig(dir, { [key]: value });
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson']);
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      new RegExp(`^collections: invalid '${key}' in profile 'default' of .*config\\.json: ${key} must be at most 2147483 seconds`),
    );
    expect(r.requests).toHaveLength(0);
    expect(filesBelow(dir)).toEqual([]);
  });
});

describe('flags that contradict each other', () => {
  it.each([[['-q', '-v']], [['--verbose', '--quiet', '--taxpayer', 'A1,B2', '--out', '{taxpayer}.ndjson']]])(
    '%j: exit 2, one line, nothing sent, nothing written',
    async (args) => {
      const world = createWorld();
      const dir = tempDir();
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson', ...args]);
      expect(r.code).toBe(2);
      expect(r.lines).toEqual(['collections: --quiet and --verbose exclude each other; give one of them']);
      expect(r.requests).toHaveLength(0);
      expect(filesBelow(dir)).toEqual([]);
    },
  );
});

describe('field names are plain keys', () => {
  const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 5 } });
  // Each item gains an own `__proto__` key, as JSON.parse reads it.
  // Any escapes of the @id (the sandbox writes API Platform's `\/`).
  const withProto = editMembersText((text) => text.replace(/\{"@id":"[^"]*invoices[^"]*",/g, (m) => `${m}"__proto__":{"polluted":true},`));

  it('--fields __proto__,id to ndjson: the __proto__ key of the data is written, complete', async () => {
    const dir = tempDir();
    const r = await runInProcess(
      world,
      dir,
      ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson', '--fields', '__proto__,id,constructor,a.__proto__.b'],
      {
        wrapFetch: withProto,
      },
    );
    expect(r.code).toBe(0);
    const lines = dir.read('x.ndjson').toString().trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines)
      expect(line).toMatch(/^\{"__proto__":\{"polluted":true\},"id":"[^"]+","constructor":null,"a":\{"__proto__":\{"b":null\}\}\}$/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(filesBelow(dir)).toEqual(['x.ndjson', 'x.ndjson.manifest.json']);
    expect(canaryFree(r.stdout, r.stderr, dir.read('x.ndjson'))).toBe(true);
  });

  it('--fields __proto__.polluted,constructor.name,hasOwnProperty.length to csv: the own value, empty cells for inherited ones', async () => {
    const dir = tempDir();
    const r = await runInProcess(
      world,
      dir,
      ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.csv', '--fields', '__proto__.polluted,constructor.name,hasOwnProperty.length'],
      {
        wrapFetch: withProto,
      },
    );
    expect(r.code).toBe(0);
    expect(dir.read('x.csv').toString()).toBe(`__proto__.polluted,constructor.name,hasOwnProperty.length\r\n${'true,,\r\n'.repeat(5)}`);
    expect(filesBelow(dir)).toEqual(['x.csv', 'x.csv.manifest.json']);
  });
});

describe('field names that exist only on the prototype', () => {
  it('--fields __proto__,constructor,toString to csv on items without them: empty cells, not the prototype', async () => {
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 3 } });
    const dir = tempDir();
    const r = await runInProcess(world, dir, [
      'invoices',
      '--taxpayer',
      world.taxpayer,
      '--out',
      'x.csv',
      '--fields',
      '__proto__,constructor,toString',
    ]);
    expect(r.code).toBe(0);
    expect(dir.read('x.csv').toString()).toBe(`__proto__,constructor,toString\r\n${',,\r\n'.repeat(3)}`);
    expect(filesBelow(dir)).toEqual(['x.csv', 'x.csv.manifest.json']);
  });
});

describe('a base URL with user:password@', () => {
  const secret = 's3cr3t-pass';
  const url = `https://alice:${secret}@api.example.com/`;

  it.each([
    ['--base-url', ['--base-url', url], {}, false],
    ['COLLECTIONS_BASE_URL', [], { COLLECTIONS_BASE_URL: url }, false],
    ['the config file', [], {}, true],
  ])('from %s: exit 2, the URL shown redacted, nothing sent, nothing written', async (_from, args: string[], env: Record<string, string>, stored) => {
    const world = createWorld();
    const dir = tempDir();
    if (stored) writeConfig(dir, { 'base-url': url });
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'x.ndjson', ...args], {
      connectVia: 'none',
      env: { COLLECTIONS_API_KEY: world.key, ...env },
    });
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^collections: .*must not contain a user name or password \(got 'https:\/\/\*\*\*@api\.example\.com\/'\)/);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(r.stdout + r.stderr).not.toContain('alice');
    expect(r.requests).toHaveLength(0);
    expect(r.t.fetched).toHaveLength(0);
    expect(filesBelow(dir)).toEqual([]);
  });

  it('config set base-url refuses it (exit 2) and stores nothing', async () => {
    const world = createWorld();
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['config', 'set', 'base-url', url], { connectVia: 'none' });
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([
      "collections: base-url must not contain a user name or password (got 'https://***@api.example.com/'); give the URL without user:password@; the API key goes in COLLECTIONS_API_KEY or `collections config set api-key`",
    ]);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(filesBelow(dir)).toEqual([]);
  });
});
