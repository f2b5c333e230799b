/**
 * Disjunctive facets (`disjunctive_facets` in the request): the aggregation of a listed field counts
 * the products that pass every condition except that field's own scope condition, so a shopper who
 * picked brand A sees sibling brands with the counts they would add.
 *
 * Counted in the same pass over the matches as the ordinary facets, never by extra searches: the
 * conditions of the listed fields are held back from the filtering step; each remaining candidate is
 * then tested against them. A candidate that passes all of them is a result (counted everywhere, as
 * usual); one that fails exactly one — a "near miss" of field f — is counted in f's aggregation only;
 * one that fails two or more is counted nowhere. Pure functions over the catalog index.
 * @module
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import type { SearchRequest } from '../types.js';
import { docPasses, docTestWithin, narrowBitset, type PlanCondition, type PlanDisjunctive } from './conditions.js';
import type { SearchPlan } from './search-plan.js';


/** The request with every `disjunctive_facets` field also in `aggregations` (a disjunctive facet is one). */
export function withDisjunctiveAggregations(request: SearchRequest): SearchRequest {
  const extra = (request.disjunctive_facets ?? []).filter((f) => !(request.aggregations ?? []).includes(f));
  return extra.length === 0 ? request : { ...request, aggregations: [...(request.aggregations ?? []), ...new Set(extra)] };
}

/**
 * Text matches of docs [lo, hi): counts the near misses into the aggregations of the one held-back condition they
 * fail (`countDoc(aggregation, doc)`; none: the caller counted them already), and keeps only the docs
 * passing every held-back condition (in place, order kept). Returns the new length.
 */
export function splitMatches(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, docs: Int32Array, scores: Float64Array, length: number,
  countDoc?: (aggregation: number, doc: number) => void,
): number {
  const held = plan.disjunctive!;
  const tests = held.map((h) => docTestWithin(index, h.condition, lo, hi, length));
  let k = 0;
  if (!countDoc) {
    for (let i = 0; i < length; i++) {
      const d = docs[i];
      let passes = true;
      for (let h = 0; h < tests.length && passes; h++) passes = tests[h](d);
      if (passes) { docs[k] = d; scores[k++] = scores[i]; }
    }
    return k;
  }
  for (let i = 0; i < length; i++) {
    const d = docs[i];
    let failed = -1;
    let failures = 0;
    for (let h = 0; h < tests.length && failures < 2; h++) if (!tests[h](d)) { failed = h; failures++; }
    if (failures === 0) { docs[k] = d; scores[k++] = scores[i]; } else if (failures === 1) for (const a of held[failed].aggregations) countDoc(a, d);
  }
  return k;
}

/**
 * Bitset candidates over [lo, hi): `countBits(aggregation, bits)` receives, per held-back condition,
 * the bitset of its near misses; the candidates are narrowed to the docs passing every one.
 */
export function splitBitset(
  index: CatalogIndex, plan: SearchPlan, lo: number, hi: number, candidates: Uint32Array,
  countBits: (aggregation: number, bits: Uint32Array) => void,
): void {
  const held = plan.disjunctive!;
  const passing = held.map((h) => {
    const bits = candidates.slice();
    narrowBitset(index, h.condition, lo, hi, bits);
    return bits;
  });
  held.forEach((h, e) => {
    if (h.aggregations.length === 0) return;
    const near = new Uint32Array(candidates.length);
    for (let w = 0; w < near.length; w++) {
      let bits = candidates[w] & ~passing[e][w];
      for (let o = 0; o < passing.length && bits !== 0; o++) if (o !== e) bits &= passing[o][w];
      near[w] = bits;
    }
    for (const a of h.aggregations) countBits(a, near);
  });
  for (const bits of passing) for (let w = 0; w < candidates.length; w++) candidates[w] &= bits[w];
}

/**
 * For a doc outside the matches (a pinned product that did not match the text): the aggregations it
 * counts in as a near miss — it passes every shared condition and fails exactly one held-back one.
 */
export function nearMissAggregations(index: CatalogIndex, plan: SearchPlan, doc: number): number[] {
  const held = plan.disjunctive;
  if (!held || held.length === 0) return [];
  for (const cond of plan.conditions) if (!docPasses(index, cond, doc)) return [];
  const failed = held.filter((h) => !docPasses(index, h.condition, doc));
  return failed.length === 1 ? failed[0].aggregations : [];
}
