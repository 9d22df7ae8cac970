// A complete program on the library: start the bundled sandbox, read a taxpayer's invoices with
// collection(), export them to a file with exportCollection(), check that both agree, and stop.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  collection,
  CollectionsError,
  exportCollection,
  JsonNumber,
  sourceText,
  startSandbox,
  type CollectionEvent,
  type JsonValue,
} from 'hydra-collections-export';

interface Invoice {
  id: string;
  satFolio: JsonNumber;
  total: JsonValue;
}

const sandbox = await startSandbox({ port: 0, invoices: 2500, limit: 0 });
const folder = await mkdtemp(join(tmpdir(), 'collections-example-'));
try {
  const connection = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey };
  const path = `/taxpayers/${sandbox.taxpayers[0]}/invoices`;

  let pages = 0;
  const onEvent = (event: CollectionEvent): void => {
    if (event.type === 'page') pages++;
  };
  const folios = new Set<string>();
  for await (const invoice of collection<Invoice>(path, { ...connection, cursor: true, onEvent })) {
    // A 64-bit folio stays exact: a JsonNumber holding the server's literal, and in the item's text.
    if (!(invoice.satFolio instanceof JsonNumber) || !sourceText(invoice).includes(`"satFolio":${String(invoice.satFolio)}`)) {
      throw new Error(`invoice ${invoice.id}: satFolio was not kept exactly`);
    }
    folios.add(String(invoice.satFolio));
  }

  const out = join(folder, 'invoices.ndjson');
  const summary = await exportCollection({ ...connection, path, out });
  const lines = (await readFile(out, 'utf8')).trimEnd().split('\n');
  const exported = new Set(lines.map((line) => /"satFolio":(\d+)/.exec(line)?.[1]));

  if (folios.size !== 2500 || summary.items !== 2500 || lines.length !== 2500 || [...folios].some((f) => !exported.has(f))) {
    throw new Error(`collection() read ${folios.size} invoices, exportCollection() wrote ${summary.items} (${lines.length} lines)`);
  }
  console.log(`ok: collection() read ${folios.size} invoices in ${pages} pages; exportCollection() wrote ${summary.items} to ${out}`);
} catch (err) {
  if (err instanceof CollectionsError) console.error(`failed: ${err.message} (${err.code}, exit code ${err.exitCode})`);
  throw err;
} finally {
  await sandbox.close();
  await rm(folder, { recursive: true, force: true });
}
