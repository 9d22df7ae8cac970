/** The profile's settings of an export: the key, the base URL, stored defaults and headers. */
import type { Context } from '../../context.js';
import { loadApiSettings, openLastSeenCache, type SettingsFlags } from '../../config/settings.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import type { ResolvedExportSettings } from '../../export/plan/parts.js';

export interface LoadedExportSettings {
  resolved: ResolvedExportSettings;
  /** For `ratelimit --cached`; never rejects. */
  recordRateLimit: (endpointKey: string, snapshot: RateLimitSnapshot) => Promise<void>;
}

/**
 * Adds the key and credential-like stored headers to `ctx.secrets`.
 * @throws {UsageError} (exit 2) when the key or base URL is missing or invalid, or a stored key
 *   would be sent to another origin than its profile's
 */
export function loadExportSettings(flags: SettingsFlags, ctx: Context): LoadedExportSettings {
  const settings = loadApiSettings(flags, ctx);
  const origin = settings.baseUrl.origin;
  return {
    resolved: settings,
    recordRateLimit: async (endpointKey, snapshot) => {
      (await openLastSeenCache(ctx)).record(origin, endpointKey, snapshot);
    },
  };
}
