/**
 * Generated entities (`Link` records): a taxpayer, the credential the service uses for it, and
 * optional tags. The first entities are the dataset's taxpayers; further ones are synthetic
 * companies.
 */
import { createRng, hash32, type Rng } from '../random.js';
import { buildParty, taxpayerRef } from './parties.js';
import { ENTITY_TAGS } from './tables.js';
import type { GeneratedCollection, JsonObject, JsonValue, Party, RecordContext } from './types.js';
import { DAY, isoDate, KIND, newId } from './values.js';

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
  const ts = (i: number): number => ctx.entityTime(KIND.entity, 0, i);
  const id = (i: number): string => newId(ts(i), createRng(hash32(seed, KIND.entity, i, 1)));
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
