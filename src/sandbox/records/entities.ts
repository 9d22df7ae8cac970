/**
 * Generated entities (`Link` records): a taxpayer, the credential the service uses for it, and
 * optional tags. The first entities are the dataset's taxpayers (entity `i`, taxpayer `i`: its
 * `/entities/{entityId}/…` collections are that taxpayer's); further ones are synthetic companies.
 */
import { createRng, hash32, type Rng } from '../random.js';
import { buildParty, taxpayerRef } from './parties.js';
import { ENTITY_TAGS } from './tables.js';
import type { GeneratedCollection, JsonObject, JsonValue, Party, RecordContext } from './types.js';
import { DAY, isoDate, KIND, newId } from './values.js';

/**
 * The first two taxpayers' entity ids, fixed whatever the seed and sizes for the docs and `get
 * --help`: UUIDv7s of 2023-03-01 older than every other generated entity, so ids still grow with the index.
 */
export const SAMPLE_ENTITY_IDS = ['01869a77-fc00-7a1e-8c3b-5d6e7f8091a2', '01869a77-ffe8-7b2f-9d4c-6e7f8091a2b3'] as const;

function uuidV7Time(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** Builds the entity of `party` with id `id`, created at `ts` (epoch ms). */
function buildEntity(party: Party, rng: Rng, id: string, ts: number): JsonObject {
  const credentialId = newId(ts - 60_000, rng);
  const tags: JsonValue[] = [];
  if (rng.next() < 0.4) {
    const tag = rng.pick(ENTITY_TAGS);
    const tagId = newId(ts + 3_600_000, rng);
    tags.push({
      '@id': `/entity-tags/${tagId}`,
      '@type': 'EntityTag',
      id: tagId,
      name: tag.name,
      color: tag.color,
      createdAt: isoDate(ts + 3_600_000),
      updatedAt: isoDate(ts + 3_600_000),
    });
  }
  return {
    '@id': `/entities/${id}`,
    '@type': 'Link',
    id,
    type: party.personType === 'legal' ? 'company' : 'person',
    taxpayer: taxpayerRef(party),
    credential: {
      '@id': `/credentials/${credentialId}`,
      '@type': 'Credential',
      id: credentialId,
      type: rng.pick(['ciec', 'ciec', 'efirma']),
      rfc: party.rfc,
      status: rng.pick(['valid', 'valid', 'valid', 'invalid', 'pending']),
      createdAt: isoDate(ts - 60_000),
      updatedAt: isoDate(ts - 55_000),
    },
    tags,
    createdAt: isoDate(ts),
    updatedAt: isoDate(ts + rng.int(30 * DAY)),
  };
}

/**
 * The generated entities (uncached: `createDataset` builds them once). Synthetic entity parties
 * are built here, at once, so RFC uniqueness does not depend on the order items are read in.
 */
export function createEntityCollection(ctx: RecordContext): GeneratedCollection {
  const { seed, taxpayers, partyCount, taken } = ctx;
  const count = Math.max(0, Math.floor(ctx.sizes.entities));
  const entityParty = (i: number): Party => (i < taxpayers.length ? taxpayers[i]! : buildParty(seed, partyCount + i, taken));
  const entityParties = Array.from({ length: count }, (_, i) => entityParty(i));
  const sample = (i: number): string | undefined => (i < taxpayers.length ? SAMPLE_ENTITY_IDS[i] : undefined);
  const ts = (i: number): number => {
    const fixed = sample(i);
    return fixed === undefined ? ctx.entityTime(KIND.entity, 0, i) : uuidV7Time(fixed);
  };
  const id = (i: number): string => sample(i) ?? newId(ts(i), createRng(hash32(seed, KIND.entity, i, 1)));
  return {
    count,
    context: '/contexts/Link',
    id,
    timestamp: ts,
    item: (i) => buildEntity(entityParties[i]!, createRng(hash32(seed, KIND.entity, i, 2)), id(i), ts(i)),
    make: (newIdValue, tsMs, serial) =>
      buildEntity(buildParty(seed, 100_000 + serial, taken), createRng(hash32(seed, KIND.inserted, 0, serial, 6)), newIdValue, tsMs),
    filters: [],
    dateFilters: ['createdAt', 'updatedAt'],
  };
}
