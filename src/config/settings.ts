/**
 * Where the API key and base URL come from: flag, then environment (`COLLECTIONS_API_KEY`,
 * `COLLECTIONS_BASE_URL`, `COLLECTIONS_PROFILE`), then the stored profile (README, "Set-up").
 * There is no built-in base URL.
 *
 * Key binding rule (so a key stored for one API is never sent to another, e.g. a production key
 * to a sandbox or a typo'd host): a key that comes from a stored profile is only used with that
 * profile's own stored base URL origin (scheme + host + port). If the base URL comes from a flag
 * or the environment and its origin differs from the profile's stored one (or the profile stores
 * no base URL), resolution fails with a usage error before anything is sent. There is no override
 * switch: give the key explicitly for that URL (`COLLECTIONS_API_KEY` or `--api-key`, which shows
 * intent), or store a profile for the other API (`--profile NAME`). Keys given by flag or
 * environment are sent to whatever base URL is in effect: the user typed both.
 */
import type { Context, IOStreams } from '../context.js';
import { UsageError } from '../errors.js';
import { isLoopbackHost, proxyFor } from '../http/proxy.js';
import { inertText } from '../io/terminal-text.js';
import { CONFIGURABLE_FLAGS, type ExportDefaults } from './flags.js';
import { createConfigStore, DEFAULT_PROFILE } from './store.js';
import type { ConfigStore } from './store.js';
import { parseApiKey, parseBaseUrl, parseProfileName, storedHeaderName, type ProfileValues } from './values.js';

/** The global flags (commander: `--api-key <key>`, `--base-url <url>`, `--profile <name>`). */
export interface SettingsFlags {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
}

/** Where a setting came from. */
export type SettingSource = 'flag' | 'env' | 'profile';

/** Input of {@link resolveSettings}. */
export interface ResolveSettingsInput {
  flags: SettingsFlags;
  /** The environment (ctx.env). Empty variables count as unset. */
  env: Readonly<Record<string, string | undefined>>;
  store: ConfigStore;
  /** A profile name that overrides `flags.profile` and `COLLECTIONS_PROFILE` (e.g. already resolved). */
  profile?: string;
}

/** Resolved settings; key and base URL may be missing (see {@link requireApiSettings}). */
export interface ResolvedSettings {
  /** The API key: a secret, never to be printed. */
  apiKey?: string;
  baseUrl?: URL;
  /** The profile in effect. */
  profile: string;
  /** Where each value came from (`profile` says `default` when nothing named one). */
  sources: {
    apiKey?: SettingSource;
    baseUrl?: SettingSource;
    profile: 'flag' | 'env' | 'default';
  };
  /** Export defaults stored in the profile. */
  defaults: ExportDefaults;
  /** Request headers stored in the profile (`config set header 'Name: value'`), in order; `--header` adds to them. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** True when the base URL is plain `http:` to a host that is not loopback. */
  insecureTransport: boolean;
}

