import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { createExportCommand, endpointsHelp } from '../../../../src/commands/export/export-command.js';
import type { ExportFlags } from '../../../../src/commands/flags.js';
import { EXPORT_FLAGS, longFlag } from '../../../../src/config/flags.js';
import { exportCommandSpecs } from '../../../../src/endpoints.js';
import { createTestContext, type TestContext } from '../../../helpers/world.js';

const spec = (name: string) => exportCommandSpecs().find((s) => s.name === name)!;

/** The wiring of a command in a fresh (or the given) test context, its exit codes ignored. */
const wiring = (t: TestContext = createTestContext()) => ({ ctx: t.ctx, setCode: () => undefined, resumeArgv: [] });

describe('createExportCommand', () => {
  it.each(exportCommandSpecs().map((s) => ({ name: s.name, s })))('$name: its id flags, then every flag of the table for it', ({ s }) => {
    const cmd = createExportCommand(s, wiring(), () => 0);
    expect(cmd.name()).toBe(s.name);
    expect(cmd.description()).toBe(s.description);
    const flags = EXPORT_FLAGS.filter((f) => f.forCommand === undefined && (f.forId === undefined || s.ids.some((id) => id.name === f.forId)));
    expect(cmd.options.map((o) => o.long)).toEqual([...s.ids.map((id) => id.flag), ...flags.map(longFlag)]);
    // `get`'s own flags are not offered by a named command.
    expect(cmd.options.some((o) => o.long === '--since-field')).toBe(false);
    // --taxpayers-file and --parallel only where there is a taxpayer.
    expect(cmd.options.some((o) => o.long === '--parallel')).toBe(s.ids.some((id) => id.name === 'taxpayerId'));
  });

  it('collects --taxpayer lists and repeats into one comma-separated value', async () => {
    const calls: ExportFlags[] = [];
    const cmd = createExportCommand(spec('invoices'), wiring(), (_ctx, { flags }) => {
      calls.push(flags);
      return 0;
    });
    await cmd.parseAsync(['--taxpayer', 'A,B', '--taxpayer', 'C', '--parallel', '4'], { from: 'user' });
    expect(calls).toEqual([{ taxpayer: 'A,B,C', parallel: 4, progress: true }]);
  });

  it('hands the parsed flags to the runner, values parsed by the table', async () => {
    const calls: Array<[string, ExportFlags]> = [];
    const cmd = createExportCommand(spec('line-items'), wiring(), (_ctx, { command, flags }) => {
      calls.push([command, flags]);
      return 0;
    });
    await cmd.parseAsync(['--invoice', 'I', '--max-wait', '1.5', '--param', 'a=1', '--param', 'b=2', '--no-progress', '-q'], { from: 'user' });
    expect(calls).toEqual([
      [
        'line-items',
        {
          invoice: 'I',
          maxWait: 1500,
          param: [
            ['a', '1'],
            ['b', '2'],
          ],
          progress: false,
          quiet: true,
        },
      ],
    ]);
  });

  it('reports a parse error on the context stderr and throws instead of exiting', async () => {
    const t = createTestContext();
    let ran = false;
    const cmd = createExportCommand(spec('entities'), wiring(t), () => {
      ran = true;
      return 0;
    });
    await expect(cmd.parseAsync(['--concurrency', '0'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    expect(t.stderr.text()).toBe(
      "collections: option '--concurrency <n>' argument '0' is invalid. --concurrency must be a whole number from 1 to 16 (got '0')\n",
    );
    expect(ran).toBe(false);
  });

  it('lists the endpoints of the command after its help', () => {
    expect(endpointsHelp(spec('line-items').endpoints)).toBe(
      [
        '',
        'Endpoints:',
        '  /taxpayers/{taxpayerId}/invoices/line-items              --taxpayer  (--cursor supported)',
        '  /taxpayers/{taxpayerId}/invoices/{invoiceId}/line-items  --taxpayer --invoice  (--cursor supported)',
        '  /invoices/{invoiceId}/line-items                         --invoice  (--cursor supported)',
        '',
      ].join('\n'),
    );
    expect(endpointsHelp(spec('entities').endpoints)).toBe(`\nEndpoints:\n  ${'/entities'.padEnd(56)} \n`);
  });
});
