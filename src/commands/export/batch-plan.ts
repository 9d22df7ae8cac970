/** The taxpayers of a run and the `--out` template (docs/many-taxpayers.md), checked before any request or write. */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { encodeId } from '../../endpoints.js';
import { UsageError } from '../../errors.js';
import { inertText } from '../../io/terminal-text.js';
import type { ExportFlags } from '../flags.js';

/** Bytes: tens of thousands of ids. */
const MAX_LIST_BYTES = 1024 * 1024;

const PLACEHOLDERS = ['taxpayer', 'endpoint', 'date'] as const;

type Placeholder = (typeof PLACEHOLDERS)[number];

export interface TemplateValues {
  /** Undefined for endpoints without one. */
  taxpayer: string | undefined;
  endpoint: string;
  /** When the run started, UTC `YYYY-MM-DD`. */
  date: string;
}

/** `YYYY-MM-DD` of an epoch ms. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const PLACEHOLDER_PATTERN = /\{([A-Za-z0-9_-]*)\}/g;

/** An unknown `{name}` makes a template too, so {@link expandOut} refuses it instead of writing under the literal name. */
export function isOutTemplate(out: string | undefined): boolean {
  return out !== undefined && new RegExp(PLACEHOLDER_PATTERN.source).test(out);
}

/**
 * First, so an unknown `{taxpayr}` is named as such rather than reported as a missing `{taxpayer}`.
 * @throws {UsageError} (exit 2) naming the first unknown placeholder and listing the known ones
 */
export function checkPlaceholders(template: string): void {
  for (const [, name] of template.matchAll(PLACEHOLDER_PATTERN)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(name!)) {
      throw new UsageError(`--out has an unknown placeholder {${inertText(name!)}}; the known ones are {taxpayer}, {endpoint} and {date}`);
    }
  }
}

/**
 * The taxpayer id is already checked (`encodeId`: no `/`, `\`, NUL, `.` or `..`), so it cannot make
 * the path leave the template's folder.
 * @throws {UsageError} (exit 2) for an unknown `{name}`, or `{taxpayer}` on an endpoint without one
 */
export function expandOut(template: string, values: TemplateValues): string {
  checkPlaceholders(template);
  return template.replace(PLACEHOLDER_PATTERN, (_m, name: string) => {
    const value = values[name as Placeholder];
    if (value === undefined) throw new UsageError('--out uses {taxpayer}, but this export takes no --taxpayer');
    return value;
  });
}

/** @throws {UsageError} (exit 2) for an invalid id or one given twice, naming where it came from */
function checkIds(entries: ReadonlyArray<{ id: string; where: string }>): string[] {
  const seen = new Map<string, string>();
  for (const { id, where } of entries) {
    try {
      encodeId('taxpayerId', id);
    } catch (err) {
      if (where === '--taxpayer') throw err;
      throw new UsageError(`${where}: ${(err as Error).message}`);
    }
    const first = seen.get(id);
    if (first !== undefined) throw new UsageError(`${where}: taxpayer ${inertText(id)} is listed twice (first at ${first})`);
    seen.set(id, where);
  }
  return [...seen.keys()];
}

/** `-` is stdin. */
async function readListText(file: string, ctx: Context): Promise<string> {
  if (file === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('--taxpayers-file - reads stdin, which is a terminal; pipe the list in or name a file');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.io.stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > MAX_LIST_BYTES) throw new UsageError(`--taxpayers-file -: stdin holds more than ${MAX_LIST_BYTES} bytes`);
      chunks.push(buf);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  const path = resolvePath(ctx.cwd, file);
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read --taxpayers-file ${inertText(file)}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(err))}`);
  }
  if (buf.length > MAX_LIST_BYTES) throw new UsageError(`--taxpayers-file ${inertText(file)} is larger than ${MAX_LIST_BYTES} bytes`);
  return buf.toString('utf8');
}

/**
 * `--taxpayer`'s, then `--taxpayers-file`'s (blank lines and `#` lines ignored); empty when neither is given.
 * @throws {UsageError} (exit 2) for an empty entry (`A,,B`), an invalid or repeated id (naming the
 *   file and line), a file that cannot be read, or an empty file
 */
export async function taxpayerList(flags: ExportFlags, ctx: Context): Promise<string[]> {
  const entries: Array<{ id: string; where: string }> = [];
  if (flags.taxpayer !== undefined) {
    const split = flags.taxpayer.split(',');
    // One id is kept as typed (encodeId names any white space in it); list entries are trimmed.
    const parts = split.length === 1 ? split : split.map((p) => p.trim());
    if (parts.length > 1 && parts.some((p) => p === ''))
      throw new UsageError('--taxpayer has an empty entry in its list (e.g. A,,B or a trailing comma)');
    for (const id of parts) entries.push({ id, where: '--taxpayer' });
  }
  if (flags.taxpayersFile !== undefined) {
    const name = flags.taxpayersFile === '-' ? 'stdin' : flags.taxpayersFile;
    const lines = (await readListText(flags.taxpayersFile, ctx)).replace(/^\uFEFF/, '').split(/\r?\n/);
    const before = entries.length;
    lines.forEach((line, i) => {
      const id = line.trim();
      if (id !== '' && !id.startsWith('#')) entries.push({ id, where: `${inertText(name)}:${i + 1}` });
    });
    if (entries.length === before) throw new UsageError(`--taxpayers-file ${inertText(name)} lists no taxpayer`);
  }
  return checkIds(entries);
}
