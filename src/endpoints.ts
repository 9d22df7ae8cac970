/** The endpoints of the API documentation as data: every export command is generated from these rows. */
import { UsageError } from './errors.js';

export type IdName = 'taxpayerId' | 'invoiceId';

/** How one id is given on the command line (`--taxpayer <rfc>`) and named in messages and help. */
export interface IdSpec {
  /** The placeholder of path templates (`{taxpayerId}`). */
  readonly name: IdName;
  readonly flag: string;
  readonly attribute: 'taxpayer' | 'invoice';
  readonly valueName: string;
  readonly help: string;
  /** On `ratelimit`, which checks the endpoints the ids open. */
  readonly probeHelp: string;
}

function idRow(attribute: IdSpec['attribute'], valueName: string, help: string): IdSpec {
  return { name: `${attribute}Id`, flag: `--${attribute}`, attribute, valueName, help, probeHelp: `also check the endpoints of this ${attribute}` };
}

export const ID_SPECS: readonly IdSpec[] = [idRow('taxpayer', 'rfc', 'taxpayer id (RFC)'), idRow('invoice', 'id', 'invoice id (UUID)')];

export function idSpec(name: IdName): IdSpec {
  return ID_SPECS.find((s) => s.name === name)!;
}

export function idOptionFlags(spec: IdSpec): string {
  return `${spec.flag} <${spec.valueName}>`;
}

export type IdFlagValues = Partial<Record<IdSpec['attribute'], string>>;

/** `{ taxpayer: 'ABC' }` → `{ taxpayerId: 'ABC' }`, unchecked ({@link encodeId} checks when a path is built). */
export function idsFromFlags(flags: IdFlagValues): Ids {
  const ids: Ids = {};
  for (const spec of ID_SPECS) {
    const value = flags[spec.attribute];
    if (value !== undefined) ids[spec.name] = value;
  }
  return ids;
}

export interface Endpoint {
  /** Stable: checkpoints, the rate-limit cache and `ratelimit` output use it. */
  readonly key: string;
  readonly command: string;
  readonly path: string;
  readonly ids: readonly IdName[];
  readonly cursor: boolean;
  /** The date field `--since` filters on (`<field>[after]`); undefined: none documented, `--since` is refused. */
  readonly watermark: string | undefined;
  readonly description: string;
  /** Default columns of the `table` format (dot paths). */
  readonly tableFields: readonly string[];
}

const INVOICE_TABLE = ['id', 'type', 'status', 'issuer.rfc', 'receiver.rfc', 'currency', 'total', 'issuedAt'];
const LINE_ITEM_TABLE = ['id', 'invoice.id', 'description', 'quantity', 'unitAmount', 'totalAmount'];

/** By {@link Endpoint.key}, in the order `ratelimit` and the command list follow; `ids` are the placeholders of `path`. */
const ENDPOINT_TABLE: Readonly<Record<string, Omit<Endpoint, 'key' | 'ids'>>> = {
  entities: {
    command: 'entities',
    path: '/entities',
    cursor: false,
    watermark: 'updatedAt',
    description: 'Export entities',
    tableFields: ['id', 'type', 'taxpayer.id', 'taxpayer.name', 'createdAt'],
  },
  events: {
    command: 'events',
    path: '/events',
    cursor: false,
    watermark: 'createdAt',
    description: 'Export events (kept by the API for 7 days)',
    tableFields: ['id', 'type', 'taxpayer.id', 'resource', 'createdAt'],
  },
  invoices: {
    command: 'invoices',
    path: '/taxpayers/{taxpayerId}/invoices',
    cursor: true,
    watermark: 'updatedAt',
    description: "Export a taxpayer's invoices",
    tableFields: INVOICE_TABLE,
  },
  'taxpayer-line-items': {
    command: 'line-items',
    path: '/taxpayers/{taxpayerId}/invoices/line-items',
    cursor: true,
    watermark: undefined,
    description: "Export line items across a taxpayer's invoices",
    tableFields: LINE_ITEM_TABLE,
  },
  'taxpayer-invoice-line-items': {
    command: 'line-items',
    path: '/taxpayers/{taxpayerId}/invoices/{invoiceId}/line-items',
    cursor: true,
    watermark: undefined,
    description: "Export the line items of one of a taxpayer's invoices",
    tableFields: LINE_ITEM_TABLE,
  },
  'invoice-line-items': {
    command: 'line-items',
    path: '/invoices/{invoiceId}/line-items',
    cursor: true,
    watermark: undefined,
    description: 'Export the line items of one invoice',
    tableFields: LINE_ITEM_TABLE,
  },
  payments: {
    command: 'payments',
    path: '/taxpayers/{taxpayerId}/invoices/payments',
    cursor: true,
    watermark: undefined,
    description: "Export the payments of a taxpayer's invoices",
    tableFields: ['id', 'invoiceUuid', 'installment', 'amount', 'currency', 'outstandingBalance', 'createdAt'],
  },
};

