/**
 * Resolves the key, base URL and profile defaults of an export (flag, then environment, then the
 * stored profile; config/settings.ts), and records the rate-limit headers it sees for
 * `ratelimit --cached`.
 */
import type { Context } from '../context.js';
import type { RateLimitSnapshot } from '../http/client.js';
import type { ExportDefaults } from '../config/flags.js';
import { loadApiSettings } from '../config/settings.js';
import type { SettingsFlags } from '../config/settings.js';

/** Settings that come from flags, environment or profile (see config/settings.ts). */
export interface ResolvedExportSettings {
  apiKey: string;
  baseUrl: URL;
  /** Profile defaults for export flags not given on the command line. */
  defaults: ExportDefaults;
  /** Request headers stored in the profile, in order (`--header` adds to them); none when absent. */
  headers?: ReadonlyArray<readonly [string, string]>;
}

/** Resolved settings plus a recorder of the rate-limit headers of each page. */
export interface LoadedExportSettings {
  resolved: ResolvedExportSettings;
  /** Records a rate-limit snapshot under `endpointKey` for `ratelimit --cached` (never throws). */
  recordRateLimit: (endpointKey: string, snapshot: RateLimitSnapshot) => void;
}

/**
 * Loads the settings of an export, adding the key and the values of credential-like stored headers
 * to `ctx.secrets`; warns on stderr before anything is sent when the base URL is plain `http://`
 * to a host other than loopback.
 * @throws {UsageError} (exit 2) when the key or base URL is missing or invalid, or a stored key
 *   would be sent to another origin than its profile's
 */
export function loadExportSettings(flags: SettingsFlags, ctx: Context): LoadedExportSettings {
  const { settings, store } = loadApiSettings(flags, ctx);
  ctx.secrets.add(settings.apiKey);
  for (const [name, value] of settings.headers) ctx.secrets.addHeader(name, value);
  const origin = settings.baseUrl.origin;
  return {
    resolved: { apiKey: settings.apiKey, baseUrl: settings.baseUrl, defaults: settings.defaults, headers: settings.headers },
    recordRateLimit: (endpointKey, snapshot) => {
      store.recordRateLimit(origin, endpointKey, snapshot);
    },
  };
}
