// The peer of the database bench (scripts/bench/databases.js): what a user scripts today after an
// NDJSON export, with each database's own fastest path, into a table of the same shape as ours.
//   node scripts/bench/bulk-load.js postgres <url> <file.ndjson>   COPY into a staging table, then the upsert
//   node scripts/bench/bulk-load.js duckdb <file.duckdb> <file.ndjson>   read_ndjson_objects, then the upsert
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

const [kind, target, ndjson] = process.argv.slice(2);
const COLUMNS =
  'id text PRIMARY KEY, item jsonb NOT NULL, taxpayer text, source text NOT NULL, updated_at timestamptz, synced_at timestamptz NOT NULL';
const SET =
  'item = excluded.item, taxpayer = excluded.taxpayer, source = excluded.source, updated_at = excluded.updated_at, synced_at = excluded.synced_at ' +
  'WHERE (t.item, t.taxpayer, t.source) IS DISTINCT FROM (excluded.item, excluded.taxpayer, excluded.source)';

if (kind === 'postgres') {
  const { default: pg } = await import('pg');
  const { from } = await import('pg-copy-streams');
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  await client.query(`CREATE TABLE IF NOT EXISTS invoices (${COLUMNS})`);
  await client.query('BEGIN');
  await client.query('CREATE TEMP TABLE stage (n bigserial, item jsonb) ON COMMIT DROP');
  // CSV whose delimiter and quote compact JSON never holds: each line is one value, unescaped.
  await pipeline(createReadStream(ndjson), client.query(from("COPY stage (item) FROM STDIN WITH (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')")));
  await client.query(
    "INSERT INTO invoices AS t SELECT k, item, 'T', '/s', (item->>'updatedAt')::timestamptz, now() FROM " +
      "(SELECT DISTINCT ON (k) coalesce(item->>'id', item->>'@id') AS k, item FROM stage ORDER BY k, n DESC) s " +
      `ON CONFLICT (id) DO UPDATE SET ${SET}`,
  );
  await client.query('COMMIT');
  await client.end();
} else if (kind === 'duckdb') {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(target);
  const c = await instance.connect();
  await c.run(`CREATE TABLE IF NOT EXISTS invoices (${COLUMNS.replace('jsonb', 'JSON')})`);
  await c.run(
    "INSERT INTO invoices AS t SELECT k, item, 'T', '/s', try_cast(json_extract_string(item, '$.updatedAt') AS TIMESTAMPTZ), now() FROM " +
      `(SELECT coalesce(json_extract_string(json, '$.id'), json_extract_string(json, '$."@id"')) AS k, json AS item, row_number() OVER () AS n FROM read_ndjson_objects($1)) ` +
      `QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC) = 1 ON CONFLICT (id) DO UPDATE SET ${SET}`,
    [ndjson],
  );
  c.closeSync();
  instance.closeSync();
} else {
  console.error('usage: bulk-load.js postgres|duckdb <target> <file.ndjson>');
  process.exit(2);
}
