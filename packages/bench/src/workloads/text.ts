/** Plain text queries: one or two title words, first page of 20. @module */
import type { SearchRequest } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

export function textQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  return Array.from({ length: count }, () => baseRequest(sample.queryText(random)));
}
