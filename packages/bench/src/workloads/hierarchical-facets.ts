/**
 * A category menu (`hierarchical_facets`) on a category page refined two levels down (the `categories`
 * path of a sampled product); every other query also searches a word of that product's title, so it
 * finds something in the category, as a shopper's search within a category does. @module
 */
import type { SearchRequest } from '../types.js';
import { baseRequest, words, type QuerySample, type SeededRandom } from './sample.js';

export function hierarchicalFacetsQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  const placed = sample.titled.filter((p) => Array.isArray(p.categories) && p.categories.length >= 2);
  return Array.from({ length: count }, (_, i) => {
    const product = placed.length > 0 ? random.pick(placed) : undefined;
    const path = product ? (product.categories as string[]).slice(0, 2).join(' > ') : 'none';
    const title = words(product?.title).filter((w) => !/^\d+$/.test(w));
    const q = i % 2 === 0 || title.length === 0 ? '' : random.pick(title);
    return { ...baseRequest(q), scope: { categories: [path] }, hierarchical_facets: ['categories'] };
  });
}
