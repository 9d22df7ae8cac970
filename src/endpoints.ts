/**
 * The endpoints of the Collection API as data: every export command is generated from these rows,
 * never copied, and each id a path takes is described once ({@link ID_SPECS}: its flag, its help
 * and how messages name it). Paths and cursor support are those of the API documentation
 * (endpoints and pagination).
 */
import { UsageError } from './errors.js';

/** The name of an id a path template takes. */
export type IdName = 'taxpayerId' | 'invoiceId';

/** How one id is given on the command line (`--taxpayer <rfc>`) and named in messages and help. */
export interface IdSpec {
  /** The placeholder of path templates, e.g. `taxpayerId` (`{taxpayerId}`). */
  readonly name: IdName;
  /** The flag, also how messages name the id, e.g. `--taxpayer` (`--taxpayer must not be empty`). */
  readonly flag: string;
  /** Commander's attribute of the flag, e.g. `taxpayer` (`flags.taxpayer`). */
  readonly attribute: 'taxpayer' | 'invoice';
  /** The value's name in help, e.g. `rfc` (`--taxpayer <rfc>`). */
  readonly valueName: string;
  /** Help of the flag on the export commands, e.g. `taxpayer id (RFC)`. */
  readonly help: string;
  /** Help of the flag on `ratelimit`, which checks the endpoints the ids open. */
  readonly probeHelp: string;
}

/** Every id, in the order flags and messages list them. */
export const ID_SPECS: readonly IdSpec[] = [
  {
    name: 'taxpayerId',
    flag: '--taxpayer',
    attribute: 'taxpayer',
    valueName: 'rfc',
    help: 'taxpayer id (RFC)',
    probeHelp: 'also check the endpoints of this taxpayer',
  },
  {
    name: 'invoiceId',
    flag: '--invoice',
    attribute: 'invoice',
    valueName: 'id',
    help: 'invoice id (UUID)',
    probeHelp: 'also check the endpoints of this invoice',
  },
];

/** The spec of one id. */
export function idSpec(name: IdName): IdSpec {
  return ID_SPECS.find((s) => s.name === name)!;
}

/** The command-line flag that carries each id, e.g. `taxpayerId` → `--taxpayer` (from {@link ID_SPECS}). */
export const ID_FLAGS: Readonly<Record<IdName, string>> = Object.fromEntries(ID_SPECS.map((s) => [s.name, s.flag])) as Record<IdName, string>;

/** Commander flags of an id, e.g. `--taxpayer <rfc>`. */
export function idOptionFlags(spec: IdSpec): string {
  return `${spec.flag} <${spec.valueName}>`;
}

/** Id values as commander hands them over, by attribute (`{ taxpayer: 'ABC' }`); absent = not given. */
export type IdFlagValues = Partial<Record<IdSpec['attribute'], string>>;

/**
 * The ids given as flags, by id name: `{ taxpayer: 'ABC' }` → `{ taxpayerId: 'ABC' }`. Values are
 * not checked here ({@link encodeId} does, when a path is built).
 */
export function idsFromFlags(flags: IdFlagValues): Ids {
  const ids: Ids = {};
  for (const spec of ID_SPECS) {
    const value = flags[spec.attribute];
    if (value !== undefined) ids[spec.name] = value;
  }
  return ids;
}

/** One endpoint of the API. */
export interface Endpoint {
  /** Stable key, used in checkpoints, the rate-limit cache and `ratelimit` output, e.g. `invoice-line-items`. */
  readonly key: string;
  /** The command that exports it, e.g. `line-items` (three endpoints share that command). */
  readonly command: string;
  /** Path template with `{taxpayerId}` / `{invoiceId}` placeholders, e.g. `/taxpayers/{taxpayerId}/invoices`. */
  readonly path: string;
  /** The ids the template needs, in order. */
  readonly ids: readonly IdName[];
  /** Whether cursor pagination (`X-Pagination-Style: cursor`) is supported. */
  readonly cursor: boolean;
  /**
   * The date field `--since` filters on with `<field>[after]` (the API documentation, filters):
   * `updatedAt` where items record changes, `createdAt` where they are only ever created (events);
   * undefined where the API documents no date filter (line items, payments), so `--since` is refused.
   * On a path of `get`, `--since-field` names it.
   */
  readonly watermark: string | undefined;
  /** One-line description for `--help`. */
  readonly description: string;
  /** Default columns of the `table` format (dot paths). */
  readonly tableFields: readonly string[];
}

