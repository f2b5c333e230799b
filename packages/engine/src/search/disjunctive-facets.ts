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
import type { CatalogIndex, CatalogState } from '../catalog/catalog-index.js';
import type { SearchRequest } from '../types.js';
import { docPasses } from './doc-passes.js';
import type { PlanCondition, SearchPlan } from './search-plan.js';

/** One held-back condition: its index in `plan.conditions` and the aggregations (indexes) that ignore it. */
export interface PlanDisjunctive {
  condition: number;
  aggregations: number[];
}

/** The request with every `disjunctive_facets` field also in `aggregations` (a disjunctive facet is one). */
export function withDisjunctiveAggregations(request: SearchRequest): SearchRequest {
  const extra = (request.disjunctive_facets ?? []).filter((f) => !(request.aggregations ?? []).includes(f));
  return extra.length === 0 ? request : { ...request, aggregations: [...(request.aggregations ?? []), ...new Set(extra)] };
}

/**
 * The scope fields of `disjunctive_facets` whose condition matches nothing on this catalog version
 * (only unknown values) on a text field: the plan compiler turns those into "match nothing"; they
 * must instead become held-back conditions with no value, so that the siblings are still counted.
 */
export function deadDisjunctiveFields(
  state: CatalogState, request: SearchRequest,
  compileScope: (scope: NonNullable<SearchRequest['scope']>) => { nothing: boolean },
): string[] {
  const scope = request.scope;
  if (!scope || !request.disjunctive_facets) return [];
  return [...new Set(request.disjunctive_facets)].filter((name) => {
    if (!Object.hasOwn(scope, name)) return false;
    const fid = state.fieldByName.get(name);
    return fid !== undefined && state.index.fields[fid].text !== undefined && compileScope({ [name]: scope[name] }).nothing;
  });
}

/** Resolves which of the plan's conditions are held back, and for which aggregations. */
export function planDisjunctive(state: CatalogState, request: SearchRequest, plan: SearchPlan): PlanDisjunctive[] {
  const out: PlanDisjunctive[] = [];
  for (const name of new Set(request.disjunctive_facets ?? [])) {
    const fid = state.fieldByName.get(name);
    if (fid === undefined) continue;
    const condition = plan.conditions.findIndex((c) => c.field === fid);
    if (condition < 0) continue;
    const aggregations: number[] = [];
    (request.aggregations ?? []).forEach((agg, i) => { if (agg === name) aggregations.push(i); });
    out.push({ condition, aggregations });
  }
  return out;
}

/** The plan's conditions that filter every aggregation (those not held back). */
export function sharedConditions(plan: SearchPlan): PlanCondition[] {
  const held = plan.disjunctive;
  if (!held || held.length === 0) return plan.conditions;
  const skip = new Set(held.map((d) => d.condition));
  return plan.conditions.filter((_, i) => !skip.has(i));
}

/** A per-doc test of a condition, with a marker array for long value lists. */
function docTest(index: CatalogIndex, cond: PlanCondition): (d: number) => boolean {
  if (cond.kind === 'range' || cond.codes.length <= 16) return (d) => docPasses(index, cond, d);
  const text = index.fields[cond.field].text!;
  const marker = new Uint8Array(text.dictSize);
  for (const c of cond.codes) marker[c] = 1;
  const want = cond.kind === 'in';
  const { offsets, codes, single } = text;
  return (d) => {
    let listed = false;
    if (single) listed = single[d] >= 0 && marker[single[d]] === 1;
    else for (let j = offsets[d], end = offsets[d + 1]; j < end && !listed; j++) listed = marker[codes[j]] === 1;
    return listed === want;
  };
}

/**
 * Text matches: counts the near misses into the aggregations of the one held-back condition they
 * fail (`countDoc(aggregation, doc)`), and keeps only the docs passing every held-back condition
 * (in place, order kept). Returns the new length.
 */
export function splitMatches(
  index: CatalogIndex, plan: SearchPlan, docs: Int32Array, scores: Float64Array, length: number,
  countDoc: (aggregation: number, doc: number) => void,
): number {
  const held = plan.disjunctive!;
  const tests = held.map((h) => docTest(index, plan.conditions[h.condition]));
  let k = 0;
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
 * `applyCondition` is the filters' own bitset step.
 */
export function splitBitset(
  plan: SearchPlan, candidates: Uint32Array,
  applyCondition: (cond: PlanCondition, bits: Uint32Array) => void,
  countBits: (aggregation: number, bits: Uint32Array) => void,
): void {
  const held = plan.disjunctive!;
  const passing = held.map((h) => {
    const bits = candidates.slice();
    applyCondition(plan.conditions[h.condition], bits);
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
  for (const cond of sharedConditions(plan)) if (!docPasses(index, cond, doc)) return [];
  const failed = held.filter((h) => !docPasses(index, plan.conditions[h.condition], doc));
  return failed.length === 1 ? failed[0].aggregations : [];
}
