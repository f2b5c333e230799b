/**
 * A one-word, one-term search ranked by relevance alone, without scoring every posting (block-max
 * top-k): the term's postings are walked block by block (term-blocks.ts) and a block whose best
 * score cannot beat the worst of the best `limit` kept so far is only counted, never scored. A word
 * of several terms (stems) whose term of the highest quality outranks the others by its tier alone
 * ({@link topTierTerm}) is ranked so by that term when it has at least `limit` matches (else the
 * plain path): its docs are the page; the total counts the docs of every term of the word in a
 * bitset. Taken only when nothing needs a match's score or doc but the top-k and the total: no
 * condition, facet, range, bucket, merchandising, variant grouping, sort key other than relevance, or
 * field of weight 0 (a doc whose only entries are in such a field is no match, which a block's doc
 * count cannot tell). Every
 * other search takes the plain path (run-partial.ts, text-matches.ts). Same total, same page, same
 * scores as the plain path: a block is passed over only when none of its docs could enter the page.
 *
 * Why passing over is exact, with floating point. A block keeps the highest weighted term frequency
 * `tfw` of its docs under the search's weighted-norm table (term-blocks.ts), computed as the scoring
 * computes it, so every doc of the block has a `tfw` at most that. The score `tier + idf · tfw ·
 * (k1 + 1) / (tfw + k1)` is strictly increasing in `tfw` over the reals, but its rounded value may
 * invert two `tfw`s a few ulps apart. Hence, with `tfw_w` the worst kept match's frequency: a doc
 * whose `tfw` is below `tfw_w · (1 - g)` (`g` = {@link BELOW_MARGIN} · (tfw_w + k1)) scores below it
 * (the rounded score is within 4 ulps of the real one, the real ones far enough apart; adding the tier
 * is monotone); one whose `tfw` is in `[tfw_w · (1 - g), tfw_w]` scores at most as the worst kept one
 * when every double of that interval does, which is checked (a few dozen doubles) — and a doc scoring
 * the same loses the tie (its doc comes later). A block is passed over when its maximum is below
 * `tfw_w · (1 - g)`, or at most `tfw_w` with that check passed.
 * @module
 */
import type { CatalogIndex, FullTextIndex, PostingSegment } from '../catalog/catalog-index.js';
import { seek } from './doc-seek.js';
import { weightedNormsOf } from './text-matches.js';
import { MATCH_TIER, termScore } from './term-score.js';
import { BM25_K1, type PartialResult, type PlanTerms, type SearchPlan } from './search-plan.js';
import { popcount } from '../catalog/columns/bitset.js';
import { BLOCK_DOCS, cachedBlocks, deriveBlocks, deriveBlocksSteps, type TermBlocks } from './term-blocks.js';
import type { Steps } from '../catalog/steps.js';
import { ScoreHeap } from './top-k.js';
import { termDocBits } from './term-docs.js';

/**
 * Whether nothing of `plan` needs a match's score or doc but the page by relevance and the total (see
 * the module doc): what a ranking that passes over matches without scoring them must know.
 */
function needsOnlyPageAndTotal(index: CatalogIndex, plan: SearchPlan): boolean {
  return plan.sort.length === 1 && plan.sort[0]!.type === 'score' && plan.sort[0]!.desc && index.ordinal === undefined
    && !plan.merch && !plan.distinct && plan.conditions.length === 0 && !plan.disjunctive?.length
    && plan.aggregationFields.length === 0 && plan.hierarchyColumns.length === 0 && plan.rangeFields.length === 0 && plan.rangeBuckets.length === 0
    && plan.fieldWeights.every((weight) => weight > 0);
}

/** Whether `plan` is ranked by {@link rankOneTerm}: see the module doc for what it must not need. */
export function isOneTermRanking(index: CatalogIndex, plan: SearchPlan): boolean {
  const word = plan.words.length === 1 ? plan.words[0]! : undefined;
  return word !== undefined && topTierTerm(word) >= 0 && word.phrases.length === 0 && plan.minWords >= 1 && needsOnlyPageAndTotal(index, plan);
}