const INVOICE_TABLE = ['id', 'type', 'status', 'issuer.rfc', 'receiver.rfc', 'currency', 'total', 'issuedAt'];
const LINE_ITEM_TABLE = ['id', 'invoice.id', 'description', 'quantity', 'unitAmount', 'totalAmount'];

/** Every endpoint of the API documentation, one row each. */
export const ENDPOINTS: readonly Endpoint[] = [
  {
    key: 'entities',
    command: 'entities',
    path: '/entities',
    ids: [],
    cursor: false,
    watermark: 'updatedAt',
    description: 'Export entities',
    tableFields: ['id', 'type', 'taxpayer.id', 'taxpayer.name', 'createdAt'],
  },
  {
    key: 'events',
    command: 'events',
    path: '/events',
    ids: [],
    cursor: false,
    watermark: 'createdAt',
    description: 'Export events (kept by the API for 7 days)',
    tableFields: ['id', 'type', 'taxpayer.id', 'resource', 'createdAt'],
  },
  {
    key: 'invoices',
    command: 'invoices',
    path: '/taxpayers/{taxpayerId}/invoices',
    ids: ['taxpayerId'],
    cursor: true,
    watermark: 'updatedAt',
    description: "Export a taxpayer's invoices",
    tableFields: INVOICE_TABLE,
  },
  {
    key: 'taxpayer-line-items',
    command: 'line-items',
    path: '/taxpayers/{taxpayerId}/invoices/line-items',
    ids: ['taxpayerId'],
    cursor: true,
    watermark: undefined,
    description: "Export line items across a taxpayer's invoices",
    tableFields: LINE_ITEM_TABLE,
  },
  {
    key: 'taxpayer-invoice-line-items',
    command: 'line-items',
    path: '/taxpayers/{taxpayerId}/invoices/{invoiceId}/line-items',
    ids: ['taxpayerId', 'invoiceId'],
    cursor: true,
    watermark: undefined,
    description: "Export the line items of one of a taxpayer's invoices",
    tableFields: LINE_ITEM_TABLE,
  },
  {
    key: 'invoice-line-items',
    command: 'line-items',
    path: '/invoices/{invoiceId}/line-items',
    ids: ['invoiceId'],
    cursor: true,
    watermark: undefined,
    description: 'Export the line items of one invoice',
    tableFields: LINE_ITEM_TABLE,
  },
  {
    key: 'payments',
    command: 'payments',
    path: '/taxpayers/{taxpayerId}/invoices/payments',
    ids: ['taxpayerId'],
    cursor: true,
    watermark: undefined,
    description: "Export the payments of a taxpayer's invoices",
    tableFields: ['id', 'invoiceUuid', 'installment', 'amount', 'currency', 'outstandingBalance', 'createdAt'],
  },
];

/** Ids given on the command line; absent ids are `undefined`. */
export type Ids = Partial<Record<IdName, string>>;

/** The export commands in table order, without repeats: `entities`, `events`, `invoices`, `line-items`, `payments`. */
export function exportCommands(): string[] {
  return [...new Set(ENDPOINTS.map((e) => e.command))];
}

/** Descriptions of the export commands that several endpoints share (one endpoint's own would mislead). */
const SHARED_COMMAND_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'line-items': 'Export invoice line items (of a taxpayer, of one invoice, or both)',
};

/** One export command: the rows of {@link ENDPOINTS} that share it. */
export interface ExportCommandSpec {
  /** The command, e.g. `line-items`. */
  readonly name: string;
  /** One line for `--help`: the endpoint's own, or a summary when several share the command. */
  readonly description: string;
  /** Its endpoints, in table order (the ids given pick one, see {@link resolveEndpoint}). */
  readonly endpoints: readonly Endpoint[];
  /** The ids any of its endpoints takes, in {@link ID_SPECS} order. */
  readonly ids: readonly IdSpec[];
}

/** The spec of every export command, in table order (see {@link exportCommands}). */
export function exportCommandSpecs(): ExportCommandSpec[] {
  return exportCommands().map((name) => {
    const endpoints = ENDPOINTS.filter((e) => e.command === name);
    const description = SHARED_COMMAND_DESCRIPTIONS[name] ?? endpoints[0]!.description;
    const ids = ID_SPECS.filter((id) => endpoints.some((e) => e.ids.includes(id.name)));
    return { name, description, endpoints, ids };
  });
}

