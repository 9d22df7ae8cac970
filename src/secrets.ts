/**
 * The ground floor's secrets service (the Context's `secrets`): the secrets of one run (the API key,
 * added as soon as a command knows it, from a flag, the environment or a stored profile, and the
 * values of credential-like request headers) and their removal from any text shown. Every line that reports a failure (cli/main.ts, the process guard,
 * a taxpayer's reason in a run of many) passes through {@link Secrets.redact}; the scrubbing itself
 * is http/redact.ts's, pure text code that imports nothing.
 */
import { headerSecretParts, isSecretHeaderName, maskSecret, redact } from './http/redact.js';

/** The secrets of one run and their removal from text. */
export interface Secrets {
  /** Adds a secret; `undefined` and the empty string are ignored, a secret added twice is kept once. */
  add(secret: string | undefined): void;
  /** `text` without any secret added so far: raw, percent- and form-encoded (http/redact.ts `redact`). */
  redact(text: string): string;
  /** Adds a request header's value as a secret when its name looks like a credential's (http/redact.ts `isSecretHeaderName`). */
  addHeader(name: string, value: string): void;
  /** See {@link showHeaderValue}. */
  showHeader(name: string, value: string): string;
}

/** Creates an empty {@link Secrets}: one per run (the system context, and each test context). */
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

/** How a request header's value is shown: masked like the key (`****abcd`) when its name looks like a credential's, else as it is. */
export function showHeaderValue(name: string, value: string): string {
  return isSecretHeaderName(name) ? maskSecret(value) : value;
}
