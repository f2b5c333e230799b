/**
 * Deterministic query sets, one per request type, as request bodies of the spec. The same seed and
 * sample give the same queries, so every engine in a run answers exactly the same requests.
 * @module
 */
import type { Product, RequestType, SearchRequest } from '../types.js';
import { browseQueries } from './browse.js';
import { distinctQueries } from './distinct.js';
import { multiSortQueries } from './multi-sort.js';
import { QuerySample, SeededRandom } from './sample.js';
import { textFacetsQueries } from './text-facets.js';
import { textScopeQueries } from './text-scope.js';
import { textQueries } from './text.js';
import { rangeBucketsQueries } from './range-buckets.js';
import { hierarchicalFacetsQueries } from './hierarchical-facets.js';
import { facetSearchQueries } from './facet-search.js';

export type Workload = Record<RequestType, SearchRequest[]>;

/** Builds `count` queries of every request type from a catalog sample. */
export function buildWorkload(sampleProducts: readonly Product[], count: number, seed = 42): Workload {
  const sample = new QuerySample(sampleProducts);
  return {
    text: textQueries(sample, count, new SeededRandom(seed)),
    text_facets: textFacetsQueries(sample, count, new SeededRandom(seed + 1)),
    text_scope: textScopeQueries(sample, count, new SeededRandom(seed + 2)),
    browse: browseQueries(sample, count, new SeededRandom(seed + 3)),
    multi_sort: multiSortQueries(sample, count, new SeededRandom(seed + 4)),
    distinct: distinctQueries(sample, count, new SeededRandom(seed + 5)),
    range_buckets: rangeBucketsQueries(sample, count, new SeededRandom(seed + 6)),
    hierarchical_facets: hierarchicalFacetsQueries(sample, count, new SeededRandom(seed + 7)),
    facet_search: facetSearchQueries(sample, count, new SeededRandom(seed + 8)),
  };
}

export { QuerySample, SeededRandom, words } from './sample.js';
