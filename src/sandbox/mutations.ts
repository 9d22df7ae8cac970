/**
 * Automatic mutations: items inserted at the front of a collection, and deleted at seeded random
 * positions, after every n-th request to it, so clients are tested against a collection that
 * changes while they page through it.
 */
import type { Clock } from '../time/clock.js';
import type { CollectionState } from './collection.js';
import { hash32 } from './random.js';
import type { CollectionRegistry } from './registry.js';
import { matchRoute } from './routes.js';
import type { AutoMutation } from './types.js';

/**
 * Inserts `count` new items at the front of a collection, stamped with the clock's time.
 * @returns their ids, newest last
 */
export function insertItems(state: CollectionState, count: number, clock: Clock): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(state.insert(clock.now()));
  return ids;
}

/** Dependencies of {@link createAutoMutator}. */
export interface AutoMutatorOptions {
  mutations: readonly AutoMutation[];
  registry: CollectionRegistry;
  clock: Clock;
  /** The sandbox seed (seeds the positions deleted). */
  seed: number;
}

/**
 * Creates the mutator: a function called with the path of every answered request except 429s
 * that counts the requests to each mutated collection and mutates it on every `every`-th.
 * @throws {Error} on the first call, when a mutation's path is not a sandbox collection
 */
export function createAutoMutator(options: AutoMutatorOptions): (pathname: string) => void {
  const { registry, clock, seed } = options;
  const mutations = options.mutations.map((m) => ({ ...m, key: '', hits: 0, rounds: 0 }));
  return (pathname) => {
    for (const m of mutations) {
      if (m.key === '') m.key = registry.resolvePath(m.path).key;
      const route = matchRoute(pathname);
      const s = route && registry.resolve(route);
      if (!s || s.key !== m.key) continue;
      m.hits++;
      if (m.hits % Math.max(1, m.every) !== 0) continue;
      m.rounds++;
      insertItems(s, m.insert ?? 1, clock);
      for (let k = 0; k < (m.remove ?? 0); k++) {
        const view = s.view();
        if (view.length === 0) break;
        s.remove(view.id(hash32(seed, m.rounds, k, 4242) % view.length));
      }
    }
  };
}