/**
 * The term of `word` that ranks the page: its only term; of several, the one of the highest quality
 * when its tier is ahead of every other term's by more than their BM25 part can make up (below
 * `idf · (k1 + 1)`, here with a factor 2 to spare for rounding): a doc having it scores its score (a
 * doc's word score is its best term's) and ranks above every doc without it, so when it has `limit`
 * matches they are the page. -1 when no term does (two of the highest quality).
 */
export function topTierTerm(word: PlanTerms): number {
  const { qualities, idfs } = word;
  let top = 0;
  for (let t = 1; t < qualities.length; t++) if (qualities[t]! > qualities[top]!) top = t;
  let next = -Infinity;
  let idf = 0;
  for (let t = 0; t < qualities.length; t++) {
    if (t === top) continue;
    if (qualities[t] === qualities[top]) return -1;
    next = Math.max(next, qualities[t]!);
    idf = Math.max(idf, idfs[t]!);
  }
  return idfs[top]! >= 0 && MATCH_TIER * (qualities[top]! - next) > 2 * idf * (BM25_K1 + 1) ? top : -1;
}

/**
 * The bitset {@link countWordDocs} counts in, kept per thread and cleared by the next count: a bit per
 * doc of the range (12.5 kB at 100k, 125 kB at 1M) was allocated, and collected, per search.
 */
let countBits = new Uint32Array(0);

/**
 * The live docs of [lo, hi) (lo a multiple of 32) having one of `word`'s terms, every one a match (no
 * field of weight 0): a bit per doc of the range, set from the terms' doc bitsets (term-docs.ts; one
 * OR a 32-doc word) or, for a term without one and for the appended docs, from its doc ids; deleted
 * docs cleared.
 */
function countWordDocs(index: CatalogIndex, word: PlanTerms, lo: number, hi: number): number {
  const words = (hi - lo + 31) >>> 5;
  if (countBits.length < words) countBits = new Uint32Array(words);
  else countBits.fill(0, 0, words);
  const bits = countBits;
  const main = index.fullText;
  const tail = main.tail;
  const mainHi = tail ? Math.min(hi, tail.fromDoc) : hi;
  for (const id of word.termIds) {
    const termBits = mainHi > lo ? termDocBits(main, id, lo, mainHi) : undefined;
    // The term's bitset has the range's words up to its last doc's.
    if (termBits !== undefined) for (let w = 0; w < termBits.length; w++) bits[w] |= termBits[w]!;
    else setDocBits(bits, lo, main, id, lo, mainHi);
    if (tail && hi > tail.fromDoc) setDocBits(bits, lo, tail, id, Math.max(lo, tail.fromDoc), hi);
  }
  const deleted = index.deleted;
  if (deleted !== undefined) {
    const first = lo >>> 5;
    for (let w = 0; w < words && first + w < deleted.length; w++) bits[w] &= ~deleted[first + w]!;
  }
  // The kept bitset may be longer than this range: its first `words` words are the count's.
  return popcount(bits, words);
}

/** Sets in `bits` (a bit per doc from `lo`) the docs of [from, to) having an entry of term `id` in `segment`. */
function setDocBits(bits: Uint32Array, lo: number, { termOffsets, postDocs }: PostingSegment, id: number, from: number, to: number): void {
  const end = termOffsets[id + 1]!;
  for (let i = seek(postDocs, termOffsets[id]!, end, from); i < end && postDocs[i]! < to; i++) {
    const local = postDocs[i]! - lo;
    bits[local >>> 5] |= 1 << (local & 31);
  }
}

/** Doubles below the worst kept frequency that {@link scoresNoHigherBelow} checks at most. */
const MAX_CHECKED_STEPS = 512;

// One double and its two 32-bit halves (little-endian: [1] holds the sign, exponent and high bits).
const stepValue = new Float64Array(1);
const stepWords = new Uint32Array(stepValue.buffer);

/**
 * Whether every double in `[below, worst)` scores at most the worst kept score: then no doc whose
 * weighted frequency is at most `worst` can score above it (see the module doc: below `below` the
 * scores are lower anyway). At most {@link MAX_CHECKED_STEPS} doubles (a few dozen for frequencies
 * of a few units); false beyond. Kept per worst frequency (it changes a few times per search).
 */
