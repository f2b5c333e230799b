/** Text + price buckets (a price slider's histogram): one title word, ten price bands. @module */
import type { SearchRequest } from '../types.js';
import { baseRequest, type QuerySample, type SeededRandom } from './sample.js';

const PRICE_BOUNDS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

export function rangeBucketsQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  return Array.from({ length: count }, () => ({ ...baseRequest(sample.queryText(random, 1)), range_buckets: { price: PRICE_BOUNDS } }));
}
