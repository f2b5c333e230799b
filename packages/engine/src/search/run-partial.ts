/**
 * Runs a compiled plan over one range of doc ids and returns that range's contribution: total,
 * facet counts, min/max and top-k. Two candidate representations, chosen by the plan:
 * - no query text (browse): a bitset over the range, narrowed by scope postings and checks;
 * - query text: the compact doc-sorted list of text matches with their scores (see text-matches.ts),
 *   narrowed by per-doc scope checks.
 * Pure apart from allocation; the same function runs inline (one range: the whole catalog) and in
 * pool workers.
 * @module
 */
import type { CatalogIndex, TextColumn } from '../catalog/catalog-index.js';
import { fullBitset, popcount } from '../catalog/columns/bitset.js';
import { codeAt, codeCount } from '../catalog/columns/text-column.js';
import type { PartialResult, SearchPlan } from './search-plan.js';
import { docTestWithin, narrowBitset, type PlanCondition } from './conditions.js';
import { countHierarchyDocs, isHierarchyColumn } from '../catalog/columns/hierarchy-column.js';
import { makeDocComparator, sortKeyArrays } from './doc-order.js';
import { matchText, type TextMatches } from './text-matches.js';
import { seek } from './doc-seek.js';
import { gatherFloat64, gatherInt32 } from '../util/gather.js';
import { TopK, topByScore } from './top-k.js';
import { isOneTermRanking, rankOneTerm } from './top-of-term.js';
import { numericValues, type NumericValues } from '../catalog/columns/numeric-column.js';
import { addDocToColumnCounts, boostMatches, boostScoresOfRange, hideFromBitset, hideFromMatches, pinsMatched } from './merchandising.js';
import { splitBitset, splitMatches } from './disjunctive-facets.js';
import { addDocToBuckets, countBucketsOfBitset, countBucketsOfDocs, emptyBucketCounts } from './range-buckets.js';
import { countGroupFacets, groupReader, selectGroups } from './distinct.js';

// Declared with the plan it is the result of (merchandising reads it without importing this module).
export type { PartialResult } from './search-plan.js';

/**
 * The text column each aggregation of the plan counts, by aggregation index: the aggregated fields'
 * (undefined: a field without text values), then the hierarchies' node columns.
 */
export function countColumns(index: CatalogIndex, plan: SearchPlan): (TextColumn | undefined)[] {
  return [...plan.aggregationFields.map((fid) => (fid >= 0 ? index.fields[fid].text! : undefined)), ...plan.hierarchyColumns];
}

/** Runs `plan` over docs [lo, hi) of `index` (lo a multiple of 32). */
export function runPartial(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): PartialResult {
  const len = Math.max(0, hi - lo);
  const facetCounts = countColumns(index, plan).map((column) => new Uint32Array(column ? column.dictSize : 0));
  const ranges = new Float64Array(plan.rangeFields.length * 2);
  for (let r = 0; r < plan.rangeFields.length; r++) { ranges[2 * r] = Infinity; ranges[2 * r + 1] = -Infinity; }
  const bucketCounts = emptyBucketCounts(plan.rangeBuckets);
  if (plan.matchNothing || len === 0) return { lo, total: 0, facetCounts, ranges, bucketCounts, topDocs: new Int32Array(0), topScores: new Float64Array(0) };
  const ranked = plan.words.length > 0 && isOneTermRanking(index, plan) ? rankOneTerm(index, plan, lo, hi, { facetCounts, ranges, bucketCounts }) : undefined;
  if (ranked) return ranked;
  if (plan.words.length > 0) return collectMatches(index, plan, lo, hi, matchText(index, plan, lo, hi), facetCounts, ranges, bucketCounts);
  return collectBitset(index, plan, lo, hi, facetCounts, ranges, bucketCounts);
}

// ---- Browse: candidates as a bitset over [lo, hi) -------------------------------------------