function scoresNoHigherBelow(scoring: TermScoring, worst: number, below: number): boolean {
  if (scoring.checkedTfw === worst) return scoring.checkedVerdict;
  const { tier, idf } = scoring;
  const score = scoring.heap.scores[0];
  let verdict = true;
  stepValue[0] = worst;
  for (let step = 0; ; step++) {
    // The next double down (worst > 0: a positive double's bits step down by one).
    if (stepWords[0] === 0) { stepWords[0] = 0xffffffff; stepWords[1]--; } else stepWords[0]--;
    const x = stepValue[0];
    if (x < below) break;
    if (step === MAX_CHECKED_STEPS || termScore(tier, idf, x) > score) { verdict = false; break; }
  }
  scoring.checkedTfw = worst;
  scoring.checkedVerdict = verdict;
  return verdict;
}

/** Entries below which a term's range takes the plain path: a few blocks bound little and cost their bounds. */
const MIN_BLOCKED_ENTRIES = 4 * BLOCK_DOCS;

/** The first entry of term `id`'s main postings whose doc is at least `lo`. */
function firstMainEntry(main: FullTextIndex, id: number, lo: number): number {
  return seek(main.postDocs, main.termOffsets[id]!, main.termOffsets[id + 1]!, lo);
}

/** The end of term `id`'s main entries from `i` (its {@link firstMainEntry} for `lo`) whose doc is below `hi`. */
function mainEntriesEnd(main: FullTextIndex, id: number, i: number, lo: number, hi: number): number {
  const mainHi = main.tail ? Math.min(hi, main.tail.fromDoc) : hi;
  return mainHi > lo ? seek(main.postDocs, i, main.termOffsets[id + 1]!, mainHi) : i;
}

/**
 * Derives, in steps, the blocks {@link rankOneTerm} would derive for term `id` over docs [lo, hi) under
 * `weighted` (the searches' weighted-norm table), ahead of any search of it (term-aids-ahead.ts): the
 * entries read, 0 when the term has too few there or its blocks are kept already.
 */
export function* deriveBlocksAhead(index: CatalogIndex, id: number, lo: number, hi: number, weighted: Float64Array): Steps<number> {
  const main = index.fullText;
  const i = firstMainEntry(main, id, lo);
  const end = mainEntriesEnd(main, id, i, lo, hi);
  if (end - i < MIN_BLOCKED_ENTRIES || cachedBlocks(main, i, end, weighted) !== undefined) return 0;
  yield* deriveBlocksSteps(main, i, end, index.deleted, weighted);
  return end - i;
}

/** What scoring a term's entries needs: the search's tables and the heap. */
interface TermScoring {
  index: CatalogIndex;
  weighted: Float64Array;
  tier: number;
  idf: number;
  heap: ScoreHeap;
  /** The worst kept frequency {@link scoresNoHigherBelow} last checked (NaN: none yet), and its answer. */
  checkedTfw: number;
  checkedVerdict: boolean;
}

/** Scores the entries `[i, end)` of `segment` (one term's) into the heap; returns the live docs matched. */
function scoreEntries(scoring: TermScoring, segment: PostingSegment, i: number, end: number): number {
  const { index, weighted, tier, idf, heap } = scoring;
  const { postDocs, postKey } = segment;
  const deleted = index.deleted;
  let matched = 0;
  while (i < end) {
    const d = postDocs[i];
    if (deleted !== undefined && (deleted[d >>> 5] & (1 << (d & 31))) !== 0) {
      do i++; while (i < end && postDocs[i] === d);
      continue;
    }
    let tfw = 0;
    do tfw += weighted[postKey[i++]];
    while (i < end && postDocs[i] === d);
    if (tfw > 0) {
      matched++;
      const score = termScore(tier, idf, tfw);
      if (!heap.full || score > heap.scores[0]) heap.offer(score, d, tfw);
    }
  }
  return matched;
}

/** The live docs of the entries `[i, end)` of `postDocs` (every one a match: no field of weight 0). */
function countLiveDocs(index: CatalogIndex, postDocs: Uint32Array, i: number, end: number): number {
  const deleted = index.deleted;
  let live = 0;
  while (i < end) {
    const d = postDocs[i];
    do i++; while (i < end && postDocs[i] === d);
    if (deleted === undefined || (deleted[d >>> 5] & (1 << (d & 31))) === 0) live++;
  }
  return live;
}

