/**
 * FlexSearch 0.8.212: an id-only full-text index (no counts, facets, numeric filters or field sorts).
 * As its users do, the adapter asks for every matching id (limit = catalog size, so totals are exact)
 * and does scope, facets, ranges and sorting itself over arrays it keeps; a category browse reads a
 * category → ids map. That is what FlexSearch's tags would hold, without the pitfall of
 * `search({query, tag})` in this version, which applies the limit before the tag intersection and
 * loses hits (docs/peers.md); intersecting on the adapter side gives the same exact totals as its
 * Resolver API would.
 * @module
 */
import FlexSearch from 'flexsearch';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';
import { Columns, finishRequest } from './columns.js';

export class FlexSearchAdapter implements SearchAdapter {
  readonly name = 'flexsearch 0.8.212';
  private index = new FlexSearch.Index({ tokenize: 'strict' });
  private columns = new Columns([]);
  private byCategory = new Map<string, number[]>();
  private all: number[] = [];

  build(products: Product[]): void {
    for (let i = 0; i < products.length; i++) {
      const title = products[i]!.title;
      if (typeof title === 'string') this.index.add(i, title);
      const category = products[i]!.search_category;
      if (typeof category === 'string') {
        let list = this.byCategory.get(category);
        if (!list) this.byCategory.set(category, (list = []));
        list.push(i);
      }
    }
    this.all = Array.from(products, (_, i) => i);
    this.columns = new Columns(products);
    this.columns.prepare(['brand', 'search_category'], ['price', 'ratings']);
    this.columns.prefixColumn('categories');
  }

  search(request: SearchRequest): SearchOutcome {
    const q = request.q.trim();
    let matched: ArrayLike<number>;
    if (q === '') {
      const categories = request.scope?.search_category;
      matched = Array.isArray(categories) && categories.length === 1 ? (this.byCategory.get(categories[0]!) ?? []) : this.all;
    } else {
      matched = this.index.search(q, { limit: this.all.length || 1 }) as number[];
    }
    return finishRequest(matched, request, this.columns);
  }
}
