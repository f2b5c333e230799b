/**
 * A search of several words ranked by relevance alone, without looking up every doc of its rarest word
 * in the other words' postings (max-score top-k): the rarest word's docs are scored (those lacking
 * another word already passed over by the doc bitsets, term-docs.ts), then taken in doc order; once
 * the best `limit` are kept, a doc whose score cannot beat the worst kept one even with the highest
 * score every other word has in any doc is counted, not looked up. Taken when nothing needs a match's
 * score or doc but the page and the total (`needsOnlyPageAndTotal`, top-of-term.ts) and every word but
 * the rarest has bitsets for all its terms: a doc of the main postings whose bits are set has each word
 * in a field of weight above 0, so it matches and is counted without its scores. Docs of the tail
 * (appended since the build, which keeps no bitsets) are always looked up. Every other search of
 * several words takes the plain path (text-matches.ts `matchEveryWord`, then the top-k).
 *
 * Why passing over is exact, with floating point. A doc's score is summed in query order,
 * `((s0 + s1) + s2) …` (each `s` the best of a word's term scores in the doc), as the plain path sums
 * it. A rounded sum is non-decreasing in each of its operands, so the same sum with every word's score
 * but the rarest's replaced by a number at least as high as any score of that word bounds the doc's
 * sum from above. That number: the term score ({@link termScore}) of the term's highest weighted
 * frequency (term-docs.ts `termMaxTfw`, computed as the scoring computes it), highest over the word's
 * terms, raised by {@link BOUND_MARGIN}: the rounded score is within a few units of the last place of
 * the real one, which increases with the frequency, so a lower frequency cannot score above it. A doc
 * whose bound is below the worst kept score scores below it; one whose bound equals it scores at most
 * as much, and loses the tie (docs come in ascending order, as the plain top-k breaks ties).
 * @module
 */
import type { CatalogIndex, PostingSegment } from '../catalog/catalog-index.js';
import { gallop } from './doc-seek.js';
import { MATCH_TIER, matchRarestWord, rarestWord, termScore, weightedNormsOf } from './text-matches.js';
import type { PartialResult, SearchPlan } from './search-plan.js';
import { needsOnlyPageAndTotal, ScoreHeap } from './top-of-term.js';
import { termMaxTfw } from './term-docs.js';

/**
 * Relative margin of a word's score bound over the term score of its highest frequency: the rounded
 * scores are within 5e-16 relatively of the real ones, so scores of lower frequencies stay below the
 * bound with room to spare for the rounding of the bound itself.
 */
const BOUND_MARGIN = 1e-14;

/** Whether `plan` may be ranked by {@link rankEveryWord} (which still declines words without bitsets). */
export function isEveryWordRanking(index: CatalogIndex, plan: SearchPlan): boolean {
  return plan.words.length > 1 && plan.minWords >= plan.words.length && plan.words.every((w) => w.phrases.length === 0) && needsOnlyPageAndTotal(index, plan);
}

/**
 * One term's entries `[from, to)` of a segment, looked up doc after doc (ascending from call to call):
 * a cursor that gallops from where the last lookup left it.
 */
class TermProbe {
  private i: number;
  constructor(private readonly segment: PostingSegment, from: number, private readonly to: number, private readonly tier: number, private readonly idf: number) {
    this.i = from;
  }

  /** The term's score in doc `d` (tier + BM25F), -Infinity when it has no entry for `d` or they weigh 0. */
  scoreAt(d: number, weighted: Float64Array): number {
    const { postDocs, postKey } = this.segment;
    const to = this.to;
    let i = this.i;
    if (i < to && postDocs[i] < d) i = gallop(postDocs, i, to, d);
    if (i >= to || postDocs[i] !== d) {
      this.i = i;
      return -Infinity;
    }
    let tfw = 0;
    do tfw += weighted[postKey[i++]];
    while (i < to && postDocs[i] === d);
    this.i = i;
    return tfw > 0 ? termScore(this.tier, this.idf, tfw) : -Infinity;
  }
}

/** A word other than the rarest: its terms' probes in the main postings and in the tail, and the bound of its score. */
interface ProbedWord {
  main: TermProbe[];
  tail: TermProbe[];
  bound: number;
}