/**
 * `g / (tfw + k1)` of the module doc: a frequency below `tfw · (1 - g)` scores below `tfw`'s. The
 * rounded score is within 4 units of the last place (relative 4.5e-16) of the real one, so two scores
 * are in the real order when the real ones differ by more than 9e-16 relatively, which a relative gap
 * `g` in frequency gives when `g · k1 / (tfw + k1)` exceeds it: this margin is 2.2 times that.
 */
const BELOW_MARGIN = 2e-15 / BM25_K1;

/** Whether no doc of block `b` can enter the heap (full): see the module doc. */
function isHopeless(blocks: TermBlocks, b: number, scoring: TermScoring): boolean {
  const { heap } = scoring;
  if (heap.limit === 0) return true;
  // The heap of rankOneTerm keeps the frequencies.
  const worst = heap.tfws![0];
  const below = worst - worst * BELOW_MARGIN * (worst + BM25_K1);
  const best = blocks.maxTfw[b];
  return best < below || (best <= worst && scoresNoHigherBelow(scoring, worst, below));
}

/** The live docs of the blocks of `main` (from entry `from`), the hopeful ones scored into the heap. */
function rankBlocks(scoring: TermScoring, blocks: TermBlocks, main: PostingSegment, from: number): number {
  const { ends } = blocks;
  const counted = scoring.index.deleted === undefined;
  let total = 0;
  for (let b = 0; b < ends.length; b++) {
    const blockFrom = b === 0 ? from : ends[b - 1];
    if (scoring.heap.full && isHopeless(blocks, b, scoring)) {
      total += counted ? blocks.docs[b] : countLiveDocs(scoring.index, main.postDocs, blockFrom, ends[b]);
    } else total += scoreEntries(scoring, main, blockFrom, ends[b]);
  }
  return total;
}

/**
 * Runs a plan {@link isOneTermRanking} accepts over docs [lo, hi): the total and the best `plan.limit`
 * matches, as `runPartial` would return them; `empty` holds the (empty) aggregation parts. Undefined
 * (the caller takes the plain path) for a term of few entries in the range, or a word of several terms
 * whose top term has fewer than `plan.limit` matches in it. The thread's first search
 * of the term's range (under the search's weighted norms) derives its blocks while scoring every entry,
 * later ones rank with them.
 */
export function rankOneTerm(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, empty: Pick<PartialResult, 'facetCounts' | 'ranges' | 'bucketCounts'>,
): PartialResult | undefined {
  const word = plan.words[0]!;
  const main = index.fullText;
  const tail = main.tail;
  const t = topTierTerm(word);
  const id = word.termIds[t]!;
  const i = firstMainEntry(main, id, lo);
  const end = mainEntriesEnd(main, id, i, lo, hi);
  if (end - i < MIN_BLOCKED_ENTRIES) return undefined;
  const scoring: TermScoring = {
    index, weighted: weightedNormsOf(index, plan), tier: word.qualities[t]! * MATCH_TIER, idf: word.idfs[t]!, heap: ScoreHeap.reused(plan.limit, true), checkedTfw: NaN, checkedVerdict: false,
  };
  let total = 0;
  const blocks = cachedBlocks(main, i, end, scoring.weighted);
  if (blocks) total += rankBlocks(scoring, blocks, main, i);
  else {
    const { heap, tier, idf } = scoring;
    deriveBlocks(main, i, end, index.deleted, scoring.weighted, (doc, tfw) => {
      total++;
      const score = termScore(tier, idf, tfw);
      if (!heap.full || score > heap.scores[0]) heap.offer(score, doc, tfw);
    });
  }
  if (tail && hi > tail.fromDoc) {
    // Appended docs: scored entry by entry (the tail is rebuilt by every append; it keeps no blocks).
    const ti = seek(tail.postDocs, tail.termOffsets[id], tail.termOffsets[id + 1], Math.max(lo, tail.fromDoc));
    const tend = seek(tail.postDocs, ti, tail.termOffsets[id + 1], hi);
    total += scoreEntries(scoring, tail, ti, tend);
  }
  if (word.termIds.length > 1) {
    // The page is the top term's best when it has that many matches (see topTierTerm); the total, every
    // doc of the word's terms.
    if (!scoring.heap.full) return undefined;
    total = countWordDocs(index, word, lo, hi);
  }
  return { lo, total, ...empty, ...scoring.heap.drain() };
}
