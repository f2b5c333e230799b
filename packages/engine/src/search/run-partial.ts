/**
 * Runs a compiled plan over one range of doc ids: candidate set (text ∧ scope) as a bitset, then a
 * single pass over the candidates for facet counts, min/max and top-k. Pure apart from scratch
 * allocation; the same function runs inline (one range: the whole catalog) and in pool workers.
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { andInto, fullBitset, popcount } from '../catalog/bitset.js';
import { BM25_K1, type PlanCondition, type PlanWord, type SearchPlan } from './search-plan.js';
import { makeDocComparator, sortKeyArrays } from './doc-order.js';
import { TopK } from './top-k.js';

/** What one range contributes; merged by `mergePartials`. */
export interface PartialResult {
  lo: number;
  total: number;
  /** Per requested aggregation: count per dictionary code (empty when the field has no text values). */
  facetCounts: Uint32Array[];
  /** Per requested range: [min, max] (Infinity/-Infinity when no candidate has a value). */
  ranges: Float64Array;
  /** The range's best `limit` docs, best first, and their relevance scores (same order). */
  topDocs: Int32Array;
  topScores: Float64Array;
}

// A word matched exactly outranks any BM25 difference: tiers are far above BM25 magnitudes.
const MATCH_TIER = 1000;

/** First index in `docs[from, to)` whose doc is >= `doc`. */
function seek(docs: Uint32Array, from: number, to: number, doc: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Matches one query word over [lo, hi): sets `bits` and keeps, per doc, the best score among the
 * word's terms (tier + BM25F) in `wordScore`.
 */
function matchWord(index: CatalogIndex, plan: SearchPlan, word: PlanWord, lo: number, hi: number, bits: Uint32Array, wordScore: Float64Array): void {
  const ft = index.fullText;
  const { termOffsets, postDocs, postFields, postNorm } = ft;
  const weights = plan.fieldWeights;
  for (let w = 0; w < word.termIds.length; w++) {
    const t = word.termIds[w];
    const tier = word.qualities[w] * MATCH_TIER;
    const idf = word.idfs[w];
    const end = termOffsets[t + 1];
    let i = seek(postDocs, termOffsets[t], end, lo);
    while (i < end) {
      const d = postDocs[i];
      if (d >= hi) break;
      // BM25F: field-weighted, length-normalised term frequency summed over the doc's fields.
      let tfw = 0;
      while (i < end && postDocs[i] === d) {
        const f = postFields[i];
        const weight = weights[f];
        if (weight > 0) tfw += weight * postNorm[i];
        i++;
      }
      if (tfw <= 0) continue;
      const local = d - lo;
      const score = tier + (idf * tfw * (BM25_K1 + 1)) / (tfw + BM25_K1);
      bits[local >>> 5] |= 1 << (local & 31);
      if (score > wordScore[local]) wordScore[local] = score;
    }
  }
}

function applyCondition(index: CatalogIndex, cond: PlanCondition, lo: number, hi: number, candidates: Uint32Array): void {
  const field = index.fields[cond.field];
  if (cond.kind === 'in' || cond.kind === 'notIn') {
    const { valueOffsets, valueDocs } = field.text!;
    const listed = new Uint32Array(candidates.length);
    for (const code of cond.codes) {
      const end = valueOffsets[code + 1];
      for (let i = seek(valueDocs, valueOffsets[code], end, lo); i < end; i++) {
        const local = valueDocs[i] - lo;
        if (valueDocs[i] >= hi) break;
        listed[local >>> 5] |= 1 << (local & 31);
      }
    }
    if (cond.kind === 'in') andInto(candidates, listed);
    else for (let i = 0; i < candidates.length; i++) candidates[i] &= ~listed[i];
    return;
  }
  // Numeric: check each remaining candidate (cheaper than a full scan once text/in filters narrowed).
  const values = field.numeric!;
  const { min, max, not, requireValue } = cond;
  for (let wi = 0; wi < candidates.length; wi++) {
    let word = candidates[wi];
    let keep = word;
    while (word !== 0) {
      const low = word & -word;
      const local = (wi << 5) + 31 - Math.clz32(low);
      word ^= low;
      const v = values[lo + local];
      let ok: boolean;
      if (v !== v) ok = !requireValue;
      else ok = v >= min && v <= max && (not.length === 0 || !not.includes(v));
      if (!ok) keep &= ~low;
    }
    candidates[wi] = keep;
  }
}

// Score scratch, reused across calls (runPartial is synchronous, so one pair per thread suffices):
// allocating two catalog-sized arrays per text query would churn the GC. Kept all-zero between calls.
let scoreScratch = new Float64Array(0);
let wordScratch = new Float64Array(0);

function scratch(len: number): { scores: Float64Array; wordScore: Float64Array } {
  if (scoreScratch.length < len) {
    scoreScratch = new Float64Array(len);
    wordScratch = new Float64Array(len);
  }
  return { scores: scoreScratch, wordScore: wordScratch };
}

/** Zeroes `target[local]` for every bit of `bits`. */
function clearBits(target: Float64Array, bits: Uint32Array): void {
  for (let wi = 0; wi < bits.length; wi++) {
    let b = bits[wi];
    while (b !== 0) {
      const low = b & -b;
      target[(wi << 5) + 31 - Math.clz32(low)] = 0;
      b ^= low;
    }
  }
}

/** Adds, per code, the candidates having it. */
function countFacets(offsets: Uint32Array, codes: Uint32Array, counts: Uint32Array, candidates: Uint32Array, lo: number): void {
  for (let wi = 0; wi < candidates.length; wi++) {
    let word = candidates[wi];
    while (word !== 0) {
      const low = word & -word;
      const d = lo + (wi << 5) + 31 - Math.clz32(low);
      word ^= low;
      for (let j = offsets[d], end = offsets[d + 1]; j < end; j++) counts[codes[j]]++;
    }
  }
}

/** Facet counts when every doc of [lo, hi) matches: posting lengths, no per-doc work. */
function countAllFacets(valueOffsets: Uint32Array, valueDocs: Uint32Array, counts: Uint32Array, lo: number, hi: number, docCount: number): void {
  const whole = lo === 0 && hi >= docCount;
  for (let c = 0; c < counts.length; c++) {
    const from = valueOffsets[c];
    const to = valueOffsets[c + 1];
    counts[c] = whole ? to - from : seek(valueDocs, from, to, hi) - seek(valueDocs, from, to, lo);
  }
}

/** Min and max of `values` over the candidates (NaN = missing, skipped), into ranges[2r], ranges[2r+1]. */
function minMax(values: Float64Array, candidates: Uint32Array, lo: number, ranges: Float64Array, r: number): void {
  let min = ranges[2 * r];
  let max = ranges[2 * r + 1];
  for (let wi = 0; wi < candidates.length; wi++) {
    let word = candidates[wi];
    while (word !== 0) {
      const low = word & -word;
      const v = values[lo + (wi << 5) + 31 - Math.clz32(low)];
      word ^= low;
      if (v < min) min = v; // NaN compares false: missing values are skipped
      if (v > max) max = v;
    }
  }
  ranges[2 * r] = min;
  ranges[2 * r + 1] = max;
}

/** Runs `plan` over docs [lo, hi) of `index` (lo a multiple of 32). */
export function runPartial(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): PartialResult {
  const len = Math.max(0, hi - lo);
  const facetCounts = plan.aggregationFields.map((fid) => new Uint32Array(fid >= 0 ? index.fields[fid].text!.dictSize : 0));
  const ranges = new Float64Array(plan.rangeFields.length * 2);
  for (let r = 0; r < plan.rangeFields.length; r++) { ranges[2 * r] = Infinity; ranges[2 * r + 1] = -Infinity; }
  if (plan.matchNothing || len === 0) return { lo, total: 0, facetCounts, ranges, topDocs: new Int32Array(0), topScores: new Float64Array(0) };
  if (plan.words.length === 0) return collect(index, plan, lo, hi, fullBitset(len), undefined, facetCounts, ranges);

  // 1. Text: every word must match; a doc's score is the sum over words of its best term score.
  const { scores, wordScore } = scratch(len);
  const candidates = fullBitset(len);
  let firstBits: Uint32Array | undefined;
  try {
    for (const word of plan.words) {
      const bits = new Uint32Array(candidates.length);
      firstBits ??= bits;
      matchWord(index, plan, word, lo, hi, bits, wordScore);
      andInto(candidates, bits);
      for (let wi = 0; wi < bits.length; wi++) {
        let b = bits[wi];
        const alive = candidates[wi];
        while (b !== 0) {
          const low = b & -b;
          const local = (wi << 5) + 31 - Math.clz32(low);
          b ^= low;
          if (alive & low) scores[local] += wordScore[local];
          wordScore[local] = 0;
        }
      }
    }
    return collect(index, plan, lo, hi, candidates, scores, facetCounts, ranges);
  } finally {
    // Only docs of the first word ever got a score: clearing those restores the all-zero scratch.
    if (firstBits) clearBits(scores, firstBits);
  }
}

/** Scope, then one pass per output over the candidates: count, facets, ranges, top-k. */
function collect(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, candidates: Uint32Array, scores: Float64Array | undefined,
  facetCounts: Uint32Array[], ranges: Float64Array,
): PartialResult {
  for (const cond of plan.conditions) applyCondition(index, cond, lo, hi, candidates);
  const everything = scores === undefined && plan.conditions.length === 0;
  const total = everything ? hi - lo : popcount(candidates);
  plan.aggregationFields.forEach((fid, i) => {
    if (fid < 0) return;
    const column = index.fields[fid].text!;
    if (everything) countAllFacets(column.valueOffsets, column.valueDocs, facetCounts[i], lo, hi, index.docCount);
    else countFacets(column.offsets, column.codes, facetCounts[i], candidates, lo);
  });
  plan.rangeFields.forEach((fid, r) => { if (fid >= 0) minMax(index.fields[fid].numeric!, candidates, lo, ranges, r); });

  const limit = Math.min(plan.limit, total);
  let topDocs: Int32Array;
  if (limit === 0) topDocs = new Int32Array(0);
  else if (plan.sort.length === 0 && !scores) {
    // Insertion order: the first `limit` candidates.
    topDocs = new Int32Array(limit);
    let n = 0;
    for (let wi = 0; wi < candidates.length && n < limit; wi++) {
      let word = candidates[wi];
      while (word !== 0 && n < limit) {
        const low = word & -word;
        topDocs[n++] = lo + (wi << 5) + 31 - Math.clz32(low);
        word ^= low;
      }
    }
  } else {
    const top = new TopK(limit, makeDocComparator(sortKeyArrays(index, plan.sort), plan.sort.map((k) => k.desc), scores, lo));
    for (let wi = 0; wi < candidates.length; wi++) {
      let word = candidates[wi];
      while (word !== 0) {
        const low = word & -word;
        top.offer(lo + (wi << 5) + 31 - Math.clz32(low));
        word ^= low;
      }
    }
    topDocs = top.sorted();
  }
  const topScores = new Float64Array(topDocs.length);
  if (scores) for (let i = 0; i < topDocs.length; i++) topScores[i] = scores[topDocs[i] - lo];
  return { lo, total, facetCounts, ranges, topDocs, topScores };
}
