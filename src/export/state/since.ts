/** The time filter of incremental exports, written with an explicit UTC offset: the API does not document the zone it reads. */
import { isPathEndpoint, type Endpoint } from '../../endpoints.js';
import { UsageError } from '../../errors.js';

/** `YYYY-MM-DD`, optionally `THH:MM`, `:SS`, `.fraction` and a zone (`Z`, `±HH:MM`, `±HHMM`). */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses a `--since` value (ISO 8601): a date alone is 00:00 UTC that day; without a zone, UTC.
 * Fractions of a second are dropped (rounded down, so nothing changed in that second is missed).
 * @returns epoch ms, a whole number of seconds
 * @throws {UsageError} (exit 2) naming the value when it is not such a time or not a real date
 *   (e.g. `2024-02-30`)
 */
export function parseSince(value: string, flag = '--since'): number {
  const m = ISO_TIME.exec(value.trim());
  const refuse = (): never => {
    throw new UsageError(`${flag} '${value}' is not an ISO 8601 date or time`, {
      hint: 'e.g. 2024-05-01 (00:00 UTC) or 2024-05-01T06:30:00+02:00',
    });
  };
  if (!m) return refuse();
  const n = (i: number): number => Number(m[i] ?? '0');
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return refuse();
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(local).getUTCDate() !== day) return refuse();
  return local - zoneOffsetMs(m[8]);
}

/** ms: `Z` or none → 0, `+02:00` → 7 200 000. */
function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return (zone.startsWith('-') ? -1 : 1) * minutes * 60_000;
}

/** Epoch ms as the filter value the API is sent, rounded down to the second: `2024-05-01T00:00:00+00:00` (RFC 3339 §5.6). */
export function formatFilterTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * `updatedAt[after]` or `createdAt[after]` (inclusive, the API documentation, filters).
 * @throws {UsageError} (exit 2) on an endpoint without a documented date filter (line items,
 *   payments), or a path of `get` whose field is unknown (`--since-field` names it)
 */
export function sinceParameter(endpoint: Endpoint, flag = '--since'): string {
  if (endpoint.watermark === undefined && isPathEndpoint(endpoint)) {
    throw new UsageError(`${flag} on ${endpoint.key} needs the date field to filter on`, {
      hint: 'name it with --since-field (e.g. --since-field updatedAt, sent as updatedAt[after])',
    });
  }
  if (endpoint.watermark === undefined) {
    throw new UsageError(`${flag} is not supported by ${endpoint.path}: the API documents no date filter for it`, {
      hint: 'export it in full, or export the invoices incrementally',
    });
  }
  return `${endpoint.watermark}[after]`;
}

/** Whether a `--param` key sets the same lower bound as `--since` would, so the two cannot both be given. */
export function conflictsWithSince(endpoint: Endpoint, key: string): boolean {
  const field = endpoint.watermark;
  return field !== undefined && (key === `${field}[after]` || key === `${field}[strictly_after]`);
}