/** In {@link ID_SPECS} order, which is their order in every path. */
const idsIn = (path: string): IdName[] => ID_SPECS.filter((spec) => path.includes(`{${spec.name}}`)).map((spec) => spec.name);

export const ENDPOINTS: readonly Endpoint[] = Object.entries(ENDPOINT_TABLE).map(([key, row]) => ({ key, ...row, ids: idsIn(row.path) }));

/** The API's current path family (`ENDPOINTS`' `/taxpayers/…` paths are the older one): `get` exports them, the sandbox serves them. */
export const GET_COMMAND = 'get';

/** `{entityId}` is written in `get`'s path, never a flag, so `ids` is empty. */
function familyRow(key: string, path: string, watermark: string | undefined, description: string, like: string): Endpoint {
  return { key, command: GET_COMMAND, path, ids: [], cursor: true, watermark, description, tableFields: ENDPOINT_TABLE[like]!.tableFields };
}

export const PATH_FAMILY: readonly Endpoint[] = [
  familyRow('entity-invoices', '/entities/{entityId}/invoices', 'updatedAt', "an entity's invoices", 'invoices'),
  familyRow(
    'entity-line-items',
    '/entities/{entityId}/invoices/line-items',
    undefined,
    "the line items of an entity's invoices",
    'taxpayer-line-items',
  ),
  familyRow('entity-payments', '/entities/{entityId}/invoices/payments', undefined, "the payments of an entity's invoices", 'payments'),
  familyRow('entity-events', '/entities/{entityId}/events', 'createdAt', "an entity's events", 'events'),
  familyRow('organisation-payments', '/invoices/payments', undefined, "the payments of every entity's invoices", 'payments'),
];

export function isPathEndpoint(endpoint: Endpoint): boolean {
  return endpoint.command === GET_COMMAND;
}

export type Ids = Partial<Record<IdName, string>>;

export function exportCommands(): string[] {
  return [...new Set(ENDPOINTS.map((e) => e.command))];
}

/** Descriptions of the export commands that several endpoints share (one endpoint's own would mislead). */
const SHARED_COMMAND_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'line-items': 'Export invoice line items (of a taxpayer, of one invoice, or both)',
};

/** One export command and the rows of {@link ENDPOINTS} that share it (the ids given pick one). */
export interface ExportCommandSpec {
  readonly name: string;
  readonly description: string;
  readonly endpoints: readonly Endpoint[];
  readonly ids: readonly IdSpec[];
}

export function exportCommandSpecs(): ExportCommandSpec[] {
  return exportCommands().map((name) => {
    const endpoints = ENDPOINTS.filter((e) => e.command === name);
    const description = SHARED_COMMAND_DESCRIPTIONS[name] ?? endpoints[0]!.description;
    const ids = ID_SPECS.filter((id) => endpoints.some((e) => e.ids.includes(id.name)));
    return { name, description, endpoints, ids };
  });
}

/** @throws {UsageError} when the command is unknown or no endpoint of it takes exactly the ids given */
export function resolveEndpoint(command: string, ids: Ids): Endpoint {
  const candidates = ENDPOINTS.filter((e) => e.command === command);
  if (candidates.length === 0) throw new UsageError(`unknown command '${command}'`);
  const given = ID_SPECS.filter((s) => ids[s.name] !== undefined).map((s) => s.name);
  const match = candidates.find((e) => e.ids.length === given.length && e.ids.every((id) => given.includes(id)));
  if (match) return match;
  const accepted = candidates.map((e) => (e.ids.length === 0 ? 'no ids' : e.ids.map((id) => idSpec(id).flag).join(' '))).join(', or ');
  const got = given.length === 0 ? 'none' : given.map((id) => idSpec(id).flag).join(' ');
  throw new UsageError(`'${command}' takes ${accepted} (got ${got})`);
}

/**
 * Refused rather than encoded: `/` and `\\` because a proxy that decodes `%2F` before routing would
 * read another path, `?` `#` `%` signal a pasted URL, `,` separates a `--taxpayer` list.
 */
// eslint-disable-next-line no-control-regex -- it rejects control characters in an id on purpose
const FORBIDDEN_IN_ID = /[/\\?#%,\s\u0000-\u001f\u007f]/u;

/** `.` and `..` are refused: URL parsing would resolve them as dot segments (RFC 3986 §5.2.4). @throws {UsageError} naming the flag */
export function encodeId(name: IdName, value: string): string {
  const { flag } = idSpec(name);
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

/** @throws {UsageError} when an id is missing or invalid */
export function buildPath(endpoint: Endpoint, ids: Ids): string {
  return endpoint.path.replace(/\{(\w+)\}/g, (_m, name: IdName) => {
    const value = ids[name];
    if (value === undefined) throw new UsageError(`${idSpec(name).flag} is required`);
    return encodeId(name, value);
  });
}

/** `https://h/api/` + `/entities` → `https://h/api/entities`, without query or fragment. */
export function endpointUrl(baseUrl: URL, path: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = baseUrl.pathname.replace(/\/+$/, '') + path;
  url.search = '';
  url.hash = '';
  return url;
}
