import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { SearchRequest } from '../types.js';
import { executeSearch } from './execute-search.js';
import { SearchPool } from './search-pool.js';
import { compileSearchPlan } from './search-plan.js';
import runSearchTask from './search-worker.js';

const pool = new SearchPool({ workers: 2, threshold: 0 });
afterAll(() => pool.close());

const request = (extra: Partial<SearchRequest>): SearchRequest => ({ website_id: 'w', client: 'c', q: '', start: 0, size: 30, ...extra });

describe('SearchPool', () => {
  it('exposes its threshold (default and given)', async () => {
    const defaults = new SearchPool({ workers: 1 });
    expect(defaults.threshold).toBeGreaterThan(0);
    await defaults.close();
    expect(pool.threshold).toBe(0);
  });

  it('gives the inline results for many searches of one catalog version (index cached in the workers)', async () => {
    const catalog = new Catalog();
    await catalog.upsert(Array.from({ length: 1000 }, (_, i) => ({
      refId: `p${i}`, title: `item ${['red', 'blue', 'green'][i % 3]} ${i % 17}`, brand: `B${i % 7}`, price: (i * 37) % 101, tags: [`t${i % 4}`, `t${i % 5}`],
    })));
    const requests: SearchRequest[] = [];
    for (let i = 0; i < 12; i++) {
      requests.push(request({ q: ['', 'red', 'blue item', 'gren'][i % 4], aggregations: ['brand', 'tags'], range_fields: ['price'], start: i }));
      requests.push(request({ scope: { brand: ['B1', 'B2'], price: { min: 10 } }, sort_fields: [{ price: { order: 'desc', type: 'number' } }] }));
    }
    // Text sorts derive ranks after the index reached the workers: they travel with the task.
    requests.push(request({ sort_fields: [{ title: { order: 'asc', type: 'text' } }, { brand: { order: 'desc', type: 'text' } }] }));
    requests.push(request({ q: 'item', sort_fields: [{ brand: { order: 'asc', type: 'text' } }] }));
    for (const r of requests) expect(await executeSearch(catalog, r, { pool })).toEqual(await executeSearch(catalog, r));
  });

  it('worker: asks for the index it has not cached, then serves from its cache', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'x', title: 'lamp' }]);
    const { index } = catalog.state;
    const { plan } = compileSearchPlan(catalog.state, request({ q: 'lamp' }));
    const key = `${index.catalogId}:${index.version}`;
    expect(runSearchTask({ key, sortRanks: [], plan, lo: 0, hi: 1 })).toEqual({ needIndex: true });
    const first = runSearchTask({ key, index, sortRanks: [], plan, lo: 0, hi: 1 });
    expect('partial' in first && first.partial.total).toBe(1);
    const cached = runSearchTask({ key, sortRanks: [], plan, lo: 0, hi: 1 });
    expect('partial' in cached && cached.partial.total).toBe(1);
  });

  it('a pooled search in flight during a replace answers from the version it started on', async () => {
    const catalog = new Catalog();
    const gen = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ refId: `${tag}${i}`, brand: tag, title: 'thing', price: i }));
    await catalog.replace(gen('old', 400));
    const body = request({ q: 'thing', aggregations: ['brand'], range_fields: ['price'], sort_fields: [{ price: { order: 'desc', type: 'number' } }], size: 3 });
    const inFlight = executeSearch(catalog, body, { pool }); // dispatched to the workers, not finished
    await catalog.replace(gen('new', 600));
    const before = await inFlight;
    expect(before.total_results).toBe(400);
    expect(before.aggregations?.brand).toEqual([{ key: 'old', doc_count: 400 }]);
    expect(before.ranges?.price).toEqual({ min: 0, max: 399 });
    expect(before.result.map((p) => p.refId)).toEqual(['old399', 'old398', 'old397']);
    const after = await executeSearch(catalog, body, { pool });
    expect(after.total_results).toBe(600);
    expect(after.result.map((p) => p.refId)).toEqual(['new599', 'new598', 'new597']);
  });

  it('runs searches of different catalogs and versions side by side', async () => {
    const a = new Catalog();
    const b = new Catalog();
    await a.upsert(Array.from({ length: 300 }, (_, i) => ({ refId: `a${i}`, title: 'apple' })));
    await b.upsert(Array.from({ length: 300 }, (_, i) => ({ refId: `b${i}`, title: 'banana' })));
    const results = await Promise.all([
      executeSearch(a, request({ q: 'apple' }), { pool }), executeSearch(b, request({ q: 'apple' }), { pool }),
      executeSearch(b, request({ q: 'banana' }), { pool }),
    ]);
    expect(results.map((r) => r.total_results)).toEqual([300, 0, 300]);
    await a.upsert([{ refId: 'a0', title: 'pear' }]);
    expect((await executeSearch(a, request({ q: 'apple' }), { pool })).total_results).toBe(299);
  });
});
