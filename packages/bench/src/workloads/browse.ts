/** Category browsing: empty query, one category in scope, brand facets, two ranges, sorted by price. @module */
import type { SearchRequest } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

export function browseQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  return Array.from({ length: count }, () => ({
    ...baseRequest(''),
    scope: { search_category: [random.pick(sample.categorised).search_category as string] },
    aggregations: ['brand'],
    range_fields: ['price', 'ratings'],
    sort_fields: [{ price: { order: 'asc', type: 'number' } }],
  }));
}