/**
 * Picks the endpoint of `command` whose ids are exactly the ids given.
 * @throws {UsageError} when the command is unknown or no endpoint of it takes that set of ids
 *   (e.g. `invoices` without `--taxpayer`, `entities --invoice X`).
 */
export function resolveEndpoint(command: string, ids: Ids): Endpoint {
  const candidates = ENDPOINTS.filter((e) => e.command === command);
  if (candidates.length === 0) throw new UsageError(`unknown command '${command}'`);
  const given = ID_SPECS.filter((s) => ids[s.name] !== undefined).map((s) => s.name);
  const match = candidates.find((e) => e.ids.length === given.length && e.ids.every((id) => given.includes(id)));
  if (match) return match;
  const accepted = candidates.map((e) => (e.ids.length === 0 ? 'no ids' : e.ids.map((id) => ID_FLAGS[id]).join(' '))).join(', or ');
  const got = given.length === 0 ? 'none' : given.map((id) => ID_FLAGS[id]).join(' ');
  throw new UsageError(`'${command}' takes ${accepted} (got ${got})`);
}

/**
 * Characters no id of the API holds (RFCs are letters, digits, `&` and `Ñ`; other ids are UUIDs),
 * refused rather than encoded: `/` and `\\` because a server or proxy that decodes `%2F` before
 * routing would read another path, `?` `#` `%` because they signal a pasted URL or query, `,`
 * because it separates the ids of a `--taxpayer` list, and
 * white space or control characters because they are typing accidents (docs/choices.md, "Choices made where
 * the spec is silent").
 */
// eslint-disable-next-line no-control-regex -- it rejects control characters in an id on purpose
const FORBIDDEN_IN_ID = /[/\\?#%,\s\u0000-\u001f\u007f]/u;

/**
 * Checks one id and percent-encodes it for a path segment (RFC 3986 §3.3), e.g. `D&M750624V8Z` →
 * `D%26M750624V8Z`. `.` and `..` are refused because URL parsing would resolve them as dot segments
 * (RFC 3986 §5.2.4) and send the request to another path; so is an empty id, and an id holding
 * `/`, `\\`, `?`, `#`, `%`, `,`, white space or control characters. The same checks make an id safe
 * in an `--out` template's file name (no `/`, `\\`, NUL, `.` or `..`).
 * @throws {UsageError} naming the flag
 */
export function encodeId(name: IdName, value: string): string {
  const flag = ID_FLAGS[name];
  if (value.length === 0) throw new UsageError(`${flag} must not be empty`);
  if (value === '.' || value === '..') throw new UsageError(`${flag} '${value}' is not a valid id`);
  const bad = FORBIDDEN_IN_ID.exec(value);
  if (bad) {
    // eslint-disable-next-line no-control-regex -- it looks for control characters on purpose, to name them in the message
    const shown = /[\s\u0000-\u001f\u007f]/u.test(bad[0]) ? 'white space or control characters' : `'${bad[0]}'`;
    throw new UsageError(`${flag} must not contain ${shown} (got ${JSON.stringify(value)})`);
  }
  return encodeURIComponent(value);
}

/**
 * Fills an endpoint's path template with percent-encoded ids, e.g.
 * `buildPath(invoices, {taxpayerId: 'A&B Ñ'})` → `/taxpayers/A%26B%20%C3%91/invoices`.
 * @throws {UsageError} when an id is missing or invalid (see {@link encodeId}).
 */
export function buildPath(endpoint: Endpoint, ids: Ids): string {
  return endpoint.path.replace(/\{(\w+)\}/g, (_m, name: IdName) => {
    const value = ids[name];
    if (value === undefined) throw new UsageError(`${idSpec(name).flag} is required`);
    return encodeId(name, value);
  });
}

/**
 * The URL of an endpoint path under the base URL: the base's path prefix (trailing slashes dropped)
 * joined with `path`, without query or fragment: `https://h/api/` + `/entities` →
 * `https://h/api/entities`. The one join of the export plan and the `ratelimit` probe.
 * @param path an endpoint path as {@link buildPath} gives it, starting with `/`
 */
export function endpointUrl(baseUrl: URL, path: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = baseUrl.pathname.replace(/\/+$/, '') + path;
  url.search = '';
  url.hash = '';
  return url;
}
