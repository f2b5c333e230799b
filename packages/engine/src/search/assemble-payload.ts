/**
 * Merges the partial results of one or more doc ranges and turns them into the documented payload:
 * total, the page, facet buckets, ranges, suggestions and redirects. Runs on the calling thread.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import type { Dictionary } from '../catalog/columns/dictionary.js';
import { keyOrder, type KeyOrder } from '../catalog/columns/text-column-lookups.js';
import { tokenize } from '../catalog/full-text/tokenizer.js';
import type { WebsiteSettings } from '../config.js';
import type { FacetBucket, NumericRange, RangeBucket, ScopeConditions, SearchPayload, SearchRequest } from '../types.js';
import { makeDocComparator, sortKeyArrays } from './doc-order.js';
import { PROXIMITY_WINDOW, type PartialResult, type PlanExtras, type SearchPlan } from './search-plan.js';
import { proximityBonuses } from './proximity.js';
import { DEFAULT_SEARCH_SIZE } from './validate-search-request.js';
import { gatherFloat64, gatherInt32 } from '../util/gather.js';
import { addDocToColumnCounts, addDocToRange, pinsInResults, placePins } from './merchandising.js';
import { countColumns } from './run-partial.js';
import { facetHits } from './facet-search.js';
import { hierarchyPayload, refinedPaths } from './hierarchical-facets.js';
import { hierarchyOf } from '../catalog/columns/hierarchy-column.js';
import { resolveRelevance } from './relevance-settings.js';
import { addDocToBuckets, bucketsPayload, mergedBucketCounts } from './range-buckets.js';
import { addGroupPairs, groupReader, mergeGroups, mergeRepresentatives, type GroupOf, type MergedGroups } from './distinct.js';

/**
 * Most buckets one aggregation returns: the largest ones (count descending, then key). A facet on a
 * field with a value per product (`refId`, a SKU) would otherwise answer a million buckets — tens of
 * megabytes to build, serialise and send for one request; no storefront shows more than a few hundred.
 */
export const MAX_FACET_BUCKETS = 10_000;

/**
 * Facet buckets from per-code counts: count descending, then key ascending (JS string order), at most
 * `limit`. Sorts one number per bucket natively — `(maxCount - count) * dictSize + keyRank` — instead
 * of calling a comparator that compares strings (measured ~8 ms → well under 1 ms for 4 600 buckets).
 */
export function facetBuckets(counts: Uint32Array, dictionary: Pick<Dictionary, 'at'>, order: KeyOrder, limit = MAX_FACET_BUCKETS): FacetBucket[] {
  const size = counts.length;
  let max = 0;
  let nonZero = 0;
  for (let c = 0; c < size; c++) if (counts[c] > 0) { nonZero++; if (counts[c] > max) max = counts[c]; }
  if (nonZero === 0) return [];
  const kept = Math.min(nonZero, limit);
  const buckets: FacetBucket[] = new Array(kept);
  if ((max + 1) * size < 2 ** 52) {
    const keys = new Float64Array(nonZero);
    let k = 0;
    for (let c = 0; c < size; c++) if (counts[c] > 0) keys[k++] = (max - counts[c]) * size + order.rankOfCode[c];
    keys.sort();
    for (let i = 0; i < kept; i++) {
      const code = order.codeOfRank[keys[i] % size];
      buckets[i] = { key: dictionary.at(code), doc_count: counts[code] };
    }
    return buckets;
  }
  const codes: number[] = [];
  for (let c = 0; c < size; c++) if (counts[c] > 0) codes.push(c);
  codes.sort((a, b) => counts[b] - counts[a] || order.rankOfCode[a] - order.rankOfCode[b]);
  return codes.slice(0, kept).map((c) => ({ key: dictionary.at(c), doc_count: counts[c] }));
}

// Facet buckets over the whole catalog (q = "" without scope: category landing pages) are the same for
// every such request on a version: kept per version and field, handed out as copies of the list.
const wholeCatalogBuckets = new WeakMap<CatalogState, Map<number, readonly FacetBucket[]>>();

