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
 * whole list. Candidates enter the heap only when they could be the top (the list is best first, so
 * the first one not entered bounds all the others not entered): a list of hundreds with ten places
 * heaps a few more than ten, and the rest keep their own objects when their scores stand (measured in
 * packages/bench/src/micro/less-redundant.ts). The heap, its ties and the order of the `overlap` calls
 * are those of a heap of every candidate: the result is the same.
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
  const rounds = Math.min(places, n);
  /** Upper bound of each entered candidate's penalised score; exact for the round in `fresh` (-1: never computed). */
  const bound: number[] = [];
  const fresh: number[] = [];
  // A max-heap of entered candidate indexes by bound, ties to the earlier index (the list's own order).
  const heap: number[] = [];
  const above = (x: number, y: number): boolean => bound[x]! > bound[y]! || (bound[x] === bound[y] && x < y);
  const siftDown = (at: number): void => {
    const size = heap.length;
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
  const siftUp = (at: number): void => {
    const item = heap[at]!;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!above(item, heap[parent]!)) break;
      heap[at] = heap[parent]!;
      at = parent;
    }
    heap[at] = item;
  };
  /** The first candidate not entered: its bound is its score, the highest of those not entered. */
  let next = 0;
  /** Enters candidates while the first one not entered would be above the top (it is then the top). */
  const enter = (): void => {
    while (next < n) {
      bound[next] = list[next]!.score;
      fresh[next] = -1;
      if (heap.length > 0 && !above(next, heap[0]!)) return;
      heap.push(next++);
      siftUp(heap.length - 1);
    }
  };
  const placed: number[] = [];
  const out: Scored<number>[] = [];
  const taken = new Set<number>();
  let last = Infinity;
  for (let round = 0; round < rounds; round++) {
    // The top's bound is exact for this round: nobody else can beat it (their values are at most
    // their bounds). Otherwise recompute it and let it sink to its place.
    for (;;) {
      enter();
      const i = heap[0]!;
      if (round === 0 || fresh[i] === round) break;
      const c = list[i]!;
      bound[i] = c.score * Math.max(0, 1 - penalty * Math.min(1, overlap(c.item, placed)));
      fresh[i] = round;
      siftDown(0);
    }
    const best = heap[0]!;
    const end = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = end;
      siftDown(0);
    }
    taken.add(best);
    last = bound[best]!;
    placed.push(list[best]!.item);
    out.push({ item: list[best]!.item, score: last });
  }
  for (let i = 0; i < n; i++) {
    if (taken.has(i)) continue;
    const c = list[i]!;
    out.push(c.score <= last ? c : { item: c.item, score: last });
  }
  return out;
}
