// Mirrors one entity's invoices into PostgreSQL with exportCollection(): a path of the current
// family (/entities/{id}/invoices), the API version pinned with Accept-Version, against the
// bundled sandbox. DATABASE_URL names the database, e.g. postgres://etl:secret@db:5432/mirror.
import pg from 'pg';
import { collection, exportCollection, startSandbox } from 'hydra-collections-export';

const database = process.env.DATABASE_URL;
if (database === undefined) throw new Error('set DATABASE_URL to a postgres:// URL');

const sandbox = await startSandbox({ port: 0, invoices: 1200, limit: 0 });
try {
  const { baseUrl, apiKey } = sandbox;
  // The version whose shapes this program was written against; a newer API keeps serving it.
  const headers = { 'Accept-Version': '2020-06-28' };

  // The entity of the first taxpayer, as a program would look it up from an RFC.
  let entityId: string | undefined;
  for await (const entity of collection<{ id: string; taxpayer: { id: string } }>('/entities', { baseUrl, apiKey, headers })) {
    if (entity.taxpayer.id === sandbox.taxpayers[0]) {
      entityId = entity.id;
      break;
    }
  }
  if (entityId === undefined) throw new Error(`no entity of taxpayer ${sandbox.taxpayers[0]}`);
  const path = `/entities/${entityId}/invoices`;

  const summary = await exportCollection({ baseUrl, apiKey, path, headers, out: database, table: 'entity_invoices' });

  // The table holds the entity's invoices, each once: the ids the API serves on that path.
  const served = new Set<string>();
  for await (const invoice of collection<{ id: string }>(path, { baseUrl, apiKey, headers })) served.add(invoice.id);
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM entity_invoices WHERE source = $1', [path]);
    const stored = new Set(rows.map((row) => row.id));
    if (summary.items !== served.size || rows.length !== served.size || stored.size !== rows.length || [...served].some((id) => !stored.has(id))) {
      throw new Error(`the API serves ${served.size} invoices on ${path}; the table holds ${rows.length} rows (${stored.size} ids)`);
    }
  } finally {
    await client.end();
  }
  console.log(`ok: exportCollection() wrote ${summary.items} invoices of ${path} to ${summary.table}, each once`);
} finally {
  await sandbox.close();
}
