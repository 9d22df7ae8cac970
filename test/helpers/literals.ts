/**
 * Expected values that keep the sandbox's number literals: each invoice's 64-bit `satFolio` and the
 * zero fraction of `exchangeRate: 1.0` are read as text, since `JSON.parse` (and so
 * `Sandbox.items()`) would round the one and drop the other. Compare an export's output read the
 * same way ({@link literalsAsText}) against {@link literalItems}.
 */
import type { Sandbox } from '../../src/sandbox/app.js';
import { CANARY } from './world.js';

/** An item of a collection, its `satFolio` and `exchangeRate` literals as strings. */
export type LiteralItem = Record<string, unknown> & { id: string };

/** JSON text with `satFolio` and `exchangeRate` numbers turned into strings of their exact literal (any whitespace). */
export const literalsAsText = (text: string): string => text.replace(/"(satFolio|exchangeRate)":(\s*)(-?[0-9][0-9.eE+-]*)/g, '"$1":$2"$3"');

/**
 * The items of the collection at `path` (e.g. `/taxpayers/{rfc}/invoices`, at most 1000 items) in
 * API order, from one page of `sandbox` in its own wire encoding, literals as text. The page is a
 * real request: it is in `sandbox.requests()` and counts against its rate limit.
 * @param apiKey the sandbox's key (default the worlds' {@link CANARY})
 * @throws {Error} when the sandbox does not answer 200
 */
export async function literalItems(sandbox: Sandbox, path: string, apiKey = CANARY): Promise<LiteralItem[]> {
  const res = await sandbox.handle(new Request(`http://x${path}?itemsPerPage=1000`, { headers: { 'X-Api-Key': apiKey } }));
  if (res.status !== 200) throw new Error(`literalItems: ${path} answered ${res.status}`);
  const body = JSON.parse(literalsAsText(await res.text())) as { 'hydra:member'?: LiteralItem[]; member?: LiteralItem[] };
  return body['hydra:member'] ?? body.member ?? [];
}
