/**
 * Keeps the API key out of messages (docs/rate-limits.md, "Rate limits, retries and safety": the key never
 * appears in output, errors, `--verbose` lines or checkpoints): anything the server or the
 * transport says is passed through {@link redactSecret} / {@link redact} before it reaches an
 * error, an event, a log line or the terminal. Redaction is the last line of defence: code should
 * not put the key into text in the first place, but messages from lower layers (undici, a server
 * echoing a header back) are not under our control.
 */

/** What replaces a secret in text. */
export const REDACTED = '[REDACTED]';

/**
 * Replaces every occurrence of `secret` in `text`, raw and percent-encoded, with {@link REDACTED}.
 * A server that echoes the key back, or a transport error that quotes a header, cannot leak it.
 * @param secret secrets shorter than 4 characters are still replaced (an empty one is ignored)
 */
export function redactSecret(text: string, secret: string): string {
  if (secret.length === 0 || text.length === 0) return text;
  let out = text.split(secret).join(REDACTED);
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  return out;
}

/**
 * What the client scrubs from a message of the server or the transport before any error or event:
 * the key (whatever its length), then the run's other secrets (the Context's `secrets`), if given.
 */
export function scrubberOf(apiKey: string, secrets?: { redact(text: string): string }): (text: string) => string {
  return (text) => {
    const withoutKey = redactSecret(text, apiKey);
    return secrets === undefined ? withoutKey : secrets.redact(withoutKey);
  };
}

/** In {@link redact}, shorter secrets are skipped: replacing e.g. every `a` would mangle all text. */
const MIN_SECRET_LENGTH = 4;

/**
 * The spellings a secret can take in text: as given, percent-encoded (`encodeURIComponent`, a key
 * that ended up in a URL) and form-encoded (`+` for space). Longest first, so a longer spelling is
 * replaced before a shorter one it contains.
 */
function spellings(secret: string): string[] {
  const forms = new Set<string>([secret]);
  try {
    const encoded = encodeURIComponent(secret);
    forms.add(encoded);
    forms.add(encoded.replace(/%20/g, '+'));
  } catch {
    // A lone surrogate cannot be percent-encoded; the raw form is still scrubbed.
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Replaces every occurrence of each secret in `text` (raw, percent- and form-encoded) with
 * {@link REDACTED}, e.g. `redact('key abc123xyz rejected', ['abc123xyz'])` →
 * `'key [REDACTED] rejected'`. Secrets that are `undefined` or shorter than 4 characters are ignored.
 * @param text any text (an error message, a stack, a log line)
 * @param secrets the values to remove
 * @returns the text without the secrets; the same string when there was nothing to remove
 */
export function redact(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of spellings(secret)) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/**
 * Scrubs secrets from an error in place: its `message`, its `stack`, and those of its `cause`
 * chain (at most 8 levels, so a cyclic chain ends). Non-errors are left alone.
 * @returns the same value, for chaining
 */
export function redactError<T>(err: T, secrets: Iterable<string | undefined>): T {
  const list = [...secrets];
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const e: Error = current;
    const message = redact(e.message, list);
    if (message !== e.message) e.message = message;
    if (typeof e.stack === 'string') {
      const stack = redact(e.stack, list);
      if (stack !== e.stack) e.stack = stack;
    }
    current = e.cause;
  }
  return err;
}

/** What a masked key starts with. */
const MASK = '****';

/** Keys shorter than this are masked completely: their last 4 characters would be too much of them. */
const MIN_LENGTH_TO_SHOW_TAIL = 8;

/**
 * Masks an API key for display (`config get`, `config list`): `****` then its last 4 characters
 * (`****abcd`), as GitHub CLI and the AWS CLI do. Keys shorter than 8 characters show no tail
 * (`****`): 4 characters would be half of such a key.
 */
export function maskSecret(secret: string): string {
  if (secret.length < MIN_LENGTH_TO_SHOW_TAIL) return MASK;
  return `${MASK}${secret.slice(-4)}`;
}

/** Names of headers whose values are credentials, masked like the key wherever a header is shown. */
const SECRET_HEADER_NAME = /auth|token|key|secret|cookie|passw|session|credential|signature/i;

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/** The value, and its credentials without the auth scheme (RFC 9110 §11.4), which a server may echo alone. */
export function headerSecretParts(value: string): string[] {
  const space = value.search(/[\t ]/);
  return space < 0 ? [value] : [value, value.slice(space).trim()];
}
