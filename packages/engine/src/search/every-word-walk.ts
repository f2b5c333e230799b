/**
 * A query of two words matched by walking the postings of the rarer word's terms, one term pair at a
 * time (text-matches.ts, `matchEveryWord`, takes it when the words have at most
 * {@link MAX_WALKED_PAIRS} pairs of terms: 783 of the 849 two-word queries of the peers' 2,000-query
 * workload at 100k, 536 of them of one term each). Per doc of the rarer word's term, the other word's
 * term is looked up at once (its doc bitset read first when it has one, term-docs.ts; then its cursor
 * stepped or galloped to the doc), and the doc is scored only when both terms have it. Matching the
 * rarer word as a list first scored and wrote every one of its docs, then looked the list up and
 * narrowed it: a median two-word query at 100k keeps a third of its rarer word's docs or fewer, so
 * most of that scoring and writing was for docs dropped afterwards.
 *
 * Same docs and scores as the lists: a doc matches a term when its entries there weigh more than 0, a
 * word when it matches one of its terms, with the best of their scores. A pair's walk gives each doc
 * having both terms the sum of their scores in query order, and the pairs' lists are merged keeping
 * each doc's best sum: a rounded sum is non-decreasing in each operand, so the best of the rounded
 * sums `fl(a_i + b_j)` is `fl(max a_i + max b_j)`, the sum of the words' best term scores.
 * @module
 */
import type { CatalogIndex, PostingSegment } from '../catalog/catalog-index.js';
import { gallop, seek } from './doc-seek.js';
import { termDocBits } from './term-docs.js';
import { MATCH_TIER, termScore } from './term-score.js';
import type { PlanTerms } from './search-plan.js';

/** Where the walk writes its matches: entries `[at + length, …)` of `docs` and `scores`, room for every doc of the rarer term. */
export interface WalkOutput {
  docs: Int32Array;
  scores: Float64Array;
  at: number;
  length: number;
}

/**
 * Term pairs a query of two words is walked by at most (one walk per term of the rarer word and term of
 * the other, {@link walkTermPair}); beyond, it is matched as lists. Each term of the other word walks
 * the rarer word's postings again: at four pairs (two terms each, or one and four) the walks cost
 * ×1.08–1.3 of the lists (warm, 100k, decision 0066).
 */
export const MAX_WALKED_PAIRS = 3;

/** One term of a plan word: the word and the term's index in it. */
export interface WordTerm {
  word: PlanTerms;
  t: number;
}

/**
 * Appends to `out` the docs of [lo, hi) having both terms, walking the postings of `rarer`, with the
 * sum of the two term scores (`rarerFirst`: the rarer term's word comes first in the query, its score
 * is added first): the main postings, then the tail's (appended docs, all higher).
 */
export function walkTermPair(
  index: CatalogIndex, weighted: Float64Array, rarer: WordTerm, other: WordTerm, rarerFirst: boolean, lo: number, hi: number, out: WalkOutput,
): void {
  const main = index.fullText;
  const tail = main.tail;
  const mainHi = tail ? Math.min(hi, tail.fromDoc) : hi;
  const otherId = other.word.termIds[other.t]!;
  if (mainHi > lo) {
    const bits = termDocBits(main, otherId, lo, mainHi);
    const rarerBits = bits && termDocBits(main, rarer.word.termIds[rarer.t]!, lo, mainHi);
    walkSegment(index, weighted, rarer, other, rarerFirst, main, lo, mainHi, bits, rarerBits, out);
  }
  if (tail && hi > tail.fromDoc) walkSegment(index, weighted, rarer, other, rarerFirst, tail, Math.max(lo, tail.fromDoc), hi, undefined, undefined, out);
}

/**
 * {@link walkTermPair} over the docs [lo, hi) of one segment; `bits` and `rarerBits`, the other and
 * the rarer term's doc bitsets over the range (doc `d`'s bit in word `(d >>> 5) - (lo >>> 5)`;
 * undefined: none). With the other term's, a doc whose bit is not set is passed over without a step
 * through its entries. With both, the rarer term's entries are not walked either: the docs having
 * both are the bits of the two bitsets ANDed, 32 docs a step (a word of 8,000 docs and one of 28,000
 * at 100k have 2,239 together), and each is galloped to in both terms' entries.
 */
