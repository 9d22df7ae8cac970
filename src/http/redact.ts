// The last line of defence for secrets, in messages from lower layers (undici, a server echoing a
// header back) that are not under our control.

export const REDACTED = '[REDACTED]';

/** Raw and percent-encoded; unlike {@link redact}, a secret shorter than 4 characters is still replaced. */
export function redactSecret(text: string, secret: string): string {
  if (secret.length === 0 || text.length === 0) return text;
  let out = text.split(secret).join(REDACTED);
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  return out;
}

/** The key whatever its length, then the run's other secrets. */
export function scrubberOf(apiKey: string, secrets?: { redact(text: string): string }): (text: string) => string {
  return (text) => {
    const withoutKey = redactSecret(text, apiKey);
    return secrets === undefined ? withoutKey : secrets.redact(withoutKey);
  };
}

/** Shorter secrets are skipped: replacing e.g. every `a` would mangle all text. */
const MIN_SECRET_LENGTH = 4;

/** As given, percent- and form-encoded; longest first, so a longer spelling is replaced before a shorter one it contains. */
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

/** Each secret raw, percent- and form-encoded; the same string when there was nothing to remove. */
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

const MASK = '****';

const MIN_LENGTH_TO_SHOW_TAIL = 8;

/** `****abcd`, as GitHub CLI and the AWS CLI show a key; below 8 characters no tail, which would be half the key. */
export function maskSecret(secret: string): string {
  if (secret.length < MIN_LENGTH_TO_SHOW_TAIL) return MASK;
  return `${MASK}${secret.slice(-4)}`;
}

const SECRET_HEADER_NAME = /auth|token|key|secret|cookie|passw|session|credential|signature/i;

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/** The value, and its credentials without the auth scheme (RFC 9110 §11.4), which a server may echo alone. */
export function headerSecretParts(value: string): string[] {
  const space = value.search(/[\t ]/);
  return space < 0 ? [value] : [value, value.slice(space).trim()];
}
