/**
 * The session of a `--budget` database (rate/'s PostgreSQL store takes it ready-made, so the rate
 * floor never loads the driver): the same connection, password and `~/.pgpass` handling as a
 * PostgreSQL `--out`, with short server-side timeouts, and a socket that keeps no process alive.
 */
import type { BudgetSession } from '../../rate/index.js';
import { databaseAddress } from './address.js';
import { connect } from './postgres-connect.js';
import { UsageError } from '../../errors.js';

/**
 * A row lock held longer than this by a stuck host, ms, is taken back by the server: the others
 * wait no longer for it (and `lock_timeout` bounds their own wait).
 */
const IDLE_IN_TRANSACTION_MS = 5_000;
const LOCK_TIMEOUT_MS = 4_000;

/**
 * @throws {UsageError} (exit 2) when `url` is no PostgreSQL URL; {@link CollectionsError} (exit 7)
 *   when the database cannot be reached, naming it without its password
 */
export async function openBudgetSession(url: string, env: Readonly<Record<string, string | undefined>>): Promise<BudgetSession> {
  const address = databaseAddress(url, '.');
  if (address?.kind !== 'postgres') throw new UsageError('--budget takes a postgres:// URL');
  const client = await connect(address, { env });
  try {
    await client.query(`SET idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_MS}`);
    await client.query(`SET lock_timeout = ${LOCK_TIMEOUT_MS}`);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  // Idle, the socket keeps no process alive (a library's host ends when its own work does, the
  // session never closed); while a query is out it does, or Node would exit with the run awaiting it.
  const socket = (client as unknown as { connection?: { stream?: { ref?: () => void; unref?: () => void } } }).connection?.stream;
  socket?.unref?.();
  let pending = 0;
  return {
    query: async (text: string, values?: unknown[]) => {
      if (pending++ === 0) socket?.ref?.();
      try {
        const result = await client.query<Record<string, unknown>>(text, values);
        return { rows: result.rows };
      } finally {
        if (--pending === 0) socket?.unref?.();
      }
    },
    end: () => client.end(),
  };
}
