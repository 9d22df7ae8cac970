/**
 * Cursor arithmetic of the sandbox: where a cursor falls in a view, and the cursor API Platform
 * links an empty cursor page on to. Ids are UUIDs whose order is their text order (UUIDv7,
 * lower-case hex), newest first in a view.
 */
import type { CollectionView } from './collection.js';

/**
 * How a cursor chain ends (`--cursor-end`):
 * - `endless` (API Platform ≥ 4.3.5, the default): every non-empty page links `next`, the last one
 *   too, and an empty page reached with `id[lt]=X` links on to `id[lt]=X−itemsPerPage`, so the chain
 *   never ends by itself: a client stops at the first empty page;
 * - `empty-page` (API Platform before 4.3.5): every non-empty page links `next`; an empty page links
 *   nothing, so the chain ends one empty page after the last item;
 * - `last-page` (the sandbox before): the page holding the last item has no `next`.
 */
export type CursorEnd = 'endless' | 'empty-page' | 'last-page';

/**
 * Smallest position in `[0, view.length]` whose id is below `id` (`strict`) or at most `id`;
 * `view.length` when there is none. Ids descend with position, so this is a binary search.
 */
export function firstPositionBelow(view: CollectionView, id: string, strict: boolean): number {
  let lo = 0;
  let hi = view.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = view.id(mid);
    if (strict ? v < id : v <= id) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The cursor an empty page reached with `id[lt]=cursor` links on to, as API Platform 4.3.5 writes
 * `id[lt]=X−itemsPerPage` for its integer ids: here a UUID read as a 128-bit integer (a decimal
 * integer as itself), minus `itemsPerPage`, floored at zero.
 * @returns the new cursor; undefined when the cursor is neither, or is zero already (no new cursor)
 */
export function cursorMinus(cursor: string, itemsPerPage: number): string | undefined {
  const uuid = UUID.test(cursor);
  if (!uuid && !/^[0-9]{1,30}$/.test(cursor)) return undefined;
  const value = BigInt(uuid ? `0x${cursor.replaceAll('-', '')}` : cursor);
  if (value === 0n) return undefined;
  const n = value > BigInt(itemsPerPage) ? value - BigInt(itemsPerPage) : 0n;
  if (!uuid) return String(n);
  const hex = n.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
