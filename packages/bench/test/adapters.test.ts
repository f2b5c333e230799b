import { describe, expect, it } from 'vitest';
import { loadDataset } from '../src/datasets.js';
import { createAdapter, type EngineKey } from '../src/peers/adapter.js';
import { Columns, finishRequest, topK } from '../src/peers/columns.js';
import type { Product, SearchOutcome } from '../src/types.js';
import { REQUEST_TYPES } from '../src/types.js';
import { buildWorkload } from '../src/workloads/index.js';

// Correctness of the adapters (not their speed): on a small catalog, the id-only engines' totals,
// facets and ranges must equal the plain scan's, and the others' totals must mostly agree.
describe('peer adapters', async () => {
  const products = await loadDataset({ kind: 'generated', count: 2000, seed: 3 });
  const workload = buildWorkload(products, 12);
  const outcomes = new Map<EngineKey, Record<string, SearchOutcome[]>>();
  // Request types the Orama and itemsjs adapters leave out (they say so, and the report shows "–").
  const handWritten = new Set(['distinct', 'range_buckets', 'hierarchical_facets', 'facet_search']);
  for (const key of ['scan', 'flexsearch', 'minisearch', 'orama', 'itemsjs', 'aisle'] as const) {
    const adapter = await createAdapter(key);
    await adapter.build(products);
    const byType: Record<string, SearchOutcome[]> = {};
    for (const type of REQUEST_TYPES) {
      byType[type] = [];
      if ((key === 'orama' || key === 'itemsjs') && handWritten.has(type)) {
        await expect(async () => adapter.search(workload[type][0]!)).rejects.toThrow(/request type not implemented by this adapter|not written for this adapter/);
        continue;
      }
      for (const q of workload[type]) byType[type]!.push(await adapter.search(q));
    }
    await adapter.close?.();
    outcomes.set(key, byType);
  }
  const scan = outcomes.get('scan')!;

  it('aisle answers every request type, and most totals as the scan does (typos and prefixes aside)', () => {
    const got = outcomes.get('aisle')!;
    for (const type of REQUEST_TYPES) {
      expect(got[type]!.length, type).toBe(workload[type].length);
      expect(got[type]!.filter((o, i) => o.total === scan[type]![i]!.total).length, type).toBeGreaterThanOrEqual(workload[type].length / 2);
    }
  });

  it('the scan finds something for most queries', () => {
    for (const type of REQUEST_TYPES) expect(scan[type]!.filter((o) => o.total > 0).length).toBeGreaterThan(6);
  });

  it.each(['flexsearch', 'minisearch'] as const)('%s equals the scan (totals, facets, ranges, sorted pages) but for tokenisation', (key) => {
    const got = outcomes.get(key)!;
    let equal = 0, all = 0;
    for (const type of REQUEST_TYPES) {
      got[type]!.forEach((o, i) => {
        const ref = scan[type]![i]!;
        all++;
        // FlexSearch's default encoder folds some spellings together ("zaros" also finds "zaross").
        if (o.total !== ref.total) return;
        equal++;
        expect(o.aggregations).toEqual(ref.aggregations);
        expect(o.ranges).toEqual(ref.ranges);
        expect(o.hierarchies).toEqual(ref.hierarchies);
        expect(o.facetHits).toEqual(ref.facetHits);
        expect(o.buckets).toEqual(ref.buckets);
        if (workload[type][i]!.sort_fields) expect(o.ids).toEqual(ref.ids);
      });
    }
    expect(equal).toBeGreaterThanOrEqual(all - 3);
  });

  it.each(['orama', 'itemsjs'] as const)('%s agrees with the scan on most totals (stemming aside)', (key) => {
    const got = outcomes.get(key)!;
    for (const type of REQUEST_TYPES.filter((t) => !handWritten.has(t))) {
      const equal = got[type]!.filter((o, i) => o.total === scan[type]![i]!.total).length;
      expect(equal).toBeGreaterThanOrEqual(type === 'browse' ? 12 : 6);
    }
  });
});

describe('columns', () => {
  const products: Product[] = [
    { refId: 'a', brand: 'X', price: 5, ratings: 4 },
    { refId: 'b', brand: 'Y', price: '3.50' },
    { refId: 'c', brand: 'X', price: 9, ratings: 2 },
    { refId: 'd', price: 1 },
  ];
  const columns = new Columns(products);
  const base = { website_id: 'w', client: 'c', q: '', start: 0 };

  it('filters, counts facets, finds min/max (numeric strings are numbers) and sorts with missing values last', () => {
    const all = [0, 1, 2, 3];
    const out = finishRequest(all, { ...base, scope: { price: { min: 2 } }, aggregations: ['brand'], range_fields: ['price', 'ratings'],
      sort_fields: [{ ratings: { order: 'desc', type: 'number' } }] }, columns);
    expect(out.total).toBe(3);
    expect(out.aggregations!.brand).toEqual([{ key: 'X', doc_count: 2 }, { key: 'Y', doc_count: 1 }]);
    expect(out.ranges).toEqual({ price: { min: 3.5, max: 9 }, ratings: { min: 2, max: 4 } });
    expect(out.ids).toEqual(['a', 'c', 'b']);
    const byBrand = finishRequest(all, { ...base, sort_fields: [{ brand: { order: 'asc', type: 'text' } }, { price: { order: 'desc', type: 'number' } }] }, columns);
    expect(byBrand.ids).toEqual(['c', 'a', 'b', 'd']);
    expect(finishRequest(all, { ...base, scope: { brand: ['Z'] }, range_fields: ['price'] }, columns).ranges).toEqual({ price: { min: null, max: null } });
  });

  it('topK selects what a full sort would', () => {
    const docs = Array.from({ length: 500 }, (_, i) => (i * 7919) % 500);
    const compare = (a: number, b: number): number => ((a * 31) % 97) - ((b * 31) % 97) || a - b;
    expect(topK(docs, 10, compare)).toEqual([...docs].sort(compare).slice(0, 10));
  });
});
