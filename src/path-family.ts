/**
 * The API's current path family as data (`ENDPOINTS`' `/taxpayers/…` paths are the older one): `get`
 * exports and lists them, the sandbox serves them, the rate budget counts them per path at first.
 */
import { ENDPOINTS, type Endpoint } from './endpoints.js';

export const GET_COMMAND = 'get';

const columnsOf = (key: string): readonly string[] => ENDPOINTS.find((e) => e.key === key)!.tableFields;

/** `{entityId}` is written in `get`'s path, never a flag, so `ids` is empty. */
function familyRow(key: string, path: string, watermark: string | undefined, description: string, like: string): Endpoint {
  return { key, command: GET_COMMAND, path, ids: [], cursor: true, watermark, description, tableFields: columnsOf(like) };
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

/** Whether an endpoint was built from a path of `get` rather than named by a command. */
export function isPathEndpoint(endpoint: Endpoint): boolean {
  return endpoint.command === GET_COMMAND;
}
