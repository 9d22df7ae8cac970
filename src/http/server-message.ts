/** The server's own words in an error answer, as one line for the error message. */
import { isObject } from '../json/object.js';
import { readBoundedByteText } from './body.js';

/** bytes: a message is a line, not a page. */
const MAX_MESSAGE_BODY_BYTES = 1024 * 1024;
/** characters: one stderr line, not a page of HTML. */
const MAX_MESSAGE_CHARS = 300;

/**
 * Reads a non-2xx body (decoded as UTF-8, invalid bytes U+FFFD) and parses it with {@link parseServerMessage}.
 * @returns undefined when the read fails or the body is over 1 MiB: the status says enough
 */
export async function readServerMessage(redact: (text: string) => string, res: Response, what: string): Promise<string | undefined> {
  try {
    const { text } = await readBoundedByteText(res, MAX_MESSAGE_BODY_BYTES, what, false);
    const msg = parseServerMessage(res.headers.get('content-type'), text);
    return msg === undefined ? undefined : redact(msg);
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string | undefined {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return undefined;
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}

const MESSAGE_KEYS = ['message', 'hydra:description', 'description', 'detail', 'hydra:title', 'title'];

function violationsText(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const parts: string[] = [];
  for (const v of value) {
    if (!isObject(v)) continue;
    const message = str(v.message) ?? str(v.title);
    if (message === undefined) continue;
    const path = str(v.propertyPath);
    parts.push(path !== undefined ? `${path}: ${message}` : message);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * The server's own message in an error body, one line of at most 300 characters. API Platform
 * answers errors in several shapes, so several keys are tried: `ConstraintViolation`'s
 * `violations[]` (422), `message`, a Hydra error's `description`, RFC 9457 problem details'
 * `detail` or `title`; `text/plain` as it is. HTML (a proxy's error page) and anything
 * unparseable give undefined. Never throws.
 */
export function parseServerMessage(contentType: string | null | undefined, bodyText: string): string | undefined {
  const type = (contentType ?? '').toLowerCase();
  const trimmed = bodyText.trim();
  if (trimmed.length === 0) return undefined;
  if (type.includes('html') || trimmed.startsWith('<')) return undefined;
  if (type.includes('json') || trimmed.startsWith('{')) {
    let body: unknown;
    try {
      body = JSON.parse(trimmed);
    } catch {
      return undefined;
    }
    if (!isObject(body)) return typeof body === 'string' ? oneLine(body) : undefined;
    const error = isObject(body.error) ? body.error.message : body.error;
    const found = violationsText(body.violations) ?? [...MESSAGE_KEYS.map((key) => body[key]), error].map(str).find((m) => m !== undefined);
    return found === undefined ? undefined : oneLine(found);
  }
  if (type.startsWith('text/plain') || type === '') return oneLine(trimmed);
  return undefined;
}
