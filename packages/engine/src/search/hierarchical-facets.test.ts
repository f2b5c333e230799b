import { describe, expect, it } from 'vitest';
import type { WebsiteSettings } from '../config.js';
import type { Product, SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { catalogOf } from './__tests__/catalog-of.js';

const products: Product[] = [
  { refId: 'a', brand: 'Acme', path: 'Home > Kitchen > Pots', levels: ['Home', 'Kitchen', 'Pots'], lvl0: 'Home', lvl1: 'Kitchen', lvl2: 'Pots' },
  { refId: 'b', brand: 'Zeta', path: 'Home > Kitchen', levels: ['Home', 'Kitchen'], lvl0: 'Home', lvl1: 'Kitchen' },
  { refId: 'c', brand: 'Acme', path: 'Home > Garden', levels: ['Home', 'Garden'], lvl0: 'Home', lvl1: 'Garden' },
  { refId: 'd', brand: 'Acme', path: 'Toys', levels: ['Toys'], lvl0: 'Toys' },
  { refId: 'e', brand: 'Zeta' },
];
const settings: WebsiteSettings = {
  hierarchies: { sep: { field: 'path', separator: '>' }, arr: { field: 'levels' }, per: { fields: ['lvl0', 'lvl1', 'lvl2'] } },
};
const ask = (extra: Partial<SearchRequest>): SearchRequest => ({ website_id: 'w', client: 'c', q: '', start: 0, size: 10, ...extra });

describe('hierarchical facets', () => {
  it('lists the top level, and the children of each refined node counted without the hierarchy condition', async () => {
    const catalog = await catalogOf(products);
    for (const name of ['sep', 'arr', 'per']) {
      const payload = await executeSearch(catalog, ask({ hierarchical_facets: [name], scope: { [name]: ['Home > Kitchen'] } }), { settings });
      expect(payload.total_results).toBe(2);
      expect(payload.hierarchical_aggregations![name]).toEqual([
        { value: 'Home', path: 'Home', count: 3, children: [
          { value: 'Kitchen', path: 'Home > Kitchen', count: 2, children: [{ value: 'Pots', path: 'Home > Kitchen > Pots', count: 1 }] },
          { value: 'Garden', path: 'Home > Garden', count: 1 },
        ] },
        { value: 'Toys', path: 'Toys', count: 1 },
      ]);
    }
  });
  it('facet search', async () => {
    const catalog = await catalogOf(products);
    const payload = await executeSearch(catalog, ask({ facet_search: { field: 'brand', q: 'ac' }, scope: { brand: ['Zeta'] } }), { settings });
    expect(payload.total_results).toBe(2);
    expect(payload.facet_hits).toEqual([{ value: 'Acme', count: 3, highlighted: '<em>Ac</em>me' }]);
    const typo = await executeSearch(catalog, ask({ facet_search: { field: 'brand', q: 'zeat' } }), { settings });
    expect(typo.facet_hits).toEqual([{ value: 'Zeta', count: 2, highlighted: '<em>Zeta</em>' }]);
  });
});
