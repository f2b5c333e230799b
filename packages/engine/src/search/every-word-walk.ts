/**
 * A query of two words of one term each matched in one walk of the rarer term's postings (text-matches.ts,
 * `matchEveryWord`, takes it then: 536 of the 849 two-word queries of the peers' 2,000-query workload
 * at 100k). Per doc of the rarer term, the other term is looked up at once (its doc bitset read first
 * when it has one, term-docs.ts; then its cursor stepped or galloped to the doc), and the doc is
 * scored only when both terms have it. Matching the rarer word as a list first scored and wrote every
 * one of its docs, then looked the list up and narrowed it: a median two-word query at 100k keeps a
 * third of its rarer word's docs or fewer, so most of that scoring and writing was for docs dropped
 * afterwards.
 *
 * Same docs and scores as the list: a doc matches when both terms have entries there that weigh more
 * than 0, and its score is the sum of the two term scores in query order.
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

/** Whether {@link walkTwoTerms} matches `words`: two words of one term each. */
export function isTwoTermWalk(words: readonly PlanTerms[]): boolean {
  return words.length === 2 && words[0]!.termIds.length === 1 && words[1]!.termIds.length === 1;
}

/**
 * Appends to `out` the docs of [lo, hi) having both `words` ({@link isTwoTermWalk}), walking the
 * postings of `words[rarer]`, with their scores summed in query order: the main postings, then the
 * tail's (appended docs, all higher).
 */
export function walkTwoTerms(
  index: CatalogIndex, weighted: Float64Array, words: readonly PlanTerms[], rarer: number, lo: number, hi: number, out: WalkOutput,
): void {
  const main = index.fullText;
  const tail = main.tail;
  const mainHi = tail ? Math.min(hi, tail.fromDoc) : hi;
  const other = words[1 - rarer]!;
  if (mainHi > lo) walkSegment(index, weighted, words[rarer]!, other, rarer === 0, main, lo, mainHi, termDocBits(main, other.termIds[0]!, lo, mainHi), out);
  if (tail && hi > tail.fromDoc) walkSegment(index, weighted, words[rarer]!, other, rarer === 0, tail, Math.max(lo, tail.fromDoc), hi, undefined, out);
}

/**
 * {@link walkTwoTerms} over the docs [lo, hi) of one segment; `bits`, the other term's doc bitset
 * over the range (doc `d`'s bit in word `(d >>> 5) - (lo >>> 5)`): a doc whose bit is not set is passed
 * over without a step through the other term's entries. `rarerFirst`: the rarer word comes first in the query.
 */
function walkSegment(
  index: CatalogIndex, weighted: Float64Array, rarer: PlanTerms, other: PlanTerms, rarerFirst: boolean, segment: PostingSegment, lo: number, hi: number,
  bits: Uint32Array | undefined, out: WalkOutput,
): void {
  const { termOffsets, postDocs, postKey } = segment;
  const rarerId = rarer.termIds[0]!;
  let i = seek(postDocs, termOffsets[rarerId]!, termOffsets[rarerId + 1]!, lo);
  const end = seek(postDocs, i, termOffsets[rarerId + 1]!, hi);
  if (i === end) return;
  const otherId = other.termIds[0]!;
  const otherEnd = termOffsets[otherId + 1]!;
  let c = seek(postDocs, termOffsets[otherId]!, otherEnd, lo);
  if (c === otherEnd) return;
  // Not many more entries than the rarer term's: the next doc sought is a few entries on, stepped to.
  const dense = 4 * (end - i) >= otherEnd - c;
  const rarerTier = rarer.qualities[0]! * MATCH_TIER;
  const rarerIdf = rarer.idfs[0]!;
  const otherTier = other.qualities[0]! * MATCH_TIER;
  const otherIdf = other.idfs[0]!;
  const firstWord = lo >>> 5;
  const deleted = index.deleted;
  const { docs, scores } = out;
  let k = out.at + out.length;
  while (i < end) {
    const d = postDocs[i]!;
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