function cachedWholeCatalogBuckets(state: CatalogState, fid: number, compute: () => FacetBucket[]): FacetBucket[] {
  let perField = wholeCatalogBuckets.get(state);
  if (!perField) wholeCatalogBuckets.set(state, (perField = new Map()));
  let buckets = perField.get(fid);
  if (!buckets) {
    // The buckets are frozen; the array is not (a frozen array's slice takes a slow path).
    buckets = compute().map((b) => Object.freeze(b));
    perField.set(fid, buckets);
  }
  return buckets.slice();
}

/** The normalised form of a query for redirect rules: its words joined by single spaces. */
export function normaliseQuery(q: string): string {
  return tokenize(q).join(' ');
}

/**
 * The first redirect rule whose normalised query equals the normalised `q`. A search without words
 * (category browsing, `q` ""; punctuation alone) is never redirected: a rule's query without a word
 * (`"!!!"`, `"™"`) normalises to "" too, and redirected every category page (settings refuse one now).
 */
export function redirectFor(q: string, settings: WebsiteSettings | undefined): string | undefined {
  if (settings?.redirects === undefined || settings.redirects.length === 0) return undefined;
  const normal = normaliseQuery(q);
  if (normal === '') return undefined;
  for (const rule of settings?.redirects ?? []) if (rule.queries.some((r) => normaliseQuery(r) === normal)) return rule.url;
  return undefined;
}

/**
 * The best `plan.limit` docs of the union of the ranges, in result order: the top-k of the union is the
 * top-k of the ranges' top-k lists under the same comparator; then, for a query of several words, the
 * best {@link PROXIMITY_WINDOW} are re-ranked with their word-proximity bonus added to their score (the
 * same comparator again, so sort keys still come first). Inline and pooled runs hand in the same
 * lists, so they rank alike.
 */
export function rankedDocs(state: CatalogState, plan: SearchPlan, extras: PlanExtras, partials: readonly PartialResult[]): Int32Array {
  const { index } = state;
  const keys = sortKeyArrays(index, plan.sort);
  const desc = plan.sort.map((k) => k.desc);
  let docs: Int32Array;
  let scores: Float64Array;
  if (partials.length === 1) {
    docs = partials[0].topDocs;
    scores = partials[0].topScores;
  } else {
    let count = 0;
    for (const p of partials) count += p.topDocs.length;
    const allDocs = new Int32Array(count);
    const allScores = new Float64Array(count);
    let at = 0;
    for (const p of partials) { allDocs.set(p.topDocs, at); allScores.set(p.topScores, at); at += p.topDocs.length; }
    // Scores order the docs when there are query words, or boost rules that multiply them.
    const scored = plan.words.length > 0 || (plan.merch?.boosts.length ?? 0) > 0;
    const before = makeDocComparator(keys, desc, scored ? allScores : undefined, 0, allDocs, state.index.ordinal);
    let positions = Array.from({ length: count }, (_, i) => i).sort(before);
    if (plan.distinct) {
      // Each range sent one representative per group: the best of a group's across ranges stays.
      const { groupOf } = groupReader(index, plan.distinct);
      const kept = new Set(mergeRepresentatives(gatherInt32(allDocs, positions), groupOf, plan.limit));
      positions = positions.filter((i) => kept.delete(allDocs[i]));
    }
    positions = positions.slice(0, plan.limit);
    docs = gatherInt32(allDocs, positions);
    scores = gatherFloat64(allScores, positions);
  }
  if (extras.termWords === undefined || docs.length < 2) return docs;
  const window = Math.min(docs.length, PROXIMITY_WINDOW);
  const head = docs.slice(0, window);
  const bonus = proximityBonuses(state, head, plan.fieldWeights, extras.termWords, plan.words.length);
  const boosted = new Float64Array(window);
  for (let i = 0; i < window; i++) boosted[i] = scores[i] + bonus[i];
  const before = makeDocComparator(keys, desc, boosted, 0, head, state.index.ordinal);
  const order: number[] = [];
  for (let i = 0; i < window; i++) order.push(i);
  order.sort(before);
  const out = docs.slice();
  for (let i = 0; i < window; i++) out[i] = head[order[i]];
  return out;
}