/** The probes and bound of word `w` of `plan`; undefined when one of its terms has no bitset. */
function probedWord(index: CatalogIndex, plan: SearchPlan, weighted: Float64Array, w: number): ProbedWord | undefined {
  const word = plan.words[w]!;
  const main = index.fullText;
  const tail = main.tail;
  const probes: ProbedWord = { main: [], tail: [], bound: -Infinity };
  for (let t = 0; t < word.termIds.length; t++) {
    const id = word.termIds[t]!;
    const from = main.termOffsets[id]!;
    const to = main.termOffsets[id + 1]!;
    const maxTfw = termMaxTfw(main, from, to, weighted);
    if (maxTfw === undefined) return undefined;
    const tier = word.qualities[t]! * MATCH_TIER;
    const idf = word.idfs[t]!;
    const best = termScore(tier, idf, maxTfw);
    if (best > probes.bound) probes.bound = best;
    probes.main.push(new TermProbe(main, from, to, tier, idf));
    if (tail) probes.tail.push(new TermProbe(tail, tail.termOffsets[id]!, tail.termOffsets[id + 1]!, tier, idf));
  }
  probes.bound += Math.abs(probes.bound) * BOUND_MARGIN;
  return probes;
}

/** The best score of `probes` in doc `d` (-Infinity: none of the terms). */
function bestScoreAt(probes: readonly TermProbe[], d: number, weighted: Float64Array): number {
  let best = -Infinity;
  for (const probe of probes) {
    const score = probe.scoreAt(d, weighted);
    if (score > best) best = score;
  }
  return best;
}

/**
 * Runs a plan {@link isEveryWordRanking} accepts over docs [lo, hi): the total and the best `plan.limit`
 * matches, as `runPartial` would return them; `empty` holds the (empty) aggregation parts. Undefined
 * (the caller takes the plain path) when a word but the rarest has a term without a doc bitset.
 */
export function rankEveryWord(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, empty: Pick<PartialResult, 'facetCounts' | 'ranges' | 'bucketCounts'>,
): PartialResult | undefined {
  const { words } = plan;
  const rarest = rarestWord(index, words);
  const weighted = weightedNormsOf(index, plan);
  const others: (ProbedWord | undefined)[] = [];
  for (let w = 0; w < words.length; w++) {
    if (w === rarest) { others.push(undefined); continue; }
    const probed = probedWord(index, plan, weighted, w);
    if (!probed) return undefined;
    others.push(probed);
  }
  const { matches, filteredBy } = matchRarestWord(index, plan, rarest, lo, hi);
  // Every other word has bitsets (checked above), so every one filtered the rarest word's docs.
  if (filteredBy !== words.length - 1) throw new Error(`rankEveryWord: ${filteredBy} of ${words.length - 1} words filtered the rarest word's docs`);
  const { docs, scores, length } = matches;
  const tail = index.fullText.tail;
  const mainEnd = tail ? tail.fromDoc : Infinity;
  const heap = new ScoreHeap(plan.limit);
  let total = 0;
  for (let k = 0; k < length; k++) {
    const d = docs[k];
    if (heap.full && d < mainEnd) {
      let bound = 0;
      for (let w = 0; w < words.length; w++) {
        const s = w === rarest ? scores[k] : others[w]!.bound;
        bound = w === 0 ? s : bound + s;
      }
      // Its bits are set for every word (the filter kept it): a match, counted; it cannot enter the page.
      if (bound <= heap.scores[0]) { total++; continue; }
    }
    let sum = 0;
    let w = 0;
    for (; w < words.length; w++) {
      const s = w === rarest ? scores[k] : bestScoreAt(d < mainEnd ? others[w]!.main : others[w]!.tail, d, weighted);
      if (s === -Infinity) break;
      sum = w === 0 ? s : sum + s;
    }
    if (w < words.length) continue;
    total++;
    if (!heap.full || sum > heap.scores[0]) heap.offer(sum, d, 0);
  }
  return { lo, total, ...empty, ...heap.drain() };
}
