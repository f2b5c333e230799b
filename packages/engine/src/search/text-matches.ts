/**
 * Full-text matching over one doc range as compact, doc-sorted lists (doc ids + scores): each query
 * word merges the posting lists of its terms (pairwise, by doc), keeping per doc the best term score;
 * words are intersected with two pointers, summing scores. Everything is sequential over arrays as
 * long as the hits, so cost follows the hits, not the catalog size (no catalog-sized scratch whose
 * random writes miss the cache).
 * @module
 */
import { normsOf } from '../catalog/full-text/norm-keys.js';
import type { CatalogIndex, PostingSegment } from '../catalog/catalog-index.js';
import { seek } from './doc-seek.js';
import { BM25_K1, type PlanTerms, type PlanWord, type SearchPlan } from './search-plan.js';

/** Docs (ascending) and their scores; the first `length` entries are used. */
export interface TextMatches {
  docs: Int32Array;
  scores: Float64Array;
  length: number;
}

// A word matched exactly outranks any BM25 difference: tiers are far above BM25 magnitudes.
const MATCH_TIER = 1000;

/**
 * Posting `i` of `segment` normalised with `averages` (the live docs' mean lengths): the norm of its key
 * (norm-keys.ts) — what {@link scorePostings} sums per doc.
 */
export function normalisedPosting(index: CatalogIndex, segment: PostingSegment, averages: readonly number[], i: number): number {
  return normsOf(index.fullText.normKeys, averages)[segment.postKey[i]];
}

/**
 * The docs of one term's postings in [lo, hi) with the term's score (tier + BM25F) per doc: those of
 * the main postings, then those of the tail (appended docs, all higher).
 */
function matchTerm(index: CatalogIndex, plan: SearchPlan, word: PlanTerms, t: number, lo: number, hi: number): TextMatches {
  const main = index.fullText;
  const tail = main.tail;
  const id = word.termIds[t];
  const mainHi = tail ? Math.min(hi, tail.fromDoc) : hi;
  const i = seek(main.postDocs, main.termOffsets[id], main.termOffsets[id + 1], lo);
  const end = mainHi > lo ? seek(main.postDocs, i, main.termOffsets[id + 1], mainHi) : i;
  let ti = 0;
  let tend = 0;
  if (tail && hi > tail.fromDoc) {
    ti = seek(tail.postDocs, tail.termOffsets[id], tail.termOffsets[id + 1], Math.max(lo, tail.fromDoc));
    tend = seek(tail.postDocs, ti, tail.termOffsets[id + 1], hi);
  }
  const out: TextMatches = { docs: new Int32Array(end - i + tend - ti), scores: new Float64Array(end - i + tend - ti), length: 0 };
  scorePostings(index, plan, word, t, main, i, end, out);
  if (tend > ti) scorePostings(index, plan, word, t, tail!, ti, tend, out);
  return out;
}

// Per plan's field weights (one array per plan, on each thread), the weighted norms of the last means.
const weightedNorms = new WeakMap<readonly number[], { norms: Float64Array; weighted: Float64Array }>();

/**
 * Per norm key, the weight of its field times its norm (with the live docs' means when appends or
 * deletes moved them, else the build's); 0 for a field of weight 0, which adds nothing. The scoring
 * loop then reads one table per entry, and sums the same products in the same order as summing
 * `weight * norm` per entry would.
 */
function weightedNormsOf(index: CatalogIndex, plan: SearchPlan): Float64Array {
  const { normKeys, avgFieldLengths } = index.fullText;
  const norms = normsOf(normKeys, plan.lengthAverages ?? avgFieldLengths);
  const weights = plan.fieldWeights;
  const cached = weightedNorms.get(weights);
  if (cached && cached.norms === norms) return cached.weighted;
  const weighted = new Float64Array(norms.length);
  for (let key = 0; key < norms.length; key++) {
    const weight = weights[normKeys.keyFields[key]];
    weighted[key] = weight > 0 ? weight * norms[key] : 0;
  }
  weightedNorms.set(weights, { norms, weighted });
  return weighted;
}

