/** Text + a brand scope (three brands, OR) + a price range, with facets and min/max. @module */
import type { SearchRequest } from '../types.js';
import { baseRequest, words, type QuerySample, type SeededRandom } from './sample.js';

export function textScopeQueries(sample: QuerySample, count: number, random: SeededRandom): SearchRequest[] {
  return Array.from({ length: count }, () => {
    const product = random.pick(sample.branded);
    const title = words(product.title).filter((w) => !/^\d+$/.test(w));
    const q = title.length > 0 ? random.pick(title) : 'the';
    const brands = new Set([product.brand as string]);
    while (brands.size < 3 && brands.size < sample.popularBrands.length) {
      brands.add(sample.popularBrands[Math.floor(Math.pow(random.next(), 2) * Math.min(50, sample.popularBrands.length))]!);
    }
    const price = product.price as number;
    return {
      ...baseRequest(q),
      scope: { brand: [...brands], price: { min: Math.floor(price * 0.5), max: Math.ceil(price * 2) } },
      aggregations: ['brand', 'search_category'],
      range_fields: ['price'],
    };
  });
}
