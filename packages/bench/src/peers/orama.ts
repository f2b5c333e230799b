/**
 * @orama/orama 3.1.18: full text (threshold 0, every term must match), `where` for scope (enum `in`,
 * number `between`), its facets for aggregations, `sortBy` for one key and a comparator for two.
 * It has no min/max, so a request with range_fields fetches every hit and scans them (as its users do).
 * @module
 */
import { count, create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import type { Product, SearchOutcome, SearchRequest } from '../types.js';
import type { SearchAdapter } from './adapter.js';

const SCHEMA = { title: 'string', brand: 'enum', search_category: 'enum', price: 'number', ratings: 'number' } as const;
const SCHEMA_FIELDS = Object.keys(SCHEMA) as (keyof typeof SCHEMA)[];

type Hit = { id: string; document: Record<string, unknown> };

export class OramaAdapter implements SearchAdapter {
  readonly name = '@orama/orama 3.1.18';
  private db!: AnyOrama;
  private docs = 0;

  async build(products: Product[]): Promise<void> {
    this.db = create({ schema: SCHEMA }) as unknown as AnyOrama;
    const batch: Record<string, unknown>[] = [];
    const flush = async (): Promise<void> => {
      await insertMultiple(this.db, batch as never[], 5000);
      batch.length = 0;
    };
    for (const p of products) {
      // Orama rejects a null where the schema says enum/number: drop such values, keep the rest of the product.
      const doc: Record<string, unknown> = { ...p, id: p.refId };
      for (const f of SCHEMA_FIELDS) {
        const v = doc[f];
        if (v === null || v === undefined || (SCHEMA[f] === 'number' && typeof v !== 'number') || (SCHEMA[f] !== 'number' && typeof v !== 'string')) delete doc[f];
      }
      batch.push(doc);
      if (batch.length >= 10_000) await flush();
    }
    await flush();
    this.docs = count(this.db);
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    if (request.distinct) throw new Error('distinct: not written for this adapter (grouping by hand would need every hit)');
    // Subtree filters, counts ignoring a condition and value search would be hand-written over its
    // results; this adapter leaves them out rather than time a different request (the report shows "–").
    if (request.hierarchical_facets || request.facet_search || request.range_buckets) throw new Error('request type not implemented by this adapter');
    const where: Record<string, unknown> = {};
    for (const [field, condition] of Object.entries(request.scope ?? {})) {
      if (Array.isArray(condition)) where[field] = { in: condition };
      else where[field] = { between: [condition.min ?? -Number.MAX_VALUE, condition.max ?? Number.MAX_VALUE] };
    }
    const facets: Record<string, { limit: number }> = {};
    for (const field of request.aggregations ?? []) facets[field] = { limit: 100_000 };
    const start = request.start ?? 0;
    const size = request.size ?? 20;
    const needAll = (request.range_fields?.length ?? 0) > 0;
    const params: Record<string, unknown> = {
      term: request.q,
      properties: ['title'],
      threshold: 0,
      limit: needAll ? Math.max(1, this.docs) : size,
      offset: needAll ? 0 : start,
    };
    if (Object.keys(where).length) params.where = where;
    if (Object.keys(facets).length) params.facets = facets;
    const sorts = (request.sort_fields ?? []).map((s) => Object.entries(s)[0]!);
    if (sorts.length === 1) {
      params.sortBy = { property: sorts[0]![0], order: sorts[0]![1].order === 'desc' ? 'DESC' : 'ASC' };
    } else if (sorts.length > 1) {
      params.sortBy = (a: [string, number, Record<string, unknown>], b: [string, number, Record<string, unknown>]): number => {
        for (const [field, { order }] of sorts) {
          const x = a[2][field] as string | number | undefined, y = b[2][field] as string | number | undefined;
          if (x === y) continue;
          if (x === undefined) return 1;
          if (y === undefined) return -1;
          const c = x < y ? -1 : 1;
          return order === 'desc' ? -c : c;
        }
        return 0;
      };
    }
    const result = (await search(this.db, params as never)) as unknown as {
      count: number; hits: Hit[]; facets?: Record<string, { values: Record<string, number> }>;
    };
    const outcome: SearchOutcome = {
      total: result.count,
      ids: (needAll ? result.hits.slice(start, start + size) : result.hits).map((h) => h.id),
    };
    if (result.facets) {
      outcome.aggregations = {};
      for (const [field, facet] of Object.entries(result.facets)) {
        outcome.aggregations[field] = Object.entries(facet.values).map(([key, doc_count]) => ({ key, doc_count }));
      }
    }
    if (needAll) {
      outcome.ranges = {};
      for (const field of request.range_fields!) {
        let min = Infinity, max = -Infinity;
        for (const h of result.hits) {
          const v = h.document[field];
          if (typeof v === 'number') {
            if (v < min) min = v;
            if (v > max) max = v;
          }
        }
        outcome.ranges[field] = min <= max ? { min, max } : { min: null, max: null };
      }
    }
    return outcome;
  }
}
