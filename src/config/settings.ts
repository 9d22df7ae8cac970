/**
 * The API key and base URL: flag, then environment, then the stored profile (README, "Set-up"). A
 * stored key goes only to its profile's own origin, so a production key never reaches a sandbox or
 * a typo'd host; a key given by flag or environment goes to whatever base URL is in effect.
 */
import type { Context, IOStreams } from '../context.js';
import { UsageError } from '../errors.js';
import { isLoopbackHost, proxyFor } from '../http/proxy.js';
import { parseHeader } from '../http/request-headers.js';
import { fileError } from '../io/files.js';
import { defined } from '../json/object.js';
import { inertText } from '../io/terminal-text.js';
import type { LastSeenCache } from '../rate/index.js';
import { CONFIGURABLE_FLAGS, type ExportDefaults } from './flags.js';
import { cacheDirOf } from './folder.js';
import { createConfigStore, DEFAULT_PROFILE, loadConfFor, type ConfigStore, type ConfigStoreOptions } from './store.js';
import { addSettingsSecrets, parseApiKey, parseBaseUrl, parseBudgetUrl, parseProfileName, type ProfileValues } from './values.js';

/** The global flags. */
export interface SettingsFlags {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
  /** `--budget`, on the commands that take it. */
  budget?: string;
}

export type SettingSource = 'flag' | 'env' | 'profile';

export interface ResolveSettingsInput {
  flags: SettingsFlags;
  /** Empty variables count as unset. */
  env: Readonly<Record<string, string | undefined>>;
  store: ConfigStore;
}

/** Key and base URL may be missing (see {@link requireApiSettings}). */
export interface ResolvedSettings {
  /** A secret, never to be printed. */
  apiKey?: string;
  baseUrl?: URL;
  profile: string;
  sources: {
    apiKey?: SettingSource;
    baseUrl?: SettingSource;
    profile: 'flag' | 'env' | 'default';
  };
  defaults: ExportDefaults;
  /** In order; `--header` adds to them. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** Plain `http:` to a host that is not loopback. */
  insecureTransport: boolean;
  /** The `--budget` database URL (flag, `COLLECTIONS_BUDGET`, then the profile's `budget`); its password is a secret. */
  budget?: string;
}

