/** A one-word query sorted by brand (text, asc) then price (number, desc), third page (offset 40). @module */
import type { SearchRequest, SortFieldSpec } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

export function multiSortQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  const sortFields: SortFieldSpec[] = [{ brand: { order: 'asc', type: 'text' } }, { price: { order: 'desc', type: 'number' } }];
  return Array.from({ length: count }, (): SearchRequest => ({
    ...baseRequest(sample.queryText(random, 1)),
    start: 40,
    sort_fields: sortFields,
  }));
}
