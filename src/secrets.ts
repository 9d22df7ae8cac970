/** The API key, added as soon as a command knows it, and credential-like header values; every failure line passes through `redact`. */
import { headerSecretParts, isSecretHeaderName, maskHeaderValue, redact } from './http/redact.js';

export interface Secrets {
  /** `undefined` and the empty string are ignored. */
  add(secret: string | undefined): void;
  /** Raw, percent- and form-encoded. */
  redact(text: string): string;
  /** Only when its name looks like a credential's. */
  addHeader(name: string, value: string): void;
  showHeader(name: string, value: string): string;
}

/** One per run. */
export function createSecrets(): Secrets {
  const known = new Set<string>();
  return {
    add(secret) {
      if (secret) known.add(secret);
    },
    redact: (text) => redact(text, known),
    addHeader(name, value) {
      if (isSecretHeaderName(name)) for (const part of headerSecretParts(value)) known.add(part);
    },
    showHeader: showHeaderValue,
  };
}

/** Masked like the key (`****abcd`, `Bearer ****abcd`) when its name looks like a credential's. */
export function showHeaderValue(name: string, value: string): string {
  return isSecretHeaderName(name) ? maskHeaderValue(name, value) : value;
}
