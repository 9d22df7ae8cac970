/**
 * A one-page prefetch for pages that must be fetched one after the other (cursor mode,
 * docs/architecture.md, "One page's path"): while the consumer writes page k, page k+1 is already being fetched,
 * since its link is known once page k was parsed. At most one request is ahead of the consumer.
 */

/**
 * Yields what `open`'s generator yields, asking it for the next item as soon as the current one
 * is handed over, so the consumer's work on item k overlaps the production of item k+1.
 * - An error producing item k+1 is thrown to the consumer when it asks for item k+1, after it had
 *   item k, as without the prefetch.
 * - `wants(item)` false: the next item is not asked for ahead (e.g. `--max-items` is reached with
 *   this page); it is asked for only if the consumer asks.
 * - The consumer stopping (`break`, `return()`, an error) aborts the signal given to `open`, so a
 *   request ahead is cancelled, then closes the source.
 * @param open creates the source; `signal` aborts its work in flight (e.g. pagination/paginate.ts `signal`)
 * @param wants whether to ask for the item after `item` before the consumer does
 * @throws what the source throws
 */
export async function* prefetch<T>(
  open: (signal: AbortSignal) => AsyncGenerator<T, void, void>,
  wants: (item: T) => boolean,
): AsyncGenerator<T, void, void> {
  const controller = new AbortController();
  const source = open(controller.signal);
  let ahead: Promise<IteratorResult<T, void>> | undefined = source.next();
  try {
    for (;;) {
      const result: IteratorResult<T, void> = await (ahead ?? source.next());
      ahead = undefined;
      if (result.done === true) return;
      if (wants(result.value)) {
        ahead = source.next();
        // Awaited on the consumer's next request; until then, a failure is not an unhandled rejection.
        ahead.catch(() => undefined);
      }
      yield result.value;
    }
  } finally {
    if (ahead !== undefined) {
      controller.abort();
      await ahead.catch(() => undefined);
    }
    await source.return();
  }
}
