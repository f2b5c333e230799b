/**
 * MiniSearch 7.2.0: full text with AND combination; scope as its `filter` callback; a category browse
 * is its match-all (`MiniSearch.wildcard`) search with the filter; facets, ranges and sorts by hand.
 * @module
 */
import MiniSearch from 'minisearch';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';
import { Columns, countsIgnoringOwnCondition, finishRequest, scopePredicate } from './columns.js';

export class MiniSearchAdapter implements SearchAdapter {
  readonly name = 'minisearch 7.2.0';
  private index = new MiniSearch<{ id: number; title: string }>({ fields: ['title'], searchOptions: { combineWith: 'AND' } });
  private columns = new Columns([]);

  build(products: Product[]): void {
    const docs = products.map((p, i) => ({ id: i, title: typeof p.title === 'string' ? p.title : '' }));
    this.index.addAll(docs);
    this.columns = new Columns(products);
    this.columns.prepare(['brand', 'search_category'], ['price', 'ratings']);
    this.columns.prefixColumn('categories');
  }

  search(request: SearchRequest): SearchOutcome {
    // Counts ignoring a condition need the text matches before the scope (finishRequest applies it).
    const prefilter = !countsIgnoringOwnCondition(request);
    const predicate = prefilter ? scopePredicate(request, this.columns) : undefined;
    const filter = predicate ? (result: { id: number }) => predicate(result.id) : undefined;
    const q = request.q.trim();
    const results = this.index.search(q === '' ? MiniSearch.wildcard : q, filter ? { filter } : {});
    return finishRequest(results.map((r) => r.id as number), request, this.columns, prefilter);
  }
}