/** Facet counts when every doc of [lo, hi) matches: posting lengths, no per-doc work. */
function countAllFacets(column: TextColumn, counts: Uint32Array, lo: number, hi: number, docCount: number): void {
  const whole = lo === 0 && hi >= docCount;
  const { valueOffsets, valueDocs, valueTail } = column;
  for (let c = 0; c < counts.length; c++) {
    const from = valueOffsets[c];
    const to = valueOffsets[c + 1];
    counts[c] = whole ? to - from : seek(valueDocs, from, to, hi) - seek(valueDocs, from, to, lo);
  }
  if (!valueTail) return;
  // Docs appended to codes that had some: counted from the tail (its codes are few).
  for (let i = 0; i < valueTail.codes.length; i++) {
    const from = valueTail.offsets[i];
    const to = valueTail.offsets[i + 1];
    counts[valueTail.codes[i]] += whole ? to - from : seek(valueTail.docs, from, to, hi) - seek(valueTail.docs, from, to, lo);
  }
}

function countFacetsOfBitset(column: TextColumn, counts: Uint32Array, candidates: Uint32Array, lo: number): void {
  if (isHierarchyColumn(column)) {
    const docs = bitsetDocs(candidates, lo);
    countHierarchyDocs(column, docs.length, (k) => docs[k]!, counts);
    return;
  }
  const { single, offsets, codes } = column;
  if (single) {
    for (let wi = 0; wi < candidates.length; wi++) {
      let word = candidates[wi];
      while (word !== 0) {
        const low = word & -word;
        const code = single[lo + (wi << 5) + 31 - Math.clz32(low)];
        word ^= low;
        if (code >= 0) counts[code]++;
      }
    }
    return;
  }
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

function minMaxOfBitset({ byCode, codes }: NumericValues, candidates: Uint32Array, lo: number, ranges: Float64Array, r: number): void {
  let min = ranges[2 * r];
  let max = ranges[2 * r + 1];
  for (let wi = 0; wi < candidates.length; wi++) {
    let word = candidates[wi];
    while (word !== 0) {
      const low = word & -word;
      const v = byCode[codes[lo + (wi << 5) + 31 - Math.clz32(low)] + 1];
      word ^= low;
      if (v < min) min = v; // NaN compares false: missing values are skipped
      if (v > max) max = v;
    }
  }
  ranges[2 * r] = min;
  ranges[2 * r + 1] = max;
}

function hasBit(candidates: Uint32Array, lo: number, hi: number, d: number): boolean {
  if (d < lo || d >= hi) return false;
  const local = d - lo;
  return (candidates[local >>> 5] & (1 << (local & 31))) !== 0;
}

/**
 * Min and max over the candidates by walking the field's numeric order from both ends: the first
 * candidate met is the answer. Expected steps: catalog size / candidates; gives up (undefined) after
 * `budget` steps, and the caller scans instead.
 */
function walkMinMax({ byCode, codes }: NumericValues, order: Uint32Array, candidates: Uint32Array, lo: number, hi: number, budget: number): [number, number] | undefined {
  let min = Infinity;
  let steps = 0;
  for (let i = 0; i < order.length; i++) {
    if (++steps > budget) return undefined;
    if (hasBit(candidates, lo, hi, order[i])) { min = byCode[codes[order[i]] + 1]; break; }
  }
  if (min === Infinity) return steps > budget ? undefined : [Infinity, -Infinity];
  let max = -Infinity;
  for (let i = order.length - 1; i >= 0; i--) {
    if (++steps > budget) return undefined;
    if (hasBit(candidates, lo, hi, order[i])) { max = byCode[codes[order[i]] + 1]; break; }
  }
  return [min, max];
}

/**
 * Top-k when the first sort key is a number: walk the field's order from the wanted end, collecting
 * candidates until `limit` are found and the value changes (ties at the boundary are all kept), then
 * let the full comparator order them. Candidates without a value come last (both orders): they are
 * added only when the walk found fewer than `limit`. Undefined when the walk exceeds `budget` steps.
 */
function walkTopK(
  { byCode, codes }: NumericValues, order: Uint32Array, desc: boolean, candidates: Uint32Array, lo: number, hi: number, limit: number,
  budget: number, before: (a: number, b: number) => number,
): Int32Array | undefined {
  const top = new TopK(limit, before);
  let found = 0;
  let boundary = NaN;
  let steps = 0;
  for (let k = 0; k < order.length; k++) {
    if (++steps > budget) return undefined;
    const d = order[desc ? order.length - 1 - k : k];
    if (!hasBit(candidates, lo, hi, d)) continue;
    const v = byCode[codes[d] + 1];
    if (found >= limit && v !== boundary) break;
    top.offer(d);
    if (++found === limit) boundary = v;
  }
  if (found < limit) {
    // Every candidate with a value is in; those without one follow.
    for (let wi = 0; wi < candidates.length; wi++) {
      let word = candidates[wi];
      while (word !== 0) {
        const low = word & -word;
        const d = lo + (wi << 5) + 31 - Math.clz32(low);
        word ^= low;
        if (byCode[codes[d] + 1] !== byCode[codes[d] + 1]) top.offer(d);
      }
    }
  }
  return top.sorted();
}

/** The tombstoned docs of [lo, hi), ascending (see catalog/changes/tombstones.ts). */
function deletedInRange(index: CatalogIndex, lo: number, hi: number): Uint32Array {
  const all = index.deletedDocs;
  if (!all) return new Uint32Array(0);
  return all.subarray(seek(all, 0, all.length, lo), seek(all, 0, all.length, hi));
}

/** Takes the docs of `gone` (ascending, within [lo, hi)) out of the candidate bitset. */
function clearDocs(candidates: Uint32Array, gone: Uint32Array, lo: number): void {
  for (const d of gone) {
    const local = d - lo;
    candidates[local >>> 5] &= ~(1 << (local & 31));
  }
}

/** Facet counts of every doc of [lo, hi) but the tombstoned `gone`: posting lengths minus their codes. */
function countLiveFacets(column: TextColumn, counts: Uint32Array, lo: number, hi: number, docCount: number, gone: Uint32Array): void {
  countAllFacets(column, counts, lo, hi, docCount);
  for (const d of gone) for (let j = 0, k = codeCount(column, d); j < k; j++) counts[codeAt(column, d, j)]--;
}

function collectBitset(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, facetCounts: Uint32Array[], ranges: Float64Array, bucketCounts: Uint32Array[],
): PartialResult {
  const candidates = fullBitset(hi - lo);
  const gone = deletedInRange(index, lo, hi);
  clearDocs(candidates, gone, lo);
  for (const cond of plan.conditions) narrowBitset(index, cond, lo, hi, candidates);
  const merch = plan.merch;
  if (merch) hideFromBitset(merch, lo, hi, candidates);
  const columns = countColumns(index, plan);
  let pinsSeen: number[] | undefined;
  // Facets per group: counted after the pass, from the results and each count column's near misses.
  const nearMisses = plan.distinct?.groupFacets ? columns.map((): number[] => []) : undefined;
  const unhidden = !merch?.hidden.some((d) => d >= lo && d < hi);
  // One held back condition and nothing else filtering: its counts (results and near misses together)
  // are every live doc of the range's, read from the posting lengths (a category page's menu). Not when
  // counting per group: those counts are made after the pass.
  const wholeRange = !nearMisses && plan.conditions.length === 0 && plan.disjunctive?.length === 1 && unhidden
    ? new Set(plan.disjunctive[0]!.aggregations) : undefined;
  if (plan.disjunctive && plan.disjunctive.length > 0) {
    if (merch) pinsSeen = pinsMatched(merch, lo, hi, (d) => hasBit(candidates, lo, hi, d));
    splitBitset(index, plan, lo, hi, candidates, (a, bits) => {
      if (nearMisses) { forEachBit(bits, lo, (d) => { nearMisses[a].push(d); }); return; }
      plan.rangeBuckets.forEach((b, i) => { if (b.nearMissAggregation === a) countBucketsOfBitset(index, b, bits, lo, bucketCounts[i]); });
      const column = columns[a];
      if (column && !wholeRange?.has(a)) countFacetsOfBitset(column, facetCounts[a], bits, lo);
    });
  }
  const everything = plan.conditions.length === 0 && !plan.disjunctive?.length && unhidden;
  const total = everything ? hi - lo - gone.length : popcount(candidates);
  if (!nearMisses) columns.forEach((column, i) => {
    if (!column) return;
    if (everything || wholeRange?.has(i)) countLiveFacets(column, facetCounts[i], lo, hi, index.docCount, gone);
    else countFacetsOfBitset(column, facetCounts[i], candidates, lo);
  });
  // Walking a numeric order pays when candidates are dense enough that the ends are reached soon
  // (catalog / candidates steps) — cheaper than visiting every candidate (random reads of the column).
  const n = index.docCount;
  plan.rangeFields.forEach((fid, r) => {
    if (fid < 0) return;
    const field = index.fields[fid];
    const values = numericValues(field);
    const walked = field.order && total * total > n ? walkMinMax(values, field.order, candidates, lo, hi, (8 * n) / Math.max(1, total) + 256) : undefined;
    if (walked) { ranges[2 * r] = walked[0]; ranges[2 * r + 1] = walked[1]; }
    else minMaxOfBitset(values, candidates, lo, ranges, r);
  });
  if (!nearMisses) plan.rangeBuckets.forEach((b, i) => countBucketsOfBitset(index, b, candidates, lo, bucketCounts[i]));

  const limit = Math.min(plan.limit, total);
  // Boosts give browsing a relevance (1 × the weights of the boosts a doc's scope passes).
  const scores = merch && merch.boosts.length > 0
    ? boostScoresOfRange(index, merch, lo, hi)
    : undefined;
  let topDocs: Int32Array;
  let groups: PartialResult['groups'];
  let groupPairs: PartialResult['groupPairs'];
  if (plan.distinct) {
    const before = makeDocComparator(sortKeyArrays(index, plan.sort), plan.sort.map((k) => k.desc), scores, lo, undefined, index.ordinal);
    // Group while ranking: only each group's best candidate competes for the page (see distinct.ts).
    const { groupOf, groups: groupCount } = groupReader(index, plan.distinct);
    const hits = new Int32Array(total);
    let k = 0;
    forEachBit(candidates, lo, (d) => { hits[k++] = d; });
    ({ top: topDocs, groups } = selectGroups(hits, k, false, groupOf, groupCount, plan.limit, before, groupOptions(index, plan, lo, hi)));
    if (nearMisses) groupPairs = countGroupFacets(index, plan, columns, lo, hi, hits, k, nearMisses, facetCounts, bucketCounts);
  } else if (limit === 0) topDocs = new Int32Array(0);
  else if (plan.sort.length === 0 && !scores && !index.ordinal) {
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
    const before = makeDocComparator(sortKeyArrays(index, plan.sort), plan.sort.map((k) => k.desc), scores, lo, undefined, index.ordinal);
    const first = plan.sort[0];
    const field = first && index.fields[first.field];
    let walked: Int32Array | undefined;
    if (first && first.type === 'number' && field.order && total * total > limit * n) {
      walked = walkTopK(numericValues(field), field.order, first.desc, candidates, lo, hi, limit, (8 * (limit + 1) * n) / Math.max(1, total) + 1024, before);
    }
    if (walked) topDocs = walked;
    else {
      const top = new TopK(limit, before);
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
  }
  return {
    lo, total, facetCounts, ranges, bucketCounts, topDocs,
    topScores: scores ? gatherFloat64(scores, topDocs, lo) : new Float64Array(topDocs.length),
    pinsMatched: merch && pinsMatched(merch, lo, hi, (d) => hasBit(candidates, lo, hi, d)),
    pinsSeen,
    ...(groups && { groups }),
    ...(groupPairs && { groupPairs }),
  };
}

/** How a range's groups are reported: with their codes when the catalog is split over ranges; the pinned products' group counts. */
function groupOptions(index: CatalogIndex, plan: SearchPlan, lo: number, hi: number): { split: boolean; countsOf?: number[] } {
  return { split: !(lo === 0 && hi >= index.docCount), countsOf: plan.merch?.pins.map((p) => p.doc) };
}

/** Calls `visit` with each doc of a bitset over [lo, …), ascending. */
function forEachBit(bits: Uint32Array, lo: number, visit: (doc: number) => void): void {
  for (let wi = 0; wi < bits.length; wi++) {
    let word = bits[wi];
    while (word !== 0) {
      const low = word & -word;
      visit(lo + (wi << 5) + 31 - Math.clz32(low));
      word ^= low;
    }
  }
}

// ---- Text: candidates as a compact doc-sorted list with scores ------------------------------

/** Keeps the matches that satisfy `cond`, in place (order kept). */
function narrowMatches(index: CatalogIndex, cond: PlanCondition, m: TextMatches, lo: number, hi: number): void {
  const passes = docTestWithin(index, cond, lo, hi, m.length);
  const { docs, scores } = m;
  let k = 0;
  for (let i = 0; i < m.length; i++) if (passes(docs[i])) { docs[k] = docs[i]; scores[k++] = scores[i]; }
  m.length = k;
}

function collectMatches(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, m: TextMatches, facetCounts: Uint32Array[], ranges: Float64Array, bucketCounts: Uint32Array[],
): PartialResult {
  for (const cond of plan.conditions) narrowMatches(index, cond, m, lo, hi);
  const merch = plan.merch;
  if (merch) m.length = hideFromMatches(merch, m.docs, m.scores, m.length);
  const columns = countColumns(index, plan);
  let pinsSeen: number[] | undefined;
  const nearMisses = plan.distinct?.groupFacets ? columns.map((): number[] => []) : undefined;
  // One held back condition: its counts (results and near misses together) are over every match, so
  // they are counted before the split in one tight loop, and the split only filters (not when counting
  // per group: those counts are made after the pass).
  const allMatches = !nearMisses && plan.disjunctive?.length === 1 ? new Set(plan.disjunctive[0]!.aggregations) : undefined;
  if (allMatches) {
    for (const a of allMatches) if (columns[a]) countColumnOfDocs(columns[a]!, m.docs, m.length, facetCounts[a]!);
    plan.rangeBuckets.forEach((b, i) => { if (b.nearMissAggregation !== undefined && allMatches.has(b.nearMissAggregation)) countBucketsOfDocs(index, b, m.docs, m.length, bucketCounts[i]!); });
  }
  if (plan.disjunctive && plan.disjunctive.length > 0) {
    if (merch) pinsSeen = pinsMatched(merch, lo, hi, (d) => isListedDoc(m.docs, m.length, d));
    m.length = splitMatches(index, plan, lo, hi, m.docs, m.scores, m.length, allMatches ? undefined : (a, d) => {
      if (nearMisses) { nearMisses[a].push(d); return; }
      plan.rangeBuckets.forEach((b, i) => { if (b.nearMissAggregation === a) addDocToBuckets(index, b, d, bucketCounts[i]); });
      const column = columns[a];
      if (column) addDocToColumnCounts(column, d, facetCounts[a]);
    });
  }
  if (merch) boostMatches(index, merch, m.docs, m.scores, m.length);
  const { docs, scores, length: total } = m;
  if (!nearMisses) columns.forEach((column, i) => {
    if (column && !allMatches?.has(i)) countColumnOfDocs(column, docs, total, facetCounts[i]!);
  });
  // Many hits: min/max by walking numeric orders against a bitset of the hits (as when browsing).
  let hitBits: Uint32Array | undefined;
  plan.rangeFields.forEach((fid, r) => {
    if (fid < 0) return;
    const values = numericValues(index.fields[fid]);
    const order = index.fields[fid].order;
    if (order && total * total > index.docCount) {
      if (!hitBits) {
        hitBits = new Uint32Array((hi - lo + 31) >>> 5);
        for (let k = 0; k < total; k++) { const local = docs[k] - lo; hitBits[local >>> 5] |= 1 << (local & 31); }
      }
      const walked = walkMinMax(values, order, hitBits, lo, hi, (8 * index.docCount) / Math.max(1, total) + 256);
      if (walked) { ranges[2 * r] = walked[0]; ranges[2 * r + 1] = walked[1]; return; }
    }
    const { byCode, codes } = values;
    let min = ranges[2 * r];
    let max = ranges[2 * r + 1];
    for (let k = 0; k < total; k++) {
      const v = byCode[codes[docs[k]] + 1];
      if (v < min) min = v;
      if (v > max) max = v;
    }
    ranges[2 * r] = min;
    ranges[2 * r + 1] = max;
  });
  if (!nearMisses) plan.rangeBuckets.forEach((b, i) => {
    if (b.nearMissAggregation === undefined || !allMatches?.has(b.nearMissAggregation)) countBucketsOfDocs(index, b, docs, total, bucketCounts[i]!);
  });
  // Items of the top-k are positions in the match list (docs[k], scores[k]).
  const before = makeDocComparator(sortKeyArrays(index, plan.sort), plan.sort.map((k) => k.desc), scores, 0, docs, index.ordinal);
  let page: Pick<PartialResult, 'topDocs' | 'topScores'>;
  let groups: PartialResult['groups'];
  if (plan.distinct) {
    const { groupOf, groups: groupCount } = groupReader(index, plan.distinct);
    let positions: Int32Array;
    ({ top: positions, groups } = selectGroups(docs, total, true, groupOf, groupCount, plan.limit, before, groupOptions(index, plan, lo, hi)));
    page = pageAt(docs, scores, positions);
  } else if (plan.sort.length === 1 && plan.sort[0]!.type === 'score' && plan.sort[0]!.desc && index.ordinal === undefined
    && !plan.merch?.boosts.length) {
    // Relevance only, products in doc order, scores as matched (no boost multiplied them): score, then
    // doc, compared inline.
    page = topByScore(docs, scores, total, Math.min(plan.limit, total));
  } else {
    const top = new TopK(Math.min(plan.limit, total), before);
    if (plan.sort[0]?.type === 'score' && plan.sort[0].desc) {
      // Relevance first: a match scoring below the worst kept one comes after it whatever the later
      // keys say, so it is passed over without the comparator (most matches of a common word). With
      // relevance the only key and products in doc order, a tie goes to the lower doc, one met before:
      // a match scoring the same as the worst kept one is passed over too.
      const tiesLose = plan.sort.length === 1 && index.ordinal === undefined;
      let bar = -Infinity;
      for (let k = 0; k < total; k++) {
        const score = scores[k];
        if (score < bar || (tiesLose && score === bar)) continue;
        top.offer(k);
        const worst = top.worst();
        if (worst >= 0) bar = scores[worst];
      }
    } else for (let k = 0; k < total; k++) top.offer(k);
    page = pageAt(docs, scores, top.sorted());
  }
  const groupPairs = nearMisses && countGroupFacets(index, plan, columns, lo, hi, docs, total, nearMisses, facetCounts, bucketCounts);
  return {
    ...(groups && { groups }),
    ...(groupPairs && { groupPairs }),
    lo, total, facetCounts, ranges, bucketCounts,
    topDocs: page.topDocs,
    topScores: page.topScores,
    pinsMatched: merch && pinsMatched(merch, lo, hi, (d) => isListedDoc(docs, total, d)),
    pinsSeen,
  };
}

/** The docs and scores of a match list at `positions`. */
function pageAt(docs: Int32Array, scores: Float64Array, positions: Int32Array): Pick<PartialResult, 'topDocs' | 'topScores'> {
  return { topDocs: gatherInt32(docs, positions), topScores: gatherFloat64(scores, positions) };
}

/** Adds the codes of `docs[0, length)` in `column` to the counts per code. */
function countColumnOfDocs(column: TextColumn, docs: Int32Array, length: number, counts: Uint32Array): void {
  if (isHierarchyColumn(column)) {
    countHierarchyDocs(column, length, (k) => docs[k]!, counts);
    return;
  }
  const { offsets, codes, single } = column;
  if (single) {
    for (let k = 0; k < length; k++) {
      const code = single[docs[k]];
      if (code >= 0) counts[code]++;
    }
  } else for (let k = 0; k < length; k++) for (let j = offsets[docs[k]], end = offsets[docs[k] + 1]; j < end; j++) counts[codes[j]]++;
}

/** The docs of a bitset over [lo, lo + 32·bits.length), ascending. */
function bitsetDocs(bits: Uint32Array, lo: number): Int32Array {
  const docs = new Int32Array(popcount(bits));
  let n = 0;
  for (let wi = 0; wi < bits.length; wi++) {
    let word = bits[wi];
    while (word !== 0) {
      const low = word & -word;
      docs[n++] = lo + (wi << 5) + 31 - Math.clz32(low);
      word ^= low;
    }
  }
  return docs;
}

/** Whether `doc` is among the ascending `docs[0, length)`. */
function isListedDoc(docs: Int32Array, length: number, doc: number): boolean {
  const k = seek(docs, 0, length, doc);
  return k < length && docs[k] === doc;
}

