/**
 * The parsers of what a profile stores, for `config set` and for a hand-edited file. The export
 * defaults' ranges and choices are their flags', so a stored default is never one the flag refuses.
 */
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { parseHeader } from '../http/request-headers.js';
import { CONFIG_KEYS, configurableFlag, parseIntegerOption, parseSecondsOption, type ConfigKey, type StoredDefaults } from './flags.js';

/** The values of one profile as stored; `max-wait` and `timeout` in seconds, as their flags are typed. */
export interface ProfileValues extends StoredDefaults {
  /** A secret: never printed unmasked. */
  'api-key'?: string;
  /** Normalised `URL.href`; its origin is where the stored key may be sent. */
  'base-url'?: string;
  /** Sent with every request of the profile, as `Name: value` texts. */
  header?: string[];
  /** The PostgreSQL URL of the rate budget shared by hosts; its password is a secret. */
  budget?: string;
}

/** `postgres://user:***@host/db`: a URL's password masked, for messages and `config list`. */
export function maskedBudget(raw: string): string {
  return raw.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/:@?#]*):[^/@?#]*@/, '$1:***@').slice(0, 200);
}

/**
 * A `--budget` database: a `postgres://` or `postgresql://` URL (libpq's own syntax: the server
 * answers the rest).
 * @param source for the message, e.g. `--budget`
 * @throws {UsageError} (exit 2) never quoting a password
 */
export function parseBudgetUrl(raw: string, source = 'budget'): string {
  const text = raw.trim();
  if (!/^postgres(ql)?:\/\//i.test(text)) {
    throw new UsageError(`${source} must be a postgres:// URL (got '${maskedBudget(text)}')`, {
      hint: 'e.g. postgres://collections@db.internal:5432/budget',
    });
  }
  try {
    const url = new URL(text);
    if (url.password !== '') decodeURIComponent(url.password);
  } catch {
    throw new UsageError(`${source} is not a valid PostgreSQL URL`, { hint: 'write it as postgres://user@host:5432/database' });
  }
  return text;
}

/**
 * The key, credential-like headers, and a budget URL's password (percent-decoded too) with
 * `PGPASSWORD` join the secrets no output shows.
 */
export function addSettingsSecrets(
  { env, secrets }: Pick<Context, 'env' | 'secrets'>,
  settings: { readonly apiKey?: string; readonly budget?: string; readonly headers: ReadonlyArray<readonly [string, string]> },
): void {
  secrets.add(settings.apiKey);
  if (settings.budget !== undefined) {
    secrets.add(env.PGPASSWORD);
    try {
      const password = new URL(settings.budget).password;
      secrets.add(password);
      secrets.add(decodeURIComponent(password));
    } catch {
      // parseBudgetUrl refused it already.
    }
  }
  for (const [name, value] of settings.headers) secrets.addHeader(name, value);
}

/** @throws {UsageError} for an unknown key, listing the known ones */
export function parseConfigKey(name: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(name)) return name as ConfigKey;
  throw new UsageError(`unknown config key '${name}'`, { hint: `known keys: ${CONFIG_KEYS.join(', ')}` });
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Restricted so that names are safe as JSON keys and in messages.
 * @throws {UsageError} for an empty or ill-formed name
 */
export function parseProfileName(name: string): string {
  if (PROFILE_NAME.test(name)) return name;
  throw new UsageError(`invalid profile name '${name.slice(0, 80)}'`, {
    hint: 'use letters, digits, ".", "_" and "-" (at most 64 characters)',
  });
}

