/**
 * Constant word and name lists of the generated records: data only, no logic. The first two party
 * templates hold the RFCs the README's and `--help`'s examples use, so they run against the sandbox
 * as written; the next two make the defaults exercise the ugly cases: an `&` in a company RFC and an
 * `Ñ` in a person's (the API documentation: RFCs are uppercase letters, digits, `&` and `Ñ`).
 */

/** A taxpayer's name, RFC letters and the tax regimes it may have. */
export interface PartyTemplate {
  name: string;
  /** RFC letters: 3 for a company, 4 for a person. */
  letters: string;
  regimes: readonly number[];
  /** The whole RFC, for every seed (`letters`, a `YYMMDD` registration date, 3 check characters); else drawn. */
  rfc?: string;
}

/** Tax regimes of companies (legal persons); repeats weight the draw. */
export const COMPANY_REGIMES = [601, 601, 603, 626] as const;
/** Tax regimes of natural persons. */
const PERSON_REGIMES = [612, 626, 605, 606] as const;

/** The first parties of every dataset, in order; further ones are synthetic companies. */
export const PARTY_TEMPLATES: readonly PartyTemplate[] = [
  { name: 'CARLOS PEÑA ITURBIDE', letters: 'PEIC', regimes: PERSON_REGIMES, rfc: 'PEIC211118IS0' },
  { name: 'ABARROTES ARANDA ALCÁNTARA SA DE CV', letters: 'AAA', regimes: COMPANY_REGIMES, rfc: 'AAA010101AAA' },
  { name: 'D&M COMERCIAL SA DE CV', letters: 'D&M', regimes: COMPANY_REGIMES },
  { name: 'JOSÉ ÑÚÑEZ ORTIZ', letters: 'ÑUOJ', regimes: PERSON_REGIMES },
  { name: 'COMERCIALIZADORA DEL VALLE SA DE CV', letters: 'CVA', regimes: COMPANY_REGIMES },
  { name: 'MARÍA PEÑA ITURBIDE', letters: 'PEIM', regimes: PERSON_REGIMES },
  { name: 'TRANSPORTES AÑIL DEL NORTE SA DE CV', letters: 'TAÑ', regimes: COMPANY_REGIMES },
  { name: 'LUIS ÁNGEL RAMÍREZ SOTO', letters: 'RASL', regimes: PERSON_REGIMES },
  { name: 'SERVICIOS INTEGRALES DEL BAJÍO SA DE CV', letters: 'SIB', regimes: COMPANY_REGIMES },
  { name: 'CONSTRUCTORA PÉREZ & HIJOS SA DE CV', letters: 'CP&', regimes: COMPANY_REGIMES },
  { name: 'ANA SOFÍA TORRES LEÓN', letters: 'TOLA', regimes: PERSON_REGIMES },
  { name: 'FERRETERÍA LA ESPAÑOLA SA DE CV', letters: 'FES', regimes: COMPANY_REGIMES },
];

/**
 * Id of the first taxpayer's newest generated invoice, the one the `--help` examples use (a UUIDv7
 * of 2024-03-31T23:59:59Z, so it sorts after every other generated invoice and before inserted ones).
 */
export const SAMPLE_INVOICE_ID = '018e96f4-a418-7d2e-9f3a-4b5c6d7e8f90';

/** Characters of an RFC's check digits (no `O`). */
export const ALNUM = 'ABCDEFGHIJKLMNPQRSTUVWXYZ0123456789';
/** Letters of synthetic companies' RFCs. */
export const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** RFCs of the certification providers (`pac`). */
export const PACS = ['FIN120301JA5', 'SAT970701NN3', 'EME000602QR9'] as const;
/** Postal codes of `placeOfIssue`. */
export const POSTAL_CODES = ['64000', '06600', '44100', '76000', '97000', '22000'] as const;
/** Invoice `reference` values; repeats of null weight the draw. */
export const REFERENCES = [null, null, null, 'SUC-NORTE', 'SUC-CENTRO', 'PEDIDO-7731'] as const;
/** Tags an invoice may carry. */
export const INVOICE_TAGS = [
  { name: 'Revisar', color: '#f59e0b' },
  { name: 'Conciliación pendiente', color: '#ef4444' },
  { name: 'Pagada', color: '#10b981' },
] as const;
/** Tags an entity may carry. */
export const ENTITY_TAGS = [
  { name: 'Cartera Norte', color: '#3b82f6' },
  { name: 'Clientes clave', color: '#8b5cf6' },
] as const;
/** Products of line items; `cents` is the list unit price. */
export const PRODUCTS = [
  { id: 'LAP-14-16G', code: '43211503', description: 'Laptop 14 pulgadas, 16 GB RAM, 512 GB SSD', unit: 'H87', cents: 1_000_000 },
  { id: 'MANT-PREV', code: '81112300', description: 'Servicio de mantenimiento preventivo', unit: 'E48', cents: 250_000 },
  { id: 'TON-NEG', code: '44103103', description: 'Tóner negro para impresora láser', unit: 'H87', cents: 189_990 },
  { id: 'PAP-CARTA', code: '14111507', description: 'Papel bond tamaño carta, caja con 10 paquetes', unit: 'XBX', cents: 84_950 },
  { id: 'CONS-TI', code: '81111800', description: 'Consultoría en tecnologías de la información', unit: 'E48', cents: 1_200_000 },
  { id: 'FLETE-MG', code: '78101802', description: 'Flete de mercancía Monterrey – Guadalajara', unit: 'E48', cents: 450_000 },
  { id: 'CAFE-1K', code: '50201706', description: 'Café de grano orgánico, 1 kg', unit: 'KGM', cents: 32_500 },
  { id: 'RENTA-OF', code: '80131502', description: 'Renta de oficina, mes corriente', unit: 'E48', cents: 1_850_000 },
] as const;
