/**
 * Merges the partial results of one or more doc ranges and turns them into the documented payload:
 * total, the page, facet buckets, ranges, suggestions and redirects. Runs on the calling thread.
 * @module
 */
import type { CatalogState } from '../catalog/catalog-index.js';
import { tokenize } from '../catalog/tokenizer.js';
import type { WebsiteSettings } from '../config.js';
import type { FacetBucket, NumericRange, SearchPayload, SearchRequest } from '../types.js';
import { makeDocComparator, sortKeyArrays } from './doc-order.js';
import type { PartialResult } from './run-partial.js';
import type { PlanExtras, SearchPlan } from './search-plan.js';
import { DEFAULT_SEARCH_SIZE } from './validate-search-request.js';

/** Facet buckets from per-code counts: count descending, then key ascending (JS string order). */
export function facetBuckets(counts: Uint32Array, dictionary: readonly string[]): FacetBucket[] {
  const codes: number[] = [];
  for (let c = 0; c < counts.length; c++) if (counts[c] > 0) codes.push(c);
  codes.sort((a, b) => counts[b] - counts[a] || (dictionary[a] < dictionary[b] ? -1 : 1)); // keys are distinct
  return codes.map((c) => ({ key: dictionary[c], doc_count: counts[c] }));
}

/** The normalised form of a query for redirect rules: its words joined by single spaces. */
export function normaliseQuery(q: string): string {
  return tokenize(q).join(' ');
}

/** The first redirect rule whose normalised query equals the normalised `q`. */
export function redirectFor(q: string, settings: WebsiteSettings | undefined): string | undefined {
  const normal = normaliseQuery(q);
  for (const rule of settings?.redirects ?? []) if (rule.queries.some((r) => normaliseQuery(r) === normal)) return rule.url;
  return undefined;
}

/** Merges range results into the payload. */
export function assemblePayload(
  state: CatalogState, plan: SearchPlan, extras: PlanExtras, partials: readonly PartialResult[],
  request: SearchRequest, settings: WebsiteSettings | undefined,
): SearchPayload {
  const { index } = state;
  let total = 0;
  for (const p of partials) total += p.total;

  // Top-k of the union = top-k of the ranges' top-k lists, under the same comparator (applied to
  // positions in the concatenated lists).
  let docs: Int32Array;
  if (partials.length === 1) docs = partials[0].topDocs;
  else {
    let count = 0;
    for (const p of partials) count += p.topDocs.length;
    const allDocs = new Int32Array(count);
    const allScores = new Float64Array(count);
    let at = 0;
    for (const p of partials) { allDocs.set(p.topDocs, at); allScores.set(p.topScores, at); at += p.topDocs.length; }
    const before = makeDocComparator(sortKeyArrays(index, plan.sort), plan.sort.map((k) => k.desc), plan.words.length > 0 ? allScores : undefined, 0, allDocs);
    const positions = Array.from({ length: count }, (_, i) => i).sort(before).slice(0, plan.limit);
    docs = Int32Array.from(positions, (i) => allDocs[i]);
  }
  const size = request.size ?? DEFAULT_SEARCH_SIZE;
  const result = Array.from(docs.subarray(request.start, request.start + size), (d) => state.products[d]);

  const payload: SearchPayload = { result, total_results: total, suggestions: {}, redirects: {} };
  if (request.aggregations) {
    const aggregations: Record<string, FacetBucket[]> = {};
    request.aggregations.forEach((name, i) => {
      const fid = plan.aggregationFields[i];
      if (fid < 0) { aggregations[name] = []; return; }
      let counts = partials[0].facetCounts[i];
      if (partials.length > 1) {
        counts = new Uint32Array(counts.length);
        for (const p of partials) for (let c = 0; c < counts.length; c++) counts[c] += p.facetCounts[i][c];
      }
      aggregations[name] = facetBuckets(counts, state.dictionaries[fid]);
    });
    payload.aggregations = aggregations;
  }
  if (request.range_fields) {
    const ranges: Record<string, NumericRange> = {};
    request.range_fields.forEach((name, r) => {
      let min = Infinity;
      let max = -Infinity;
      for (const p of partials) {
        if (p.ranges[2 * r] < min) min = p.ranges[2 * r];
        if (p.ranges[2 * r + 1] > max) max = p.ranges[2 * r + 1];
      }
      ranges[name] = min <= max ? { min, max } : { min: null, max: null };
    });
    payload.ranges = ranges;
  }
  if (extras.correctedQuery !== undefined) payload.suggestions.corrected_query = extras.correctedQuery;
  const url = redirectFor(request.q, settings);
  if (url !== undefined) payload.redirects.url = url;
  return payload;
}
