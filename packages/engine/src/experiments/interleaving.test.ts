import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { preferredTeam, teamDraftInterleave } from './interleaving.js';
import { Random } from '../util/seeded-random.js';

/** A deterministic uniform generator for the coin. */
function seeded(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

const ranking = fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 20 });

describe('team-draft interleaving', () => {
  it('never repeats an item, keeps each ranking\'s order, and balances the teams at every prefix', () => {
    fc.assert(
      fc.property(ranking, ranking, fc.integer({ min: 0, max: 25 }), fc.integer(), (a, b, length, seed) => {
        const { items, teams } = teamDraftInterleave(a, b, length, seeded(seed));
        expect(new Set(items).size).toBe(items.length);
        expect(items.length).toBe(Math.min(length, new Set([...a, ...b]).size));
        let picks0 = 0;
        let picks1 = 0;
        for (let i = 0; i < items.length; i++) {
          const source = teams[i] === 0 ? a : b;
          // The placed item is its team's best not yet shown.
          const best = source.find((x) => !items.slice(0, i).includes(x));
          expect(items[i]).toBe(best);
          if (teams[i] === 0) picks0++;
          else picks1++;
          const other = teams[i] === 0 ? b : a;
          // Imbalance beyond one pick happens only when the other ranking ran out.
          if (Math.abs(picks0 - picks1) > 1) expect(other.every((x) => items.slice(0, i + 1).includes(x))).toBe(true);
        }
      }),
    );
  });

  it('two equal rankings interleave to that ranking', () => {
    const { items } = teamDraftInterleave(['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd'], 4, seeded(7));
    expect(items).toEqual(['a', 'b', 'c', 'd']);
  });

  it('credits clicks to the team that placed the item', () => {
    const teams = Uint8Array.from([0, 1, 1, 0]);
    expect(preferredTeam(teams, [1, 2])).toBe(1);
    expect(preferredTeam(teams, [0])).toBe(0);
    expect(preferredTeam(teams, [0, 1])).toBeNull();
    expect(preferredTeam(teams, [])).toBeNull();
    expect(preferredTeam(teams, [9])).toBeNull();
  });
});
