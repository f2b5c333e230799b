/**
 * Variants: a one- or two-word query answered with one result per style (`distinct`, grouped by
 * {@link DISTINCT_FIELD}), with brand and category facets — a storefront whose products come in sizes
 * and colours. None when the sample's products have no such field. @module
 */
import { DISTINCT_FIELD, type SearchRequest } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

export function distinctQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  if (!sample.titled.some((p) => typeof p[DISTINCT_FIELD] === 'string')) return [];
  return Array.from({ length: count }, (): SearchRequest => ({
    ...baseRequest(sample.queryText(random)),
    distinct: true,
    aggregations: ['brand', 'search_category'],
  }));
}
