/**
 * Routing of the sandbox: a request path matched against the endpoint table of src/endpoints.ts.
 */
import { ENDPOINTS, type Endpoint } from '../endpoints.js';

/** An endpoint and the ids its path named (decoded). */
export interface Route {
  endpoint: Endpoint;
  taxpayerId?: string;
  invoiceId?: string;
}

const ROUTES = ENDPOINTS.map((endpoint) => ({ endpoint, segments: endpoint.path.split('/').slice(1) }));

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
        else if (want === '{taxpayerId}') route.taxpayerId = value;
        else route.invoiceId = value;
      } else if (want !== got) {
        ok = false;
      }
    }
    if (ok) return route;
  }
  return undefined;
}
