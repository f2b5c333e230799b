/**
 * Redundancy-aware re-ranking of a co-purchase list (maximal marginal relevance, Carbonell & Goldstein
 * 1998, with co-purchase overlap as the similarity).
 *
 * A co-bought list ranked by strength alone often opens with items that are themselves nearly always
 * bought together (the same article in four colours, a set and its refill): once one of them is
 * listed, the next adds little — a shopper who wants it sees its companion already — and it takes a
 * place another need of the shopper could have had. The list is therefore built greedily: each place
 * goes to the candidate of best `score × (1 − penalty × overlap)`, where overlap is the largest share of
 * the candidate's orders that also held an item already placed (0: never bought together, 1: always).
 * A candidate that shares nothing with the items above keeps its score; the first place is always the
 * strongest candidate. See docs/recommendations.md ("Bought together: redundancy").
 * @module
 */
import type { Scored } from './cascade.js';

/**
 * Re-ranks `list` (best first: scores non-increasing, > 0) so that its first `places` entries avoid
 * redundant items. The placed entries carry their penalised scores (non-increasing); the rest follow in
 * their own order with their scores capped at the last placed one, so a later re-sort (the retailer
 * boost) keeps the order. Pure.
 *
 * Lazy greedy: a candidate's penalised score can only fall as items are placed, so the last value
 * computed for it bounds it from above, and a round recomputes only candidates whose bound still beats
 * the best value found — a few per round rather than the whole list.
 *
 * @param list candidates, best first.
 * @param places how many places are chosen greedily (the length of the list shown).
 * @param penalty weight of the overlap (0 = no change; 1 = an item always bought with a placed one scores 0).
 * @param overlap the largest share (0..1) of `candidate`'s orders that also held an item for which
 * `isPlaced` is true.
 */
export function lessRedundant(
  list: readonly Scored<number>[],
  places: number,
  penalty: number,
  overlap: (candidate: number, isPlaced: (item: number) => boolean) => number,
): Scored<number>[] {
  if (!(penalty > 0) || list.length <= 1 || places <= 0) return list.slice();
  const n = list.length;
  const placedItems = new Set<number>();
  const isPlaced = (item: number): boolean => placedItems.has(item);
  const taken = new Uint8Array(n);
  /** Upper bound of each candidate's penalised score (exact when computed in the current round). */
  const bound = Float64Array.from(list, (c) => c.score);
  const out: Scored<number>[] = [];
  let last = Infinity;
  for (let round = 0; round < Math.min(places, n); round++) {
    let best = -1;
    let bestValue = -Infinity;
    // Ties keep the list's own order: a later candidate must beat the best strictly.
    for (let i = 0; i < n; i++) {
      if (taken[i] || bound[i]! <= bestValue) continue;
      const c = list[i]!;
      const value = round === 0 ? c.score : c.score * Math.max(0, 1 - penalty * Math.min(1, overlap(c.item, isPlaced)));
      bound[i] = value;
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    taken[best] = 1;
    placedItems.add(list[best]!.item);
    last = bestValue;
    out.push({ item: list[best]!.item, score: bestValue });
  }
  for (let i = 0; i < n; i++) if (!taken[i]) out.push({ item: list[i]!.item, score: Math.min(list[i]!.score, last) });
  return out;
}
