/**
 * Routing of the sandbox: a request path matched against the endpoint table of src/endpoints.ts,
 * the older `/taxpayers/…` family and the current path family (`/entities/{entityId}/…`,
 * `/invoices/payments`).
 */
import { ENDPOINTS, PATH_FAMILY, type Endpoint } from '../endpoints.js';

/** An endpoint and the ids its path named (decoded). */
export interface Route {
  endpoint: Endpoint;
  taxpayerId?: string;
  invoiceId?: string;
  entityId?: string;
}

const ROUTES = [...ENDPOINTS, ...PATH_FAMILY].map((endpoint) => ({ endpoint, segments: endpoint.path.split('/').slice(1) }));

/** The field of a {@link Route} each placeholder fills. */
const ID_FIELDS: Readonly<Record<string, 'taxpayerId' | 'invoiceId' | 'entityId'>> = {
  '{taxpayerId}': 'taxpayerId',
  '{invoiceId}': 'invoiceId',
  '{entityId}': 'entityId',
};

/**
 * Matches a percent-encoded path (no query) against the endpoint table; ids come back decoded.
 * @returns the first endpoint whose template fits, or undefined when none does, an id is empty, or
 *   an id is not valid percent-encoding (the sandbox answers 404 then)
 */
export function matchRoute(pathname: string): Route | undefined {
  const segments = pathname.split('/').slice(1);
  for (const { endpoint, segments: pattern } of ROUTES) {
    if (pattern.length !== segments.length) continue;
    const route: Route = { endpoint };
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const want = pattern[i]!;
      const got = segments[i]!;
      if (want.startsWith('{')) {
        let value: string;
        try {
          value = decodeURIComponent(got);
        } catch {
          return undefined;
        }
        if (value === '') ok = false;
        else route[ID_FIELDS[want]!] = value;
      } else if (want !== got) {
        ok = false;
      }
    }
    if (ok) return route;
  }
  return undefined;
}
