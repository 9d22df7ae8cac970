// The last line of defence for secrets, in messages from lower layers (undici, a server echoing a
// header back) that are not under our control.

export const REDACTED = '[REDACTED]';

/** The key whatever its length, then the run's other secrets. */
export function scrubberOf(apiKey: string, secrets?: { redact(text: string): string }): (text: string) => string {
  return (text) => {
    const withoutKey = redact(text, [apiKey], 1);
    return secrets === undefined ? withoutKey : secrets.redact(withoutKey);
  };
}

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

/**
 * Each secret raw, percent- and form-encoded; the same string when there was nothing to remove.
 * @param minLength shorter secrets are skipped (by default 4: replacing e.g. every `a` would mangle all text)
 */
export function redact(text: string, secrets: Iterable<string | undefined>, minLength = 4): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length < minLength) continue;
    for (const form of spellings(secret)) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

const MASK = '****';

const MIN_LENGTH_TO_SHOW_TAIL = 8;
const MAX_TAIL = 4;

/**
 * `****` and the secret's last characters, as GitHub CLI and the AWS CLI show a key, but never more
 * than a quarter of it (docs/security.md): none under 8 characters, 2 for 8–11, 3 for 12–15, 4 from 16.
 */
export function maskSecret(secret: string): string {
  const tail = secret.length < MIN_LENGTH_TO_SHOW_TAIL ? 0 : Math.min(MAX_TAIL, Math.floor(secret.length / 4));
  return tail === 0 ? MASK : `${MASK}${secret.slice(-tail)}`;
}

const SECRET_HEADER_NAME = /auth|token|key|secret|cookie|passw|session|credential|signature/i;

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/** RFC 9110 §5.6.2 token; an auth-scheme (§11.1) is one. */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A credential-like header's value as shown, masked by {@link maskSecret} on the length of its
 * credentials alone (after the first word, which a scheme such as `Bearer` pads), so a short token
 * shows nothing; the auth scheme of an `Authorization` or `Proxy-Authorization` value is kept
 * (`Bearer ****`: it is no secret, and it tells what was sent).
 */
export function maskHeaderValue(name: string, value: string): string {
  const space = value.search(/[\t ]/);
  if (space < 0) return maskSecret(value);
  const first = value.slice(0, space);
  const credentials = value.slice(space).trim();
  return /authorization$/i.test(name) && TOKEN.test(first) ? `${first} ${maskSecret(credentials)}` : maskSecret(credentials);
}

/** The value, and its credentials without the auth scheme (RFC 9110 §11.4), which a server may echo alone. */
export function headerSecretParts(value: string): string[] {
  const space = value.search(/[\t ]/);
  return space < 0 ? [value] : [value, value.slice(space).trim()];
}