/** `https://user:pass@host/` → `https://***@host/` (RFC 3986 §3.2.1), whether or not the rest parses; cut at 200 characters. */
export function redactUserinfo(raw: string): string {
  return raw.replace(/^(\s*[A-Za-z][A-Za-z0-9+.-]*:[\\/]*)[^/\\?#]*@/, '$1***@').slice(0, 200);
}

/**
 * No user name or password (they would be sent along, and `https://good@evil/` is a classic
 * phishing trick), no query or fragment (requests add their own); a path is kept.
 * @param source for the message, e.g. `--base-url`
 * @throws {UsageError}; `E_CONFIG` for a user name or password
 */
export function parseBaseUrl(raw: string, source = 'base-url'): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${source} is not a valid URL (got '${redactUserinfo(raw)}')`, {
      hint: 'give an absolute http(s) URL, e.g. https://api.example.com',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${source} must be an http or https URL (got '${url.protocol}')`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${source} must not contain a user name or password (got '${redactUserinfo(url.href)}')`, {
      code: 'E_CONFIG',
      hint: 'give the URL without user:password@; the API key goes in COLLECTIONS_API_KEY or `collections config set api-key`',
    });
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`${source} must not contain a query or fragment`);
  }
  return url;
}

/**
 * Trimmed; no inner whitespace or control characters: a header value cannot carry line breaks, and
 * a pasted key with a stray space would fail obscurely later.
 * @throws {UsageError} never quoting the key
 */
export function parseApiKey(raw: string, source = 'api-key'): string {
  const key = raw.trim();
  if (key.length === 0) throw new UsageError(`${source} must not be empty`);
  // eslint-disable-next-line no-control-regex -- it rejects control characters in a key on purpose
  if (/[\s\u0000-\u001f\u007f]/.test(key)) {
    throw new UsageError(`${source} must not contain spaces or control characters`);
  }
  if (key.length > 4096) throw new UsageError(`${source} is too long (over 4096 characters)`);
  return key;
}

/**
 * An export default takes what its flag takes, seconds to the ms the flag keeps; `header` is
 * checked as `--header` is.
 * @throws {UsageError} quoting the value, except for `api-key`
 */
export function parseConfigValue(key: ConfigKey, raw: string): string | number {
  if (key === 'api-key') return parseApiKey(raw);
  if (key === 'base-url') return parseBaseUrl(raw).href;
  if (key === 'header') return parseHeader(raw, 'header').join(': ');
  if (key === 'budget') return parseBudgetUrl(raw);
  const value = configurableFlag(key)!.value;
  switch (value.kind) {
    case 'integer':
      return parseIntegerOption(key, raw, value.min, value.max, raw.slice(0, 80));
    case 'seconds':
      return parseSecondsOption(key, raw, value.min, value.max, raw.slice(0, 80)) / 1000;
    case 'choice': {
      const f = raw.trim();
      if ((value.choices as readonly string[]).includes(f)) return f;
      throw new UsageError(`${key} must be one of ${value.choices.join(', ')} (got '${raw.slice(0, 80)}')`);
    }
  }
}

/**
 * Re-parses the text form of a value read back from the file, which a user may have edited.
 * @throws {UsageError} (`E_CONFIG`) naming the key and profile, never quoting an API key
 */
export function checkStoredValue(key: ConfigKey, value: unknown, profile: string, file: string): string | number | string[] {
  const where = `'${key}' in profile '${profile}' of ${file}`;
  if (key === 'header') return checkStoredHeaders(value, where);
  const again = { code: 'E_CONFIG', hint: `run \`collections config set ${key}\` again` } as const;
  if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`invalid ${where}`, again);
  try {
    return parseConfigValue(key, String(value));
  } catch (err) {
    const detail = key === 'api-key' || !(err instanceof Error) ? '' : `: ${err.message}`;
    throw new UsageError(`invalid ${where}${detail}`, again);
  }
}

/** @throws {UsageError} (`E_CONFIG`) never quoting a value (it may be a credential) */
function checkStoredHeaders(value: unknown, where: string): string[] {
  const again = { code: 'E_CONFIG' as const, hint: "run `collections config unset header` and `config set header 'Name: value'` again" };
  if (!Array.isArray(value)) throw new UsageError(`invalid ${where}: not a list`, again);
  return value.map((text) => {
    if (typeof text !== 'string') throw new UsageError(`invalid ${where}: not a list of texts`, again);
    try {
      return parseHeader(text, 'header').join(': ');
    } catch (err) {
      throw new UsageError(`invalid ${where}: ${err instanceof Error ? err.message : String(err)}`, again);
    }
  });
}

export function storedHeaderName(text: string): string {
  return text.slice(0, text.indexOf(':'));
}
