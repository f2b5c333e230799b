/**
 * itemsjs 2.4.4: its native full-text search on the title, `filters` (OR within a facet) for the brand
 * and category scope, a `filter` callback for the price range, configured aggregations for facets,
 * `show_facet_stats` for min/max (whole numbers only in this version) and configured sortings.
 * itemsjs computes every configured facet on every query.
 * @module
 */
import itemsjs from 'itemsjs';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';

interface ItemsJsResult {
  pagination: { total: number };
  data: {
    items: { refId: string }[];
    aggregations: Record<string, { buckets: { key: string; doc_count: number }[]; facet_stats?: { min: number; max: number } }>;
  };
}

interface ItemsJsEngine {
  search(options: Record<string, unknown>): ItemsJsResult;
}

const NUMERIC_FACETS = ['price', 'ratings'];

const SORTINGS = {
  price_asc: { field: 'price', order: 'asc' },
  brand_asc_price_desc: { field: ['brand', 'price'], order: ['asc', 'desc'] },
};

export class ItemsJsAdapter implements SearchAdapter {
  readonly name = 'itemsjs 2.4.4';
  private engine!: ItemsJsEngine;

  build(products: Product[]): void {
    // Its facet stats throw on any non-number value (a null rating, a missing price): leave such keys out.
    const items = products.map((p) => {
      if ((p.price === undefined || typeof p.price === 'number') && (p.ratings === undefined || typeof p.ratings === 'number')) return p;
      const copy: Record<string, unknown> = { ...p };
      for (const f of NUMERIC_FACETS) if (typeof copy[f] !== 'number') delete copy[f];
      return copy;
    });
    this.engine = (itemsjs as unknown as (items: unknown[], config: unknown) => ItemsJsEngine)(items, {
      custom_id_field: 'refId',
      searchableFields: ['title'],
      aggregations: {
        brand: { title: 'Brand', size: 100_000, conjunction: false },
        search_category: { title: 'Category', size: 100_000, conjunction: false },
        price: { title: 'Price', size: 1, show_facet_stats: true },
        ratings: { title: 'Ratings', size: 1, show_facet_stats: true },
      },
      sortings: SORTINGS,
    });
  }

  search(request: SearchRequest): SearchOutcome {
    if (request.distinct) throw new Error('distinct: not written for this adapter (grouping by hand would need every hit)');
    // Subtree filters, counts ignoring a condition and value search would be hand-written over its
    // results; this adapter leaves them out rather than time a different request (the report shows "–").
    if (request.hierarchical_facets || request.facet_search || request.range_buckets) throw new Error('request type not implemented by this adapter');
    const filters: Record<string, string[]> = {};
    const numeric: [string, number, number][] = [];
    for (const [field, condition] of Object.entries(request.scope ?? {})) {
      if (Array.isArray(condition)) filters[field] = condition;
      else numeric.push([field, condition.min ?? -Infinity, condition.max ?? Infinity]);
    }
    const size = request.size ?? 20;
    const sorts = (request.sort_fields ?? []).map((s) => Object.keys(s)[0]);
    const sort = sorts.length === 2 ? 'brand_asc_price_desc' : sorts.length === 1 ? 'price_asc' : undefined;
    const options: Record<string, unknown> = {
      query: request.q,
      per_page: size,
      page: Math.floor((request.start ?? 0) / size) + 1,
      filters,
    };
    if (sort) options.sort = sort;
    if (numeric.length) {
      options.filter = (item: Record<string, unknown>) => numeric.every(([f, min, max]) => {
        const v = item[f];
        return typeof v === 'number' && v >= min && v <= max;
      });
    }
    const result = this.engine.search(options);
    const outcome: SearchOutcome = { total: result.pagination.total, ids: result.data.items.map((i) => i.refId) };
    if (request.aggregations?.length) {
      outcome.aggregations = {};
      for (const field of request.aggregations) outcome.aggregations[field] = result.data.aggregations[field]?.buckets ?? [];
    }
    if (request.range_fields?.length) {
      outcome.ranges = {};
      for (const field of request.range_fields) {
        const stats = result.data.aggregations[field]?.facet_stats;
        outcome.ranges[field] = stats ? { min: stats.min, max: stats.max } : { min: null, max: null };
      }
    }
    return outcome;
  }
}
