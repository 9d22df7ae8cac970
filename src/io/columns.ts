/**
 * The width tables are fitted to: `COLUMNS` from the environment when it is a positive whole
 * number (also when the output is piped, POSIX's `COLUMNS` "the user's preferred width"), else the
 * terminal's width, else undefined (the caller's default).
 */
import type { IOStreams } from '../context.js';

/**
 * The width to fit a table to, in columns.
 * @param io the streams; `columns` is the terminal's width when stdout or stderr is a terminal
 * @param env the environment, for `COLUMNS`
 */
export function outputColumns(io: Pick<IOStreams, 'columns'>, env: Readonly<Record<string, string | undefined>>): number | undefined {
  const fromEnv = env.COLUMNS !== undefined && /^\d{1,5}$/.test(env.COLUMNS) ? Number(env.COLUMNS) : 0;
  return fromEnv > 0 ? fromEnv : io.columns;
}