/** Appends to `out` the docs of entries `[i, end)` of `segment` (one term's) with their scores. */
function scorePostings(index: CatalogIndex, plan: SearchPlan, word: PlanTerms, t: number, segment: PostingSegment, i: number, end: number, out: TextMatches): void {
  const { postDocs, postKey } = segment;
  const weighted = weightedNormsOf(index, plan);
  const tier = word.qualities[t] * MATCH_TIER;
  const idf = word.idfs[t];
  const { docs, scores } = out;
  const deleted = index.deleted;
  let length = out.length;
  while (i < end) {
    const d = postDocs[i];
    if (deleted !== undefined && (deleted[d >>> 5] & (1 << (d & 31))) !== 0) {
      do i++; while (i < end && postDocs[i] === d);
      continue;
    }
    // The term's entries for doc d are contiguous (one per field): BM25F sums them.
    let tfw = 0;
    do tfw += weighted[postKey[i++]];
    while (i < end && postDocs[i] === d);
    if (tfw > 0) {
      docs[length] = d;
      scores[length++] = tier + (idf * tfw * (BM25_K1 + 1)) / (tfw + BM25_K1);
    }
  }
  out.length = length;
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

const EMPTY = (): TextMatches => ({ docs: new Int32Array(0), scores: new Float64Array(0), length: 0 });

/**
 * The docs of [lo, hi) having one of `terms`, each with its best term score. Each term's postings become
 * a list in one sequential pass; the lists are merged pairwise, smallest first, in rounds (every
 * step sequential; measured several times faster than a k-way heap merge).
 */
function matchTerms(index: CatalogIndex, plan: SearchPlan, terms: PlanTerms, lo: number, hi: number, extra: TextMatches[] = []): TextMatches {
  let lists: TextMatches[] = extra;
  for (let t = 0; t < terms.termIds.length; t++) lists.push(matchTerm(index, plan, terms, t, lo, hi));
  if (lists.length === 0) return EMPTY();
  lists.sort((a, b) => a.length - b.length);
  while (lists.length > 1) {
    const next: TextMatches[] = [];
    for (let i = 0; i < lists.length; i += 2) next.push(i + 1 < lists.length ? mergeBest(lists[i], lists[i + 1]) : lists[i]);
    lists = next;
  }
  return lists[0];
}

/**
 * The docs of [lo, hi) matching `word`: one of its terms, or every group of one of its phrase synonyms
 * (a phrase scores the mean of its groups' scores, so it ranks like one word).
 */
export function matchWord(index: CatalogIndex, plan: SearchPlan, word: PlanWord, lo: number, hi: number): TextMatches {
  const phraseLists = word.phrases.map((groups) => {
    const m = matchTerms(index, plan, groups[0], lo, hi);
    for (let g = 1; g < groups.length && m.length > 0; g++) intersectInto(m, matchTerms(index, plan, groups[g], lo, hi));
    for (let i = 0; i < m.length; i++) m.scores[i] /= groups.length;
    return m;
  });
  return matchTerms(index, plan, word, lo, hi, phraseLists);
}

/** Whether `doc` matches `word` (used for the dropped words of the best result). */
export function docMatchesWord(index: CatalogIndex, plan: SearchPlan, word: PlanWord, doc: number): boolean {
  return matchWord(index, plan, word, doc, doc + 1).length > 0;
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

/** A doc-sorted list with, per doc, the number of words it matched. */
interface CountedMatches extends TextMatches {
  counts: Uint8Array;
}

/** Union of two counted lists, adding scores and counts of a doc in both. */
function mergeSum(a: CountedMatches, b: CountedMatches): CountedMatches {
  const n = a.length + b.length;
  const docs = new Int32Array(n);
  const scores = new Float64Array(n);
  const counts = new Uint8Array(n);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    const da = i < a.length ? a.docs[i] : 0x7fffffff;
    const db = j < b.length ? b.docs[j] : 0x7fffffff;
    if (da < db) { docs[k] = da; scores[k] = a.scores[i]; counts[k++] = a.counts[i++]; }
    else if (da > db) { docs[k] = db; scores[k] = b.scores[j]; counts[k++] = b.counts[j++]; }
    else { docs[k] = da; scores[k] = a.scores[i] + b.scores[j]; counts[k++] = a.counts[i++] + b.counts[j++]; }
  }
  return { docs, scores, counts, length: k };
}

/**
 * The docs of [lo, hi) matching every word of the plan (or at least `plan.minWords` of them), with
 * summed scores.
 */
export function matchText(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): TextMatches {
  if (plan.minWords >= plan.words.length) {
    let matches: TextMatches | undefined;
    for (const word of plan.words) {
      const wordMatches = matchWord(index, plan, word, lo, hi);
      if (!matches) matches = wordMatches;
      else intersectInto(matches, wordMatches);
      if (matches.length === 0) break;
    }
    return matches ?? EMPTY();
  }
  // Fewer words than all: count per doc the words it matches, keep those with at least minWords.
  let lists: CountedMatches[] = plan.words.map((w) => {
    const m = matchWord(index, plan, w, lo, hi);
    return { ...m, counts: new Uint8Array(m.length).fill(1) };
  });
  lists.sort((a, b) => a.length - b.length);
  while (lists.length > 1) {
    const next: CountedMatches[] = [];
    for (let i = 0; i < lists.length; i += 2) next.push(i + 1 < lists.length ? mergeSum(lists[i], lists[i + 1]) : lists[i]);
    lists = next;
  }
  const all = lists[0] ?? { ...EMPTY(), counts: new Uint8Array(0) };
  let k = 0;
  for (let i = 0; i < all.length; i++) {
    if (all.counts[i] >= plan.minWords) { all.docs[k] = all.docs[i]; all.scores[k++] = all.scores[i]; }
  }
  return { docs: all.docs, scores: all.scores, length: k };
}
