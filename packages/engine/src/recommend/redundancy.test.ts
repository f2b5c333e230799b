import { describe, expect, it } from 'vitest';
import type { Scored } from './cascade.js';
import { lessRedundant } from './redundancy.js';

/** Overlap from a table of shares: shares[c][x] = share of c's orders that held x. */
function overlapFrom(shares: Record<number, Record<number, number>>) {
  return (c: number, placed: readonly number[]): number => {
    let most = 0;
    for (const [x, share] of Object.entries(shares[c] ?? {})) if (placed.includes(Number(x)) && share > most) most = share;
    return most;
  };
}

const list: Scored<number>[] = [
  { item: 1, score: 10 },
  { item: 2, score: 9 }, // nearly always bought with 1
  { item: 3, score: 8 },
  { item: 4, score: 1 },
];

describe('lessRedundant', () => {
  it('moves an item nearly always bought with a listed one below an independent one', () => {
    const out = lessRedundant(list, 3, 0.75, overlapFrom({ 2: { 1: 0.9 } }));
    expect(out.map((c) => c.item)).toEqual([1, 3, 2, 4]);
    // 2's score: 9 × (1 − 0.75 × 0.9) = 2.925; scores never increase down the list.
    expect(out[2]!.score).toBeCloseTo(2.925, 10);
    for (let i = 1; i < out.length; i++) expect(out[i]!.score).toBeLessThanOrEqual(out[i - 1]!.score);
  });

  it('keeps the order when nothing overlaps, when the penalty is 0, and for a small overlap', () => {
    const ids = list.map((c) => c.item);
    expect(lessRedundant(list, 4, 0.75, () => 0).map((c) => c.item)).toEqual(ids);
    expect(lessRedundant(list, 4, 0, overlapFrom({ 2: { 1: 1 } })).map((c) => c.item)).toEqual(ids);
    // 9 × (1 − 0.75 × 0.1) = 8.325 still beats 8.
    expect(lessRedundant(list, 4, 0.75, overlapFrom({ 2: { 1: 0.1 } })).map((c) => c.item)).toEqual(ids);
  });

  it('chooses only `places` greedily; the rest keeps its order, capped at the last placed score', () => {
    const out = lessRedundant(list, 1, 1, overlapFrom({ 2: { 1: 1 } }));
    expect(out.map((c) => c.item)).toEqual([1, 2, 3, 4]);
    expect(out.map((c) => c.score)).toEqual([10, 9, 8, 1]);
    // The first place is always the strongest candidate, whatever the overlaps.
    expect(lessRedundant(list, 2, 1, overlapFrom({ 1: { 2: 1 }, 2: { 1: 1 } }))[0]!.item).toBe(1);
  });

  it('matches an exhaustive greedy (every candidate recomputed every round) on random lists', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rand() * 30);
      const scores = Array.from({ length: n }, () => Math.ceil(rand() * 20)).sort((a, b) => b - a);
      const cands = scores.map((score, item) => ({ item, score }));
      const shares: Record<number, Record<number, number>> = {};
      for (let c = 0; c < n; c++) for (let x = 0; x < n; x++) if (c !== x && rand() < 0.3) (shares[c] ??= {})[x] = Math.round(rand() * 4) / 4;
      const places = 1 + Math.floor(rand() * 12);
      const penalty = [0.5, 0.75, 1][trial % 3]!;
      const overlap = overlapFrom(shares);
      // Reference: recompute every remaining candidate each round, ties to the earlier one.
      const placed = new Set<number>();
      const expected: number[] = [];
      for (let r = 0; r < Math.min(places, n); r++) {
        let best = -1;
        let bestValue = -Infinity;
        for (const c of cands) {
          if (placed.has(c.item)) continue;
          const v = r === 0 ? c.score : c.score * Math.max(0, 1 - penalty * overlap(c.item, [...placed]));
          if (v > bestValue) [best, bestValue] = [c.item, v];
        }
        placed.add(best);
        expected.push(best);
      }
      for (const c of cands) if (!placed.has(c.item)) expected.push(c.item);
      expect(lessRedundant(cands, places, penalty, overlap).map((c) => c.item)).toEqual(expected);
    }
  });
});
