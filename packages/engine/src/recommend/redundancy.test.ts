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

  it('gives what a heap of every candidate gave (the previous implementation): same entries, scores and overlap calls', () => {
    let seed = 11;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(rand() * 60);
      // Few distinct scores: many ties.
      const cands = Array.from({ length: n }, () => Math.ceil(rand() * 6)).sort((a, b) => b - a).map((score, item) => ({ item, score }));
      const shares: Record<number, Record<number, number>> = {};
      for (let c = 0; c < n; c++) for (let x = 0; x < n; x++) if (c !== x && rand() < 0.3) (shares[c] ??= {})[x] = Math.round(rand() * 4) / 4;
      const places = 1 + Math.floor(rand() * 15);
      const penalty = [0.5, 0.75, 1][trial % 3]!;
      const calls = (into: string[]) => (c: number, placed: readonly number[]): number => {
        into.push(`${c}:${placed.join(',')}`);
        return overlapFrom(shares)(c, placed);
      };
      const expectedCalls: string[] = [];
      const actualCalls: string[] = [];
      const expected = heapOfEveryCandidate(cands, places, penalty, calls(expectedCalls));
      expect(lessRedundant(cands, places, penalty, calls(actualCalls))).toEqual(expected);
      expect(actualCalls).toEqual(expectedCalls);
    }
  });
});

/** lessRedundant as it was before candidates entered the heap lazily (2026-11-29): the reference. */
function heapOfEveryCandidate(
  list: readonly Scored<number>[],
  places: number,
  penalty: number,
  overlap: (candidate: number, placed: readonly number[]) => number,
): Scored<number>[] {
  if (!(penalty > 0) || list.length <= 1 || places <= 0) return list.slice();
  const n = list.length;
  /** Upper bound of each candidate's penalised score; exact for the round in `fresh`. */
  const bound = new Float64Array(n);
  const fresh = new Int32Array(n);
  for (let i = 0; i < n; i++) bound[i] = list[i]!.score;
  // A max-heap of candidate indexes by bound, ties to the earlier index (the list's own order).
  const heap = new Int32Array(n);
  for (let i = 0; i < n; i++) heap[i] = i;
  const above = (x: number, y: number): boolean => bound[x]! > bound[y]! || (bound[x] === bound[y] && x < y);
  let size = n;
  const siftDown = (at: number): void => {
    const item = heap[at]!;
    for (;;) {
      const l = 2 * at + 1;
      if (l >= size) break;
      const c = l + 1 < size && above(heap[l + 1]!, heap[l]!) ? l + 1 : l;
      if (!above(heap[c]!, item)) break;
      heap[at] = heap[c]!;
      at = c;
    }
    heap[at] = item;
  };
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(i);
  const placed: number[] = [];
  const out: Scored<number>[] = [];
  const taken = new Uint8Array(n);
  let last = Infinity;
  for (let round = 0; round < Math.min(places, n); round++) {
    // The top's bound is exact for this round: nobody else can beat it (their values are at most
    // their bounds). Otherwise recompute it and let it sink to its place.
    for (;;) {
      const i = heap[0]!;
      if (round === 0 || fresh[i] === round) break;
      const c = list[i]!;
      bound[i] = c.score * Math.max(0, 1 - penalty * Math.min(1, overlap(c.item, placed)));
      fresh[i] = round;
      siftDown(0);
    }
    const best = heap[0]!;
    heap[0] = heap[--size]!;
    siftDown(0);
    taken[best] = 1;
    last = bound[best]!;
    placed.push(list[best]!.item);
    out.push({ item: list[best]!.item, score: last });
  }
  for (let i = 0; i < n; i++) if (!taken[i]) out.push({ item: list[i]!.item, score: Math.min(list[i]!.score, last) });
  return out;
}