function walkSegment(
  index: CatalogIndex, weighted: Float64Array, rarer: WordTerm, other: WordTerm, rarerFirst: boolean, segment: PostingSegment, lo: number, hi: number,
  bits: Uint32Array | undefined, rarerBits: Uint32Array | undefined, out: WalkOutput,
): void {
  const { termOffsets, postDocs, postKey } = segment;
  const rarerId = rarer.word.termIds[rarer.t]!;
  let i = seek(postDocs, termOffsets[rarerId]!, termOffsets[rarerId + 1]!, lo);
  const end = seek(postDocs, i, termOffsets[rarerId + 1]!, hi);
  if (i === end) return;
  const otherId = other.word.termIds[other.t]!;
  const otherEnd = termOffsets[otherId + 1]!;
  let c = seek(postDocs, termOffsets[otherId]!, otherEnd, lo);
  if (c === otherEnd) return;
  // Not many more entries than the rarer term's: the next doc sought is a few entries on, stepped to.
  const dense = 4 * (end - i) >= otherEnd - c;
  const rarerTier = rarer.word.qualities[rarer.t]! * MATCH_TIER;
  const rarerIdf = rarer.word.idfs[rarer.t]!;
  const otherTier = other.word.qualities[other.t]! * MATCH_TIER;
  const otherIdf = other.word.idfs[other.t]!;
  const firstWord = lo >>> 5;
  const deleted = index.deleted;
  const { docs, scores } = out;
  let k = out.at + out.length;
  // Both bitsets: the common words and, in the word `w` reached, the docs `common` not yet visited.
  const both = bits !== undefined && rarerBits !== undefined ? Math.min(bits.length, rarerBits.length) : 0;
  let w = -1;
  let common = 0;
  for (;;) {
    let d: number;
    if (both > 0) {
      while (common === 0 && ++w < both) {
        common = rarerBits![w]! & bits![w]!;
        if (deleted !== undefined && firstWord + w < deleted.length) common &= ~deleted[firstWord + w]!;
      }
      if (common === 0) break;
      const low = common & -common;
      common ^= low;
      d = ((firstWord + w) << 5) + 31 - Math.clz32(low);
      // Both terms have an entry for d (their bitsets say so): galloped to.
      if (postDocs[i]! < d) i = gallop(postDocs, i, end, d);
      if (postDocs[c]! < d) c = gallop(postDocs, c, otherEnd, d);
    } else {
      if (i === end) break;
      d = postDocs[i]!;
      let skip = deleted !== undefined && (deleted[d >>> 5]! & (1 << (d & 31))) !== 0;
      if (!skip && bits !== undefined) {
        const word = (d >>> 5) - firstWord;
        skip = word >= bits.length || (bits[word]! & (1 << (d & 31))) === 0;
      }
      if (!skip && postDocs[c]! < d) {
        if (dense) do c++; while (c < otherEnd && postDocs[c]! < d);
        else c = gallop(postDocs, c, otherEnd, d);
        if (c === otherEnd) break;
      }
      if (skip || postDocs[c] !== d) {
        do i++; while (i < end && postDocs[i] === d);
        continue;
      }
    }
    let tfw = 0;
    do tfw += weighted[postKey[i++]!]!;
    while (i < end && postDocs[i] === d);
    let otherTfw = 0;
    do otherTfw += weighted[postKey[c++]!]!;
    while (c < otherEnd && postDocs[c] === d);
    if (tfw > 0 && otherTfw > 0) {
      const rarerScore = termScore(rarerTier, rarerIdf, tfw);
      const otherScore = termScore(otherTier, otherIdf, otherTfw);
      docs[k] = d;
      scores[k++] = rarerFirst ? rarerScore + otherScore : otherScore + rarerScore;
    }
    if (c === otherEnd) break;
  }
  out.length = k - out.at;
}