/** A distinct result's `_variants`: its group's matching products (a product without a group: 1). */
function variantsOf(grouped: { groupOf: GroupOf; merged: MergedGroups }, doc: number): number {
  const g = grouped.groupOf(doc);
  return g < 0 ? 1 : Math.max(1, grouped.merged.countOf(g));
}

/** Merges range results into the payload (`forcedScope`: a search key's, see hierarchical-facets.ts). */
export function assemblePayload(
  state: CatalogState, plan: SearchPlan, extras: PlanExtras, partials: readonly PartialResult[],
  request: SearchRequest, settings: WebsiteSettings | undefined, forcedScope?: ScopeConditions,
): SearchPayload {
  const { index } = state;
  let total = 0;
  for (const p of partials) total += p.total;
  // Pinned products: those among the matches, and those that pass the filters without matching the
  // text (they join the totals, facets and ranges: the list, the counts and the facets agree).
  const pins = plan.merch ? pinsInResults(index, plan, partials) : { placed: [], extra: [], nearMiss: [] };
  let docs = extras.ranked ?? rankedDocs(state, plan, extras, partials);
  const size = request.size ?? DEFAULT_SEARCH_SIZE;
  let grouped: { groupOf: GroupOf; merged: MergedGroups; joined: Set<number> } | undefined;
  if (plan.distinct) {
    // Totals count groups; a pinned product joining the results joins its group (or is a new one),
    // and a placed pin represents its group: the group's ranked representative gives way to it.
    const { groupOf } = groupReader(index, plan.distinct);
    const merged = mergeGroups(partials.map((p) => p.groups), partials.map((p) => p.topDocs), groupOf, (plan.merch?.pins ?? []).map((p) => p.doc));
    total = merged.total;
    const joined = new Set<number>();
    for (const doc of pins.extra) {
      const g = groupOf(doc);
      if (g < 0 || merged.countOf(g) === 0) { total++; joined.add(doc); }
      if (g >= 0) merged.add(g);
    }
    const pinnedGroups = new Map<number, number>();
    for (const pin of pins.placed) { const g = groupOf(pin.doc); if (g >= 0 && !pinnedGroups.has(g)) pinnedGroups.set(g, pin.doc); }
    if (pinnedGroups.size > 0) docs = docs.filter((d) => { const g = groupOf(d); return g < 0 || (pinnedGroups.get(g) ?? d) === d; });
    grouped = { groupOf, merged, joined };
  } else total += pins.extra.length;
  if (plan.merch) docs = placePins(docs, pins.placed, request.start + size);
  const page = docs.subarray(request.start, request.start + size);
  // The page's products read together (the store reads them key by key); a distinct result is a copy with `_variants`.
  const result: SearchPayload['result'] = state.store.getMany(page);
  if (grouped) for (let i = 0; i < page.length; i++) result[i] = { ...result[i], _variants: variantsOf(grouped, page[i]) };

  // Counting groups, a pinned product outside the matches adds its values only as a group of its own
  // (docs/decisions/0039-variants.md).
  const pinCounts = (doc: number): boolean => !grouped || !plan.distinct!.groupFacets || grouped.joined.has(doc) || grouped.groupOf(doc) < 0;
  const payload: SearchPayload = { result, total_results: total, suggestions: {}, redirects: {} };
  const columns = countColumns(index, plan);
  /** The counts per code of aggregation `i` (a count column of the plan): the ranges' sums and the pinned products'. */
  const merged = (i: number): Uint32Array => {
    let counts = partials[0].facetCounts[i];
    if (partials.length > 1) {
      counts = new Uint32Array(partials[0].facetCounts[i].length);
      for (const p of partials) for (let c = 0; c < counts.length; c++) counts[c] += p.facetCounts[i][c];
    }
    const column = columns[i];
    if (!column) return counts;
    if (plan.distinct?.groupFacets) addGroupPairs(partials.map((p) => p.groupPairs?.facets[i]), counts);
    for (const doc of pins.extra) if (pinCounts(doc)) addDocToColumnCounts(column, doc, counts);
    for (const miss of pins.nearMiss) if (miss.aggregations.includes(i) && pinCounts(miss.doc)) addDocToColumnCounts(column, miss.doc, counts);
    return counts;
  };
  if (request.aggregations) {
    const wholeCatalog = !plan.matchNothing && plan.words.length === 0 && plan.conditions.length === 0 && !plan.disjunctive?.length && plan.merch === undefined
      && !plan.distinct?.groupFacets;

    const aggregations: [string, FacetBucket[]][] = [];
    request.aggregations.forEach((name, i) => {
      const fid = plan.aggregationFields[i];
      if (fid < 0) { aggregations.push([name, []]); return; }
      const compute = () => facetBuckets(merged(i), state.dictionaries[fid], keyOrder(state, fid));
      aggregations.push([name, wholeCatalog ? cachedWholeCatalogBuckets(state, fid, compute) : compute()]);
    });
    // fromEntries defines own properties: a field named "__proto__" stays a key of the answer.
    payload.aggregations = Object.fromEntries(aggregations);
  }
  if (request.range_fields) {
    const ranges: [string, NumericRange][] = [];
    request.range_fields.forEach((name, r) => {
      let min = Infinity;
      let max = -Infinity;
      for (const p of partials) {
        if (p.ranges[2 * r] < min) min = p.ranges[2 * r];
        if (p.ranges[2 * r + 1] > max) max = p.ranges[2 * r + 1];
      }
      for (const doc of pins.extra) [min, max] = addDocToRange(index, plan.rangeFields[r], doc, min, max);
      ranges.push([name, min <= max ? { min, max } : { min: null, max: null }]);
    });
    payload.ranges = Object.fromEntries(ranges);
  }
  if (request.range_buckets) {
    const buckets = Object.keys(request.range_buckets).map((name, i): [string, RangeBucket[]] => {
      const b = plan.rangeBuckets[i]!;
      const counts = mergedBucketCounts(partials, i);
      if (plan.distinct?.groupFacets) addGroupPairs(partials.map((p) => p.groupPairs?.buckets[i]), counts);
      // Pinned products joining the results count as they count in facets and ranges.
      for (const doc of pins.extra) if (pinCounts(doc)) addDocToBuckets(index, b, doc, counts);
      if (b.nearMissAggregation !== undefined) for (const miss of pins.nearMiss) if (miss.aggregations.includes(b.nearMissAggregation) && pinCounts(miss.doc)) addDocToBuckets(index, b, miss.doc, counts);
      return [name, bucketsPayload(b.bounds, counts)];
    });
    payload.range_buckets = Object.fromEntries(buckets);
  }
  if (request.facet_search) {
    // The facet search's counts follow the request's aggregations (search-plan.ts).
    const i = request.aggregations?.length ?? 0;
    const fid = plan.aggregationFields[i]!;
    const { q, size } = request.facet_search;
    payload.facet_hits = fid < 0 ? [] : facetHits(state, fid, merged(i), q, size, resolveRelevance(settings).typoTolerance);
  }
  if (request.hierarchical_facets) {
    const hierarchies = settings?.hierarchies ?? {};
    payload.hierarchical_aggregations = Object.fromEntries(request.hierarchical_facets.map((name, h) => [
      name, hierarchyPayload(hierarchyOf(state, hierarchies[name]!), merged(plan.aggregationFields.length + h), refinedPaths(request.scope?.[name], forcedScope?.[name])),
    ]));
  }
  if (extras.correctedQuery !== undefined) payload.suggestions.corrected_query = extras.correctedQuery;
  if (extras.droppedWords !== undefined && extras.droppedWords.length > 0) payload.suggestions.dropped_words = extras.droppedWords;
  const url = redirectFor(request.q, settings);
  if (url !== undefined) payload.redirects.url = url;
  return payload;
}
