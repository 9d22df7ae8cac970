/**
 * The sandbox's one switch table: each row agrees with itself (its flag spells its name and its
 * unit, its default is a value it accepts), the `sandbox` command offers one flag per row, and
 * `startSandbox()` takes one option per row, typed and documented by that row.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createSandboxCommand } from '../../../src/commands/sandbox/sandbox-command.js';
import { SANDBOX_SWITCHES, type SandboxSwitch } from '../../../src/sandbox/switches.js';
import { createTestContext } from '../../helpers/world.js';

const ROWS = Object.entries<SandboxSwitch>(SANDBOX_SWITCHES);

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe('SANDBOX_SWITCHES', () => {
  it.each(ROWS)('%s: its flag spells its name and unit; its default is a value it accepts', (name, row) => {
    const [flag, placeholder] = row.flag.split(' ');
    expect(flag).toBe(`--${kebab(name)}`);
    expect(placeholder === undefined).toBe(row.type === 'boolean');
    if (row.unit !== undefined) expect(placeholder).toBe(`<${row.unit}>`);
    if (row.type === 'boolean') expect(row.default).toBeUndefined();
    if (row.default === undefined) return;
    if (row.type === 'integer') {
      expect(Number.isInteger(row.default)).toBe(true);
      expect(row.default).toBeGreaterThanOrEqual(row.min ?? 0);
      expect(row.default).toBeLessThanOrEqual(row.max ?? Number.MAX_SAFE_INTEGER);
    } else expect(typeof row.default).toBe('string');
    if (row.words !== undefined) expect(row.words).toContain(row.default);
  });
});

describe('the sandbox command', () => {
  const t = createTestContext();
  const cmd = createSandboxCommand({ ctx: t.ctx, setCode: () => undefined, resumeArgv: [] }, () => 0);

  it('offers one flag per row, in the order of the table, its default in its help', () => {
    expect(cmd.options.map((o) => o.flags)).toEqual(ROWS.map(([, row]) => row.flag));
    for (const [name, row] of ROWS) {
      const option = cmd.options.find((o) => o.attributeName() === name)!;
      expect(option.description).toBe(row.default === undefined ? row.help : `${row.help} (default ${row.default})`);
    }
  });

  it('hands the run function each switch by its row name, integers parsed', async () => {
    const calls: unknown[] = [];
    const run = createSandboxCommand({ ctx: t.ctx, setCode: () => undefined, resumeArgv: [] }, (_ctx, options) => {
      calls.push(options);
      return 0;
    });
    await run.parseAsync(['--latency', '25', '--cursor-only', '--dates', 'naive', '--event-retention', '3'], { from: 'user' });
    expect(calls).toEqual([{ latency: 25, cursorOnly: true, dates: 'naive', eventRetention: 3 }]);
  });
});

describe("startSandbox()'s options", () => {
  // The library's own declaration, read as an editor reads it.
  const file = fileURLToPath(new URL('../../../src/library/sandbox.ts', import.meta.url));
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
  const options = checker.getDeclaredTypeOfSymbol(exported.find((s) => s.name === 'StartSandboxOptions')!);
  const property = (name: string): ts.Symbol => options.getProperties().find((p) => p.name === name)!;

  it('are one optional field per row, a word-valued one typed as its words', () => {
    expect(options.getProperties().map((p) => p.name)).toEqual(ROWS.map(([name]) => name));
    for (const [name, row] of ROWS) {
      const type = checker.typeToString(checker.getNonNullableType(checker.getTypeOfSymbol(property(name))));
      const expected = row.words?.map((w) => `"${w}"`) ?? [row.type === 'integer' ? 'number' : row.type];
      expect(type.split(' | ').sort(), name).toEqual([...expected].sort());
      expect(property(name).flags & ts.SymbolFlags.Optional, name).toBeTruthy();
    }
  });

  it.each(ROWS)('%s: documented by its row, with its unit', (name, row) => {
    const doc = ts.displayPartsToString(property(name).getDocumentationComment(checker));
    expect(doc.length).toBeGreaterThan(5);
    if (row.unit !== undefined) expect(doc).toMatch(new RegExp(`\\b${row.unit}\\b`));
  });
});
