/**
 * Taxpayers and counterparties: seeded RFCs (three letters and a date for companies, four for
 * persons, then three check characters) that never repeat within a dataset; a template may fix
 * its RFC (the examples' taxpayers).
 */
import { createRng, hash32 } from '../random.js';
import { ALNUM, COMPANY_REGIMES, LETTERS, PARTY_TEMPLATES, type PartyTemplate } from './tables.js';
import type { JsonObject, Party } from './types.js';
import { KIND, pad2 } from './values.js';

/** The check characters of an RFC, one string each (ASCII, so one code unit each). */
const ALNUM_CHARS: readonly string[] = Array.from(ALNUM);

/** The template of party `index`: a listed one, or a synthetic company beyond the list. */
function templateOf(index: number): PartyTemplate {
  const listed = PARTY_TEMPLATES[index];
  if (listed) return listed;
  const l = (k: number): string => LETTERS.charAt(k % 26);
  return {
    name: `EMPRESA ${index + 1} SA DE CV`,
    letters: `E${l(Math.floor(index / 26))}${l(index)}`,
    regimes: COMPANY_REGIMES,
  };
}

/**
 * Builds party `index` of a seed. Its RFC is redrawn until it is not in `taken`, then added to it,
 * so the parties of a dataset depend on the order they are built in.
 * @param taken RFCs already handed out (mutated)
 */
export function buildParty(seed: number, index: number, taken: Set<string>): Party {
  const rng = createRng(hash32(seed, KIND.party, index));
  const template = templateOf(index);
  const person = template.letters.length === 4;
  let year = 1960 + rng.int(62);
  let month = 1 + rng.int(12);
  let day = 1 + rng.int(28);
  let rfc: string;
  if (template.rfc !== undefined) {
    rfc = template.rfc;
    const yymmdd = rfc.slice(template.letters.length, template.letters.length + 6);
    year = Number(yymmdd.slice(0, 2)) + (yymmdd < '60' ? 2000 : 1900);
    month = Number(yymmdd.slice(2, 4));
    day = Number(yymmdd.slice(4, 6));
  } else {
    const date = `${String(year % 100).padStart(2, '0')}${pad2(month)}${pad2(day)}`;
    do {
      rfc = template.letters + date + rng.pick(ALNUM_CHARS) + rng.pick(ALNUM_CHARS) + rng.pick(ALNUM_CHARS);
    } while (taken.has(rfc));
  }
  taken.add(rfc);
  return {
    rfc,
    name: template.name,
    personType: person ? 'physical' : 'legal',
    registrationDate: `${year}-${pad2(month)}-${pad2(day)}`,
    taxRegime: rng.pick(template.regimes),
  };
}

/** The embedded `Taxpayer` object of entities and events. */
export function taxpayerRef(p: Party): JsonObject {
  return {
    '@id': `/taxpayers/${p.rfc}`,
    '@type': 'Taxpayer',
    id: p.rfc,
    personType: p.personType,
    registrationDate: p.registrationDate,
    name: p.name,
  };
}
