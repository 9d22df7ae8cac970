import type { Client } from '../../src/http/client.js';
import { serverModePages } from '../../src/pagination/modes.js';
import type { PageStep } from '../../src/pagination/paginate.js';

/** Offset pages as an export reads them (`serverModePages` in offset mode, no page limit); a change of mode fails the test. */
export function offsetPages(client: Client, baseUrl: URL, start: URL, concurrency: number): AsyncGenerator<PageStep, void, void> {
  return serverModePages({
    client,
    baseUrl,
    start,
    mode: 'offset',
    headers: { offset: {}, cursor: {} },
    concurrency,
    wanted: () => Number.POSITIVE_INFINITY,
    onChange: (change) => {
      throw new Error(`the pages changed mode: ${JSON.stringify(change)}`);
    },
  });
}
