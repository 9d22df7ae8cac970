// The request headers: the key and `Accept`, and those a user adds (`-H 'Name: value'` as curl and
// `gh api` take them, a profile's `header`s), except the tool's own headers and the transport's.
import { UsageError } from '../errors.js';
import { TOKEN } from './redact.js';

/** What fetch accepts: no CR, LF or NUL, nothing past U+00FF (it sends a ByteString). */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** RFC 9110 §5.5 field-value, trimmed. */
const FIELD_VALUE = /^[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?$/;

/** The tool's own headers, and what sets each, in the command line's words. */
const OWN_HEADERS: ReadonlyMap<string, string> = new Map([
  ['x-api-key', 'the key comes from COLLECTIONS_API_KEY, --api-key or `collections config set api-key`'],
  ['accept', 'the tool reads JSON-LD/Hydra and always sends Accept: application/ld+json; Accept-Version pins the API version'],
  ['x-pagination-style', '--cursor sets it'],
  ['x-pagination-enable-partial', '--total sets it (with --cursor)'],
]);

/** RFC 9110 §7.6.1, §8.6, §12.5.3: a user's value would break framing or decoding. */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'accept-encoding',
]);

const shownName = (name: string): string => JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);

/**
 * `Accept-Version: 2020-06-28` → `['Accept-Version', '2020-06-28']`.
 * @throws {UsageError} (exit 2) as {@link checkHeader}, and for a text without `:`
 */
export function parseHeader(text: string, source = '--header'): [string, string] {
  const colon = text.indexOf(':');
  if (colon < 0) throw new UsageError(`${source} takes 'Name: value' (got no ':' after ${shownName(text)})`);
  return checkHeader(text.slice(0, colon), text.slice(colon + 1), source);
}

/**
 * A header's name and its value, trimmed; both doors check theirs here.
 * @param own what sets each of the tool's own headers, in the door's words
 * @throws {UsageError} (exit 2) for a bad name or value, or a header the tool or the transport
 *   sets; the message never quotes the value (it may be a credential)
 */
export function checkHeader(name: string, raw: string, source: string, own = OWN_HEADERS): [string, string] {
  if (!TOKEN.test(name)) throw new UsageError(`${source} ${shownName(name)} is not a valid header name (letters, digits and !#$%&'*+.^_\`|~- only)`);
  const value = raw.replace(/^[\t ]+|[\t ]+$/g, '');
  if (value === '') throw new UsageError(`${source} ${name} has no value`, { hint: `give it as '${name}: value'` });
  if (!FIELD_VALUE.test(value)) {
    throw new UsageError(`${source} ${name} has a value with a line break, control character or character past U+00FF`, {
      hint: 'a header value is one line of printable Latin-1 text',
    });
  }
  const lower = name.toLowerCase();
  const setBy = own.get(lower);
  if (setBy !== undefined) throw new UsageError(`${source} ${name} cannot be set this way: ${setBy}`);
  if (TRANSPORT_HEADERS.has(lower)) throw new UsageError(`${source} ${name} cannot be set: the HTTP transport sets it`);
  return [name, value];
}

/** Without `X-Api-Key` and `Accept`, which no extra replaces. */
function withoutOwn(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(?:x-api-key|accept)$/i.test(name)));
}

/**
 * The headers of each request: `extras` (each door checked them with {@link checkHeader}), then
 * `Accept: application/ld+json` and `X-Api-Key`.
 * @throws {UsageError} (exit 2) when the key holds characters not allowed in a header (checked
 *   here because fetch's own error would quote the key)
 */
export function createRequestHeaders(
  apiKey: string,
  extras: Record<string, string> = {},
): (extra?: Record<string, string>) => Record<string, string> {
  if (!HEADER_SAFE.test(apiKey)) {
    throw new UsageError('the API key contains characters not allowed in an HTTP header', {
      hint: 'check for a stray newline or quote in the key',
    });
  }
  const base: Record<string, string> = { ...withoutOwn(extras), Accept: 'application/ld+json', 'X-Api-Key': apiKey };
  return (extra) => (extra === undefined ? base : { ...base, ...withoutOwn(extra) });
}

/** A later header replaces an earlier one of the same name in any case, at its place. */
export function mergeHeaders(...layers: ReadonlyArray<ReadonlyArray<readonly [string, string]>>): Record<string, string> {
  const byName = new Map<string, [string, string]>();
  for (const layer of layers) for (const [name, value] of layer) byName.set(name.toLowerCase(), [name, value]);
  return Object.fromEntries(byName.values());
}
