/** Text + aggregations (brand, search_category) + min/max of price. @module */
import type { SearchRequest } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

export function textFacetsQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  return Array.from({ length: count }, () => ({
    ...baseRequest(sample.queryText(random)),
    aggregations: ['brand', 'search_category'],
    range_fields: ['price'],
  }));
}
