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

/** Seed of the warm-up queries: drawn like the timed ones, none of them the same query list. */
const WARMUP_SEED = 4_242;

/**
 * The untimed queries every engine is warmed with before its timed ones, `count` per request type:
 * drawn from the same sample as the timed workload with another seed, and without any query of
 * `timed` (a long warm-up draws some of them again), so a cache of answers to the timed queries gains
 * nothing from them while the code paths (and the JIT) are warm.
 */
export function buildWarmupWorkload(sampleProducts: readonly Product[], count: number, timed?: Workload): Workload {
  const warmup = buildWorkload(sampleProducts, count, WARMUP_SEED);
  if (timed === undefined) return warmup;
  for (const type of Object.keys(warmup) as RequestType[]) {
    const asked = new Set(timed[type].map((body) => JSON.stringify(body)));
    warmup[type] = warmup[type].filter((body) => !asked.has(JSON.stringify(body)));
  }
  return warmup;
}

export { QuerySample, SeededRandom, words } from './sample.js';

/** The requests of `bodies` whose query has `words` words (all of them when `words` is 0): the A/B and profile scripts' `--words`. */
export function ofWordCount(bodies: readonly SearchRequest[], words: number): SearchRequest[] {
  return bodies.filter((b) => words === 0 || b.q.trim().split(/\s+/).length === words);
}