export interface ApiSettings extends ResolvedSettings {
  apiKey: string;
  baseUrl: URL;
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/** The first value given, parsed with the name of where it came from (for messages). */
function firstGiven<S extends SettingSource, T>(
  candidates: ReadonlyArray<readonly [S, string, string | undefined]>,
  parse: (raw: string, from: string) => T,
): { value: T; source: S } | undefined {
  for (const [source, from, raw] of candidates) if (raw !== undefined) return { value: parse(raw, from), source };
  return undefined;
}

/** As the flags parse them: seconds to ms. */
function exportDefaults(stored: ProfileValues): ExportDefaults {
  const defaults: Record<string, unknown> = {};
  for (const flag of CONFIGURABLE_FLAGS) {
    const value = stored[flag.config.key];
    if (value === undefined) continue;
    defaults[flag.option ?? flag.attribute] = flag.value.kind === 'seconds' ? Math.round(Number(value) * 1000) : value;
  }
  return defaults;
}

function profileArg(profile: string): string {
  return profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
}

/**
 * A typo in a profile's name would otherwise read as an empty profile, whose hints say to fill it.
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
 * A stored key goes only to its profile's own origin.
 * @throws {UsageError} (`E_CONFIG`) when the base URL from a flag or the environment is another origin
 */
function checkKeyOrigin(profile: string, stored: ProfileValues, sources: ResolvedSettings['sources'], baseUrl: URL | undefined): void {
  if (sources.apiKey !== 'profile' || baseUrl === undefined || sources.baseUrl === 'profile') return;
  const boundTo = stored['base-url'] === undefined ? undefined : new URL(stored['base-url']).origin;
  if (boundTo === baseUrl.origin) return;
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

/**
 * Flag > env > profile; key and base URL not required (`ratelimit --cached` needs neither).
 * @throws {UsageError} for an invalid or unknown profile name, base URL or key (the message never
 *   holds the key), an invalid stored value, or a stored key paired with another origin
 */
export function resolveSettings(input: ResolveSettingsInput): ResolvedSettings {
  const { flags, env, store } = input;

  const named = firstGiven(
    [
      ['flag', '--profile', flags.profile],
      ['env', 'COLLECTIONS_PROFILE', nonEmpty(env.COLLECTIONS_PROFILE)],
    ],
    parseProfileName,
  );
  const profile = named?.value ?? DEFAULT_PROFILE;
  checkProfileKnown(profile, named?.source ?? 'default', store);
  const stored = store.getProfile(profile);

  /** `--base-url`, `COLLECTIONS_BASE_URL`, then the profile's `base-url`: the names are the config key's. */
  const given = <T>(key: 'base-url' | 'api-key' | 'budget', flag: string | undefined, storedAs: string, parse: (raw: string, from: string) => T) => {
    const variable = `COLLECTIONS_${key.replace('-', '_').toUpperCase()}`;
    return firstGiven(
      [
        ['flag', `--${key}`, flag],
        ['env', variable, nonEmpty(env[variable])],
        ['profile', storedAs, stored[key]],
      ] as const,
      parse,
    );
  };
  const base = given('base-url', flags.baseUrl, `base-url of profile '${profile}'`, parseBaseUrl);
  const baseUrl = base?.value;
  const key = given('api-key', flags.apiKey, 'api-key', parseApiKey);
  const apiKey = key?.value;

  const sources: ResolvedSettings['sources'] = { profile: named?.source ?? 'default', ...defined({ baseUrl: base?.source, apiKey: key?.source }) };
  checkKeyOrigin(profile, stored, sources, baseUrl);

  const defaults = exportDefaults(stored);
  const headers = (stored.header ?? []).map((text) => parseHeader(text, 'header'));

  const budget = given('budget', flags.budget, `budget of profile '${profile}'`, parseBudgetUrl);

  const insecureTransport = baseUrl !== undefined && baseUrl.protocol === 'http:' && !isLoopbackHost(baseUrl.hostname);
  return { profile, sources, defaults, headers, insecureTransport, ...defined({ budget: budget?.value, apiKey, baseUrl }) };
}

/**
 * Warns, before anything is sent, when the key would travel in clear text.
 * @param warn receives the warning text (no prefix, no newline)
 * @throws {UsageError} (exit 2) without a base URL or without a key
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

/** One inert line on stderr: a warning may quote a URL or a path from the config file. */
export function stderrWarner(io: Pick<IOStreams, 'stderr'>): (message: string) => void {
  return (message) => {
    io.stderr.write(`collections: warning: ${inertText(message.replace(/[\r\n]+/g, ' '))}\n`);
  };
}

function storeOptions(ctx: Pick<Context, 'configDir' | 'env' | 'io'>): ConfigStoreOptions {
  return { configDir: ctx.configDir, env: ctx.env, warn: stderrWarner(ctx.io) };
}

/** Before {@link openConfigStore}: loads what reading the settings file needs, if there is one (or `writing`). */
export const prepareConfigStore = (ctx: Pick<Context, 'configDir' | 'env' | 'io'>, writing: boolean): Promise<void> =>
  loadConfFor(storeOptions(ctx), writing);

/** @throws {UsageError} as createConfigStore does */
export function openConfigStore(ctx: Pick<Context, 'configDir' | 'env' | 'io'>): ConfigStore {
  return createConfigStore(storeOptions(ctx));
}

const lastSeenCaches = new WeakMap<object, Promise<LastSeenCache>>();

/**
 * The rate-limit headers last seen per origin and endpoint, for `ratelimit --cached`: kept in the
 * rate budget's file of the cache folder. One per Context, so that its first failure to write is
 * one warning line however many exports of the run record.
 */
export function openLastSeenCache(ctx: Pick<Context, 'configDir' | 'env' | 'io'>): Promise<LastSeenCache> {
  let cache = lastSeenCaches.get(ctx);
  if (cache === undefined) {
    const warn = stderrWarner(ctx.io);
    cache = import('../rate/index.js').then(({ loadLastSeenCache }) =>
      loadLastSeenCache({
        cacheDir: cacheDirOf(ctx.env, ctx.configDir),
        onWriteError: (err, path) =>
          warn(`${fileError('save the rate-limit cache', path, err).message}; \`ratelimit --cached\` may show older values`),
      }),
    );
    lastSeenCaches.set(ctx, cache);
  }
  return cache;
}

/** Adds the key and credential-like stored headers to `ctx.secrets`. @throws {UsageError} as openConfigStore and resolveSettings do */
export function loadSettings(flags: SettingsFlags, ctx: Pick<Context, 'configDir' | 'env' | 'io' | 'secrets'>): ResolvedSettings {
  const store = openConfigStore(ctx);
  const settings = resolveSettings({ flags, env: ctx.env, store });
  addSettingsSecrets(ctx, settings);
  return settings;
}

/**
 * What every command that sends requests calls; the proxy variable of the base URL is checked too.
 * @throws {UsageError} (exit 2) as {@link loadSettings} and {@link requireApiSettings} do, and when that proxy variable is not a proxy URL
 */
export function loadApiSettings(flags: SettingsFlags, ctx: Pick<Context, 'configDir' | 'env' | 'io' | 'secrets'>): ApiSettings {
  const api = requireApiSettings(loadSettings(flags, ctx), stderrWarner(ctx.io));
  proxyFor(api.baseUrl, ctx.env);
  return api;
}
