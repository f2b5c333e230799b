/**
 * Runs a compiled plan over one range of doc ids: candidate set (text ∧ scope) as a bitset, then a
 * single pass over the candidates for facet counts, min/max and top-k. Pure apart from scratch
 * allocation; the same function runs inline (one range: the whole catalog) and in pool workers.
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { andInto, bitsetWords, fullBitset } from '../catalog/bitset.js';
import { BM25_B, BM25_K1, type PlanCondition, type PlanWord, type SearchPlan } from './search-plan.js';
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
  const { termOffsets, postDocs, postFields, postTf, fieldLengths, avgFieldLengths } = ft;
  const n = index.docCount;
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
        if (weight > 0) {
          const norm = 1 - BM25_B + (BM25_B * fieldLengths[f * n + d]) / avgFieldLengths[f];
          tfw += (weight * postTf[i]) / norm;
        }
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

/** Runs `plan` over docs [lo, hi) of `index` (lo a multiple of 32). */
export function runPartial(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): PartialResult {
  const len = Math.max(0, hi - lo);
  const facetCounts = plan.aggregationFields.map((fid) => new Uint32Array(fid >= 0 ? index.fields[fid].text!.dictSize : 0));
  const ranges = new Float64Array(plan.rangeFields.length * 2);
  for (let r = 0; r < plan.rangeFields.length; r++) { ranges[2 * r] = Infinity; ranges[2 * r + 1] = -Infinity; }
  const empty: PartialResult = { lo, total: 0, facetCounts, ranges, topDocs: new Int32Array(0), topScores: new Float64Array(0) };
  if (plan.matchNothing || len === 0) return empty;

  // 1. Text: every word must match; a doc's score is the sum over words of its best term score.
  let candidates: Uint32Array;
  let scores: Float64Array | undefined;
  if (plan.words.length > 0) {
    scores = new Float64Array(len);
    const wordScore = new Float64Array(len);
    candidates = fullBitset(len);
    for (const word of plan.words) {
      const bits = new Uint32Array(bitsetWords(len));
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
  } else candidates = fullBitset(len);

  // 2. Scope.
  for (const cond of plan.conditions) applyCondition(index, cond, lo, hi, candidates);

  // 3. One pass over the candidates: count, facets, ranges, top-k.
  const aggs = plan.aggregationFields.map((fid, i) => (fid >= 0 ? { column: index.fields[fid].text!, counts: facetCounts[i] } : undefined))
    .filter((a) => a !== undefined);
  const rangeColumns = plan.rangeFields.map((fid) => (fid >= 0 ? index.fields[fid].numeric! : undefined));
  const limit = Math.min(plan.limit, len);
  const localScores = scores;
  const scoreOf = localScores ? (doc: number) => localScores[doc - lo] : undefined;
  const ordered = plan.sort.length > 0 || scoreOf !== undefined;
  const top = ordered
    ? new TopK(limit, makeDocComparator(sortKeyArrays(index, plan.sort), plan.sort.map((k) => k.desc), scoreOf))
    : undefined;
  const firstDocs: number[] = [];
  let total = 0;
  for (let wi = 0; wi < candidates.length; wi++) {
    let word = candidates[wi];
    while (word !== 0) {
      const low = word & -word;
      const d = lo + (wi << 5) + 31 - Math.clz32(low);
      word ^= low;
      total++;
      for (const agg of aggs) {
        const { offsets, codes } = agg.column;
        for (let j = offsets[d]; j < offsets[d + 1]; j++) agg.counts[codes[j]]++;
      }
      for (let r = 0; r < rangeColumns.length; r++) {
        const column = rangeColumns[r];
        if (!column) continue;
        const v = column[d];
        if (v < ranges[2 * r]) ranges[2 * r] = v; // NaN compares false: missing values are skipped
        if (v > ranges[2 * r + 1]) ranges[2 * r + 1] = v;
      }
      if (top) top.offer(d);
      else if (firstDocs.length < limit) firstDocs.push(d); // insertion order: the first ones win
    }
  }
  const topDocs = top ? top.sorted() : Int32Array.from(firstDocs);
  const topScores = new Float64Array(topDocs.length);
  if (localScores) for (let i = 0; i < topDocs.length; i++) topScores[i] = localScores[topDocs[i] - lo];
  return { lo, total, facetCounts, ranges, topDocs, topScores };
}
