/**
 * Redundancy-aware re-ranking of a list ranked from purchases — co-bought items, popular items —
 * (maximal marginal relevance, Carbonell & Goldstein 1998, with co-purchase overlap as the similarity).
 *
 * A co-bought list ranked by strength alone often opens with items that are themselves nearly always
 * bought together (the same article in four colours, a set and its refill): once one of them is
 * listed, the next adds little — a shopper who wants it sees its companion already — and it takes a
 * place another need of the shopper could have had. The list is therefore built greedily: each place
 * goes to the candidate of best `score × (1 − penalty × overlap)`, where overlap is the largest share of
 * the candidate's orders that also held an item already placed (0: never bought together, 1: always).
 * A candidate that shares nothing with the items above keeps its score; the first place is always the
 * strongest candidate. The same holds for a week's best sellers (two colours of one article).
 * See docs/recommendations.md (Models, "Redundancy").
 * @module
 */
import type { Scored } from './cascade.js';

/**
 * Re-ranks `list` (best first: scores non-increasing, > 0) so that its first `places` entries avoid
 * redundant items. The placed entries carry their penalised scores (non-increasing); the rest follow in
 * their own order with their scores capped at the last placed one, so a later re-sort (the retailer
 * boost) keeps the order. Pure.
 *
 * Lazy greedy ("CELF"): a candidate's penalised score can only fall as items are placed, so the last
 * value computed for it bounds it from above; the candidates sit in a max-heap by that bound, and a
 * round recomputes only the top until the top's value is current — a few per round rather than the
 * whole list.
 *
 * @param list candidates, best first.
 * @param places how many places are chosen greedily (the length of the list shown).
 * @param penalty weight of the overlap (0 = no change; 1 = an item always bought with a placed one scores 0).
 * @param overlap the largest share (0..1) of `candidate`'s orders that also held one of the `placed`
 * items (the items placed so far, in order; the array only grows during one call).
 */
export function lessRedundant(
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
