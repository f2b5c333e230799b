/**
 * Full-text matching over one doc range as compact, doc-sorted lists (doc ids + scores): each query
 * word merges the posting lists of its terms (k-way, by doc), keeping per doc the best term score;
 * words are intersected with two pointers, summing scores. Everything is sequential over arrays as
 * long as the hits, so cost follows the hits, not the catalog size (no catalog-sized scratch whose
 * random writes miss the cache).
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { BM25_K1, type PlanWord, type SearchPlan } from './search-plan.js';

/** Docs (ascending) and their scores; the first `length` entries are used. */
export interface TextMatches {
  docs: Int32Array;
  scores: Float64Array;
  length: number;
}

// A word matched exactly outranks any BM25 difference: tiers are far above BM25 magnitudes.
const MATCH_TIER = 1000;

/** First index in `docs[from, to)` whose doc is >= `doc`. */
export function seek(docs: Uint32Array, from: number, to: number, doc: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The docs of [lo, hi) matching `word`, each with its best term score (tier + BM25F). */
export function matchWord(index: CatalogIndex, plan: SearchPlan, word: PlanWord, lo: number, hi: number): TextMatches {
  const { termOffsets, postDocs, postFields, postNorm } = index.fullText;
  const weights = plan.fieldWeights;
  const terms = word.termIds.length;
  const pos = new Int32Array(terms);
  const end = new Int32Array(terms);
  let capacity = 0;
  for (let t = 0; t < terms; t++) {
    const id = word.termIds[t];
    pos[t] = seek(postDocs, termOffsets[id], termOffsets[id + 1], lo);
    end[t] = seek(postDocs, pos[t], termOffsets[id + 1], hi);
    capacity += end[t] - pos[t];
  }
  const docs = new Int32Array(capacity);
  const scores = new Float64Array(capacity);
  let length = 0;
  // Min-heap of terms by the doc at their cursor.
  const heap = new Int32Array(terms);
  let size = 0;
  const docAt = (t: number): number => postDocs[pos[t]];
  const siftDown = (i: number): void => {
    const t = heap[i];
    const d = docAt(t);
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      const c = r < size && docAt(heap[r]) < docAt(heap[l]) ? r : l;
      if (docAt(heap[c]) >= d) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = t;
  };
  for (let t = 0; t < terms; t++) if (pos[t] < end[t]) heap[size++] = t;
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);
  while (size > 0) {
    const d = docAt(heap[0]);
    let best = -1;
    while (size > 0 && docAt(heap[0]) === d) {
      const t = heap[0];
      // The term's entries for doc d are contiguous (one per field): BM25F sums them.
      let tfw = 0;
      let i = pos[t];
      const e = end[t];
      while (i < e && postDocs[i] === d) {
        const weight = weights[postFields[i]];
        if (weight > 0) tfw += weight * postNorm[i];
        i++;
      }
      pos[t] = i;
      if (tfw > 0) {
        const score = word.qualities[t] * MATCH_TIER + (word.idfs[t] * tfw * (BM25_K1 + 1)) / (tfw + BM25_K1);
        if (score > best) best = score;
      }
      if (i < e) siftDown(0);
      else {
        heap[0] = heap[--size];
        if (size > 0) siftDown(0);
      }
    }
    if (best >= 0) {
      docs[length] = d;
      scores[length++] = best;
    }
  }
  return { docs, scores, length };
}

/** Keeps in `into` the docs also in `other`, adding their scores (both lists ascending). */
export function intersectInto(into: TextMatches, other: TextMatches): void {
  let i = 0;
  let j = 0;
  let k = 0;
  const { docs, scores } = into;
  while (i < into.length && j < other.length) {
    const a = docs[i];
    const b = other.docs[j];
    if (a < b) i++;
    else if (a > b) j++;
    else {
      docs[k] = a;
      scores[k++] = scores[i++] + other.scores[j++];
    }
  }
  into.length = k;
}

/** The docs of [lo, hi) matching every word of the plan, with summed scores. */
export function matchText(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): TextMatches {
  let matches: TextMatches | undefined;
  for (const word of plan.words) {
    const wordMatches = matchWord(index, plan, word, lo, hi);
    if (!matches) matches = wordMatches;
    else intersectInto(matches, wordMatches);
    if (matches.length === 0) break;
  }
  return matches ?? { docs: new Int32Array(0), scores: new Float64Array(0), length: 0 };
}
