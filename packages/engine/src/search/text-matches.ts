/**
 * Full-text matching over one doc range as compact, doc-sorted lists (doc ids + scores): each query
 * word merges the posting lists of its terms (pairwise, by doc), keeping per doc the best term score;
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

/** The docs of one term's postings in [lo, hi) with the term's score (tier + BM25F) per doc. */
function matchTerm(index: CatalogIndex, plan: SearchPlan, word: PlanWord, t: number, lo: number, hi: number): TextMatches {
  const { termOffsets, postDocs, postFields, postNorm } = index.fullText;
  const weights = plan.fieldWeights;
  const id = word.termIds[t];
  const tier = word.qualities[t] * MATCH_TIER;
  const idf = word.idfs[t];
  let i = seek(postDocs, termOffsets[id], termOffsets[id + 1], lo);
  const end = seek(postDocs, i, termOffsets[id + 1], hi);
  const docs = new Int32Array(end - i);
  const scores = new Float64Array(end - i);
  let length = 0;
  while (i < end) {
    const d = postDocs[i];
    // The term's entries for doc d are contiguous (one per field): BM25F sums them.
    let tfw = 0;
    do {
      const weight = weights[postFields[i]];
      if (weight > 0) tfw += weight * postNorm[i];
      i++;
    } while (i < end && postDocs[i] === d);
    if (tfw > 0) {
      docs[length] = d;
      scores[length++] = tier + (idf * tfw * (BM25_K1 + 1)) / (tfw + BM25_K1);
    }
  }
  return { docs, scores, length };
}

/** Union of two doc-sorted lists, keeping the higher score for a doc in both. */
function mergeBest(a: TextMatches, b: TextMatches): TextMatches {
  const docs = new Int32Array(a.length + b.length);
  const scores = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const da = a.docs[i];
    const db = b.docs[j];
    if (da < db) { docs[k] = da; scores[k++] = a.scores[i++]; }
    else if (da > db) { docs[k] = db; scores[k++] = b.scores[j++]; }
    else { docs[k] = da; scores[k++] = Math.max(a.scores[i++], b.scores[j++]); }
  }
  while (i < a.length) { docs[k] = a.docs[i]; scores[k++] = a.scores[i++]; }
  while (j < b.length) { docs[k] = b.docs[j]; scores[k++] = b.scores[j++]; }
  return { docs, scores, length: k };
}

/**
 * The docs of [lo, hi) matching `word`, each with its best term score. Each term's postings become
 * a list in one sequential pass; the lists are merged pairwise, smallest first, in rounds (every
 * step sequential; measured several times faster than a k-way heap merge).
 */
export function matchWord(index: CatalogIndex, plan: SearchPlan, word: PlanWord, lo: number, hi: number): TextMatches {
  let lists: TextMatches[] = [];
  for (let t = 0; t < word.termIds.length; t++) lists.push(matchTerm(index, plan, word, t, lo, hi));
  if (lists.length === 0) return { docs: new Int32Array(0), scores: new Float64Array(0), length: 0 };
  lists.sort((a, b) => a.length - b.length);
  while (lists.length > 1) {
    const next: TextMatches[] = [];
    for (let i = 0; i < lists.length; i += 2) next.push(i + 1 < lists.length ? mergeBest(lists[i], lists[i + 1]) : lists[i]);
    lists = next;
  }
  return lists[0];
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
