/**
 * Loads a database driver on first use. The drivers are optional dependencies: `--help` and file
 * exports never load them, and an install without one still runs every file export and names the
 * package to install when a database destination asks for it.
 */
import { UsageError } from '../../errors.js';

/** The packages of each destination, as `npm install` takes them. */
const PACKAGES: Readonly<Record<string, string>> = {
  pg: 'pg pg-copy-streams',
  'pg-copy-streams': 'pg pg-copy-streams',
  '@duckdb/node-api': '@duckdb/node-api',
};

/**
 * Imports `name`.
 * @param shown the destination as shown, for the refusal
 * @throws {UsageError} (exit 2, `E_CONFIG`) when the package is not installed, naming it
 */
export async function loadDriver<T>(name: 'pg' | 'pg-copy-streams' | '@duckdb/node-api', shown: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
    throw new UsageError(`--out ${shown} needs the package ${name}, which is not installed`, {
      code: 'E_CONFIG',
      hint: [{ step: 'install', packageName: PACKAGES[name]! }],
    });
  }
}
