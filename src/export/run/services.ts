/**
 * The real services of an export's run (export/run/plan.ts `ExportServices`), made from its plan:
 * the client, the page source, the formatter, the output and the manifest, each opened by the run once it has
 * what they report to (its abort signal, progress's notes). commands/export.ts and
 * commands/batch.ts (one per taxpayer) make them; tests hand in fakes. So the run is the loop
 * "for each page → format → write → checkpoint" and knows pagination/, output/ and the files only
 * through these interfaces.
 */
import type { Context } from '../../context.js';
import { createFormatter, prepareFormatter } from '../../output/writer.js';
import { outputColumns } from '../../io/terminal-text.js';
import type { FileSystem } from '../../io/files.js';
import { exportClientOpener } from './export-client.js';
import { pageSteps } from './page-source.js';
import { outputOpener } from './output-opener.js';
import { createManifestRecorder } from '../manifest/manifest.js';
import type { ExportPlan, ExportServices, OutputPlan } from './plan.js';

/**
 * Opens formatters for `output`: CSV keys first seen after the header are named on stderr (once
 * each, also across a resume); the table fits the terminal's width when there is one.
 */
function formatterOpener(output: OutputPlan, ctx: Context): ExportServices['openFormatter'] {
  return async (resumed, note) => {
    const { format, formatter } = output;
    await prepareFormatter(format);
    const warn = formatter.warn ?? ((m: string) => note(`collections: ${m}`));
    return createFormatter(format, { ...formatter, columns: formatter.columns ?? outputColumns(ctx.io, ctx.env), warn }, resumed);
  };
}

/**
 * The real services of a plan's run: the client of export/run/export-client.ts, the pagination of
 * export/run/page-source.ts, the formatter of output/, the output of export/run/output-opener.ts
 * and the manifest recorder of export/manifest/manifest.ts.
 * @param options.fs the file system of the sidecar, checkpoint, device and manifest (default the real one); tests inject write errors
 */
export function exportServices(plan: ExportPlan, ctx: Context, options: { fs?: FileSystem } = {}): ExportServices {
  const { fs } = options;
  return {
    openClient: exportClientOpener(plan.http, ctx),
    openPages: (client, start, source) => pageSteps(plan.pages, client, start, source),
    openFormatter: formatterOpener(plan.output, ctx),
    openOutput: outputOpener(plan, ctx, fs),
    openManifest: (onManifest) => plan.manifest && createManifestRecorder(plan.manifest, { clock: ctx.clock, version: ctx.version, fs, onManifest }),
  };
}
