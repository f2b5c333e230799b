/** A searchable brand list (`facet_search`): a title word, and the first letters of a common brand. @module */
import type { SearchRequest } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

export function facetSearchQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  return Array.from({ length: count }, () => {
    const brand = sample.popularBrands[Math.floor(Math.pow(random.next(), 2) * Math.min(100, sample.popularBrands.length))] ?? 'a';
    const typed = brand.slice(0, 2 + Math.floor(random.next() * 3));
    return { ...baseRequest(sample.queryText(random, 1)), facet_search: { field: 'brand', q: typed } };
  });
}
