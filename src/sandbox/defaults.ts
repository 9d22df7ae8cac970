/**
 * Defaults of the sandbox, in a module with no dependencies so the CLI's help can show them
 * without loading the sandbox.
 */
import type { DataSizes } from './data.js';

/** Default collection sizes. */
export const DEFAULT_SIZES: Readonly<DataSizes> = {
  entities: 25,
  events: 40,
  taxpayers: 4,
  invoicesPerTaxpayer: 250,
  lineItemsPerInvoice: 3,
  paymentsPerTaxpayer: 120,
};

/** The default accepted API key; not a secret (it is printed by `collections sandbox`). */
export const DEFAULT_SANDBOX_KEY = 'sandbox-key';