/** Settings with which requests can be sent. */
export interface ApiSettings extends ResolvedSettings {
  apiKey: string;
  baseUrl: URL;
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/**
 * The export defaults of a profile's stored values, as the flags parse them: every key of the flag
 * table (config/flags.ts) that is set, under its `setting` name, seconds converted to milliseconds.
 */
function exportDefaults(stored: ProfileValues): ExportDefaults {
  const defaults: Record<string, unknown> = {};
  for (const flag of CONFIGURABLE_FLAGS) {
    const value = stored[flag.config.key];
    if (value === undefined) continue;
    defaults[flag.config.setting] = flag.value.kind === 'seconds' ? Math.round(Number(value) * 1000) : value;
  }
  return defaults;
}

/** `--profile NAME` to append to a hint, when the profile is not the default one. */
function profileArg(profile: string): string {
  return profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
}

/**
 * Refuses a profile named by `--profile` or `COLLECTIONS_PROFILE` that is not stored (a typo would
 * otherwise read as an empty profile, and its hints would say to fill it); `default` always exists.
 * @throws {UsageError} (exit 2) naming the stored profiles
 */
function checkProfileKnown(profile: string, source: ResolvedSettings['sources']['profile'], store: ConfigStore): void {
  if (source === 'default' || profile === DEFAULT_PROFILE) return;
  const known = store.profiles();
  if (known.includes(profile)) return;
  const from = source === 'flag' ? '--profile' : 'COLLECTIONS_PROFILE';
  const create = `create it with \`collections config set base-url URL --profile ${profile}\``;
  throw new UsageError(`unknown profile '${profile}' (from ${from})`, {
    code: 'E_CONFIG',
    hint: known.length > 0 ? `use a stored profile (${known.join(', ')}), or ${create}` : `no profile is stored yet; ${create}`,
  });
}

/**
 * Resolves key, base URL, profile and export defaults with precedence flag > env > profile.
 * Does not require key or base URL (`ratelimit --cached` needs neither); see {@link requireApiSettings}.
 * @throws {UsageError} for an invalid or unknown profile name, base URL or key (the message never
 *   holds the key), an invalid stored value, or a stored key paired with a base URL of another
 *   origin (the key binding rule of this module's comment)
 */
export function resolveSettings(input: ResolveSettingsInput): ResolvedSettings {
  const { flags, env, store } = input;

  let profile: string;
  let profileSource: ResolvedSettings['sources']['profile'];
  const envProfile = nonEmpty(env.COLLECTIONS_PROFILE);
  if (input.profile !== undefined || flags.profile !== undefined) {
    profile = parseProfileName((input.profile ?? flags.profile)!);
    profileSource = 'flag';
  } else if (envProfile !== undefined) {
    profile = parseProfileName(envProfile);
    profileSource = 'env';
  } else {
    profile = DEFAULT_PROFILE;
    profileSource = 'default';
  }

  checkProfileKnown(profile, profileSource, store);
  const stored = store.getProfile(profile);
  const sources: ResolvedSettings['sources'] = { profile: profileSource };

  let baseUrl: URL | undefined;
  const envBase = nonEmpty(env.COLLECTIONS_BASE_URL);
  if (flags.baseUrl !== undefined) {
    baseUrl = parseBaseUrl(flags.baseUrl, '--base-url');
    sources.baseUrl = 'flag';
  } else if (envBase !== undefined) {
    baseUrl = parseBaseUrl(envBase, 'COLLECTIONS_BASE_URL');
    sources.baseUrl = 'env';
  } else if (stored['base-url'] !== undefined) {
    baseUrl = parseBaseUrl(stored['base-url'], `base-url of profile '${profile}'`);
    sources.baseUrl = 'profile';
  }

  let apiKey: string | undefined;
  const envKey = nonEmpty(env.COLLECTIONS_API_KEY);
  if (flags.apiKey !== undefined) {
    apiKey = parseApiKey(flags.apiKey, '--api-key');
    sources.apiKey = 'flag';
  } else if (envKey !== undefined) {
    apiKey = parseApiKey(envKey, 'COLLECTIONS_API_KEY');
    sources.apiKey = 'env';
  } else if (stored['api-key'] !== undefined) {
    apiKey = stored['api-key'];
    sources.apiKey = 'profile';
  }

  if (sources.apiKey === 'profile' && baseUrl !== undefined && sources.baseUrl !== 'profile') {
    const boundTo = stored['base-url'] === undefined ? undefined : new URL(stored['base-url']).origin;
    if (boundTo !== baseUrl.origin) {
      const from = sources.baseUrl === 'flag' ? '--base-url' : 'COLLECTIONS_BASE_URL';
      throw new UsageError(
        boundTo === undefined
          ? `the API key stored in profile '${profile}' has no base URL of its own, so it is not sent to ${baseUrl.origin} (from ${from})`
          : `the API key stored in profile '${profile}' belongs to ${boundTo}, not ${baseUrl.origin} (from ${from})`,
        {
          code: 'E_CONFIG',
          hint:
            boundTo === undefined
              ? `run \`collections config set base-url URL${profileArg(profile)}\`, or give the key for this URL in COLLECTIONS_API_KEY`
              : 'use a profile stored for that API (--profile NAME), or give its key in COLLECTIONS_API_KEY',
        },
      );
    }
  }

  const defaults = exportDefaults(stored);
  const headers = (stored.header ?? []).map((text): [string, string] => {
    const name = storedHeaderName(text);
    return [name, text.slice(name.length + 1).trim()];
  });

  const insecureTransport = baseUrl !== undefined && baseUrl.protocol === 'http:' && !isLoopbackHost(baseUrl.hostname);
  const out: ResolvedSettings = { profile, sources, defaults, headers, insecureTransport };
  if (apiKey !== undefined) out.apiKey = apiKey;
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  return out;
}

/**
 * Requires a base URL and a key, and warns (one line, before anything is sent) when the key would
 * travel in clear text: plain `http:` to a host that is not loopback.
 * @param warn receives the warning text (no prefix, no newline)
 * @throws {UsageError} (exit 2) without a base URL (hint: `collections config set base-url URL`)
 *   or without a key (hint: `collections config set api-key` or COLLECTIONS_API_KEY)
 */
export function requireApiSettings(settings: ResolvedSettings, warn: (message: string) => void): ApiSettings {
  const p = profileArg(settings.profile);
  if (settings.baseUrl === undefined) {
    // A stored key is only sent to its profile's own base URL, so --base-url would be refused.
    const elsewhere =
      settings.sources.apiKey === 'profile' ? ` (the key stored there is sent only to that base URL)` : ', or set COLLECTIONS_BASE_URL or --base-url';
    throw new UsageError(`no base URL configured${p ? ` for profile '${settings.profile}'` : ''}`, {
      code: 'E_CONFIG',
      hint: `run \`collections config set base-url URL${p}\`${elsewhere}`,
    });
  }
  if (settings.apiKey === undefined) {
    throw new UsageError(`no API key configured${p ? ` for profile '${settings.profile}'` : ''}`, {
      code: 'E_CONFIG',
      hint: `run \`collections config set api-key${p}\` (it prompts), or set COLLECTIONS_API_KEY`,
    });
  }
  if (settings.insecureTransport) {
    warn(`${settings.baseUrl.origin} is plain http: the API key will be sent unencrypted; use https`);
  }
  return settings as ApiSettings;
}

/**
 * {@link resolveSettings} then {@link requireApiSettings}, and the proxy variable that applies to
 * the base URL checked (http/proxy.ts `proxyFor`): what every command that sends requests calls.
 * @throws {UsageError} as both do, and when that proxy variable is not a proxy URL
 */
export function resolveApiSettings(input: ResolveSettingsInput, warn: (message: string) => void): ApiSettings {
  const settings = requireApiSettings(resolveSettings(input), warn);
  proxyFor(settings.baseUrl, input.env);
  return settings;
}

/**
 * A warning sink that writes `collections: warning: <message>` as one line on stderr, made inert
 * for a terminal (io/terminal-text.ts): a warning may quote a URL or a path from the config file.
 */
export function stderrWarner(io: Pick<IOStreams, 'stderr'>): (message: string) => void {
  return (message) => {
    io.stderr.write(`collections: warning: ${inertText(message.replace(/[\r\n]+/g, ' '))}\n`);
  };
}

/**
 * Opens the config store of a context: folder `ctx.configDir` (set from `COLLECTIONS_CONFIG_DIR`)
 * or, when that is unset or empty, the default folder (config/folder.ts defaultConfigDir); warnings
 * to stderr.
 * @throws {UsageError} as createConfigStore does
 */
export function openConfigStore(ctx: Pick<Context, 'configDir' | 'env' | 'io'>): ConfigStore {
  // An empty COLLECTIONS_CONFIG_DIR means unset, not the working directory.
  const configDir = ctx.configDir === '' ? undefined : ctx.configDir;
  return createConfigStore({ configDir, env: ctx.env, warn: stderrWarner(ctx.io) });
}

/** Settings plus the store they came from (for recording rate-limit snapshots). */
export interface LoadedSettings<S extends ResolvedSettings = ResolvedSettings> {
  settings: S;
  store: ConfigStore;
}

/**
 * Opens the context's store and resolves the settings of `flags` (no key or URL required), e.g.
 * for `ratelimit --cached`.
 * @throws {UsageError} as {@link openConfigStore} and {@link resolveSettings} do
 */
export function loadSettings(flags: SettingsFlags, ctx: Pick<Context, 'configDir' | 'env' | 'io'>): LoadedSettings {
  const store = openConfigStore(ctx);
  return { settings: resolveSettings({ flags, env: ctx.env, store }), store };
}

/**
 * Opens the context's store and resolves key and base URL for sending requests; the plain-http
 * warning goes to stderr before anything is sent. What export commands call first.
 * @throws {UsageError} (exit 2) as {@link resolveApiSettings} does
 */
export function loadApiSettings(flags: SettingsFlags, ctx: Pick<Context, 'configDir' | 'env' | 'io'>): LoadedSettings<ApiSettings> {
  const store = openConfigStore(ctx);
  return { settings: resolveApiSettings({ flags, env: ctx.env, store }, stderrWarner(ctx.io)), store };
}
