import { describe, expect, it } from 'vitest';
import type { CatalogView, Product } from '../types.js';
import { BackgroundIndex, RevisionRows, compactRevisionsSteps, rowsByRevision, runSliced, runSync, type BuildSteps } from './background-build.js';
import { RecommendationModels } from './recommendation-models.js';
import { MapCatalog } from './map-catalog.js';

const website = { websiteId: 'site-a', client: 'c', tokens: ['t'], hmacSecret: 's' };
const T0 = Date.UTC(2026, 0, 10);

function catalog(): MapCatalog {
  const list: Product[] = [];
  for (let i = 1; i <= 40; i++) list.push({ refId: `m${i}`, title: `Mug ${i}`, search_category: 'Mugs', brand: i % 2 ? 'Acme' : 'Zen' });
  for (let i = 1; i <= 40; i++) list.push({ refId: `v${i}`, title: `Shirt ${i}`, search_category: 'Shirts', image_vector: [1, i / 40, 0], style_id: `S${i}` });
  return new MapCatalog(list);
}

const rec = (m: RecommendationModels, method: string, params = {}) => m.recommend(method, params);

describe('background index builds (indexSyncLimit 0: every build off the request path)', () => {
  it('answers the next tactic before the first build, then the index once ready', async () => {
    const cat = catalog();
    const models = new RecommendationModels({ website, catalog: cat, now: () => T0, tuning: { indexSyncLimit: 0, popularRefreshMs: 0 } });
    models.applyPurchase({ websiteId: 'site-a', customerId: 'c', sessionId: 's', orderId: 'o', eventTime: T0, items: [{ refId: 'm9', quantity: 1, price: 1 }] });
    // No index yet: the tactic answers nothing, the cascade moves on.
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'm1' }).payload).toEqual([]);
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload).toEqual([]);
    expect(rec(models, 'SimilarAttributesViewedTogether', { productRef: 'm1' }).slots[0]!.tacticLabel).toBe('Popular Items');
    expect(models.indexesUpToDate()).toBe(false);
    await models.whenIndexesReady();
    expect(models.indexesUpToDate()).toBe(true);
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'm1' }).payload).toHaveLength(10);
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload[0]).toBe('v2');
  });

  it('never returns deleted products while a rebuild runs, and reflects the new catalog once it is done', async () => {
    const cat = catalog();
    const models = new RecommendationModels({ website, catalog: cat, tuning: { indexSyncLimit: 0 } });
    await models.whenIndexesReady();
    const before = rec(models, 'OnlySimilarAttributes', { productRef: 'm1', count: 100 }).payload;
    expect(before).toContain('m3');
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload[0]).toBe('v2');
    cat.delete('m3');
    cat.delete('v2');
    cat.upsert({ refId: 'v0', title: 'Shirt zero', search_category: 'Shirts', image_vector: [1, 0.001, 0], style_id: 'S0' });
    cat.upsert({ refId: 'm0', title: 'Mug zero', search_category: 'Mugs', brand: 'Acme' });
    // The rebuild is running (or about to): answers come from the previous index, filtered.
    const during = rec(models, 'OnlySimilarAttributes', { productRef: 'm1', count: 100 }).payload;
    expect(models.indexesUpToDate()).toBe(false);
    expect(during).not.toContain('m3');
    expect(during).not.toContain('m0');
    const visualDuring = rec(models, 'OnlyVisuallySimilar', { productRef: 'v1', count: 100 }).payload;
    expect(visualDuring).not.toContain('v2');
    expect(visualDuring[0]).toBe('v3');
    expect(rec(models, 'OnlyVisuallySimilar', { productStyleId: 'S1', count: 100 }).payload).not.toContain('v2');
    // More changes while the build runs: the next look-up after it starts another build.
    cat.delete('m5');
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'm1', count: 100 }).payload).not.toContain('m5');
    await models.whenIndexesReady();
    expect(models.indexesUpToDate()).toBe(true);
    const after = rec(models, 'OnlySimilarAttributes', { productRef: 'm1', count: 100 }).payload;
    expect(after).toContain('m0');
    expect(after).not.toContain('m3');
    expect(after).not.toContain('m5');
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1', count: 100 }).payload[0]).toBe('v0');
  });

  it('a small catalog (within indexSyncLimit) is indexed in the request, as before', () => {
    const cat = catalog();
    const models = new RecommendationModels({ website, catalog: cat });
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload[0]).toBe('v2');
    cat.upsert({ refId: 'v0', title: 'Shirt zero', image_vector: [1, 0.001, 0] });
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload[0]).toBe('v0');
  });
});

describe('BackgroundIndex', () => {
  function* steps(n: number, version: number, log: string[]): BuildSteps<{ version: number; n: number }> {
    for (let i = 0; i < n; i++) {
      log.push(`step${i}`);
      yield;
    }
    return { version, n };
  }

  it('runSync runs every step; runSliced yields to the event loop between slices', async () => {
    const log: string[] = [];
    expect(runSync(steps(3, 1, log))).toEqual({ version: 1, n: 3 });
    expect(log).toHaveLength(3);
    const sliced: string[] = [];
    const done = runSliced(steps(5, 1, sliced), 0);
    setImmediate(() => sliced.push('other work'));
    await done;
    expect(sliced).toContain('other work');
    expect(sliced.indexOf('other work')).toBeLessThan(sliced.length - 1);
  });

  it('keeps the previous index until the new one is built; whenReady waits for the current version', async () => {
    const cat = catalog();
    const ix = new BackgroundIndex<{ version: number; n: number }>(cat, (_prev, products, version) => steps(products.length, version, []), 0, 0);
    expect(ix.get()).toBeUndefined();
    await ix.whenReady();
    const first = ix.get()!;
    expect(first.version).toBe(cat.version);
    cat.delete('m1');
    expect(ix.get()).toBe(first);
    await ix.whenReady();
    expect(ix.get()!.version).toBe(cat.version);
    expect(ix.get()!.n).toBe(79);
  });

  it('hands a failed build to onError (the engine logs and counts it), sliced and in the request', async () => {
    const errors: unknown[] = [];
    const failing = function* (): BuildSteps<{ version: number }> {
      yield;
      throw new Error('index build failed');
    };
    const sliced = new BackgroundIndex(catalog(), () => failing(), 0, 0);
    sliced.onError = (err) => errors.push(err);
    await expect(sliced.whenReady()).rejects.toThrow('index build failed');
    const inline = new BackgroundIndex(catalog(), () => failing(), 1000, 0);
    inline.onError = (err) => errors.push(err);
    expect(inline.get()).toBeUndefined();
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors.every((e) => (e as Error).message === 'index build failed')).toBe(true);
  });
});

describe('RevisionRows (what a rebuild looks unchanged rows up in)', () => {
  it('finds the row of every revision, small and beyond 2^32, and nothing for others', () => {
    const revisions = new Float64Array(10_000);
    for (let r = 0; r < revisions.length; r++) revisions[r] = r % 2 ? r * 7 + 1 : 2 ** 40 + r * 4096;
    const rows = runSync(rowsByRevision(revisions));
    for (let r = 0; r < revisions.length; r++) expect(rows.get(revisions[r]!)).toBe(r);
    expect(rows.get(2)).toBeUndefined();
    expect(rows.get(2 ** 40 + 1)).toBeUndefined();
    expect(rows.get(0)).toBeUndefined();
  });

  it('is empty without a previous index, and keeps the last row of a revision given twice', () => {
    expect(runSync(rowsByRevision(undefined)).get(1)).toBeUndefined();
    const rows = new RevisionRows(2);
    rows.set(5, 0);
    rows.set(5, 1);
    expect(rows.get(5)).toBe(1);
  });

  it('keeps revisions in four bytes while all are below 2^32, in eight past it, and finds rows either way', () => {
    const small = Float64Array.from({ length: 1000 }, (_, r) => 2 ** 32 - 1 - r * 3);
    const compact = runSync(compactRevisionsSteps(small));
    expect(compact).toBeInstanceOf(Uint32Array);
    expect(Array.from(compact)).toEqual(Array.from(small));
    const rows = runSync(rowsByRevision(compact));
    for (let r = 0; r < small.length; r++) expect(rows.get(small[r]!)).toBe(r);
    const longer = new Float64Array(2000);
    longer.set(small);
    longer[500] = 2 ** 32;
    const wide = runSync(compactRevisionsSteps(longer.subarray(0, 1000)));
    // Eight bytes, in an array of its own (not a view keeping the longer buffer).
    expect(wide).toBeInstanceOf(Float64Array);
    expect(wide.buffer.byteLength).toBe(8000);
    expect(runSync(rowsByRevision(wide)).get(2 ** 32)).toBe(500);
  });

  it('compacts revisions in steps of 65,536 rows, to the same arrays as in one go', () => {
    const many = Float64Array.from({ length: 150_000 }, (_, r) => r * 7 + 1);
    const steps = compactRevisionsSteps(many);
    let yields = 0;
    let next = steps.next();
    for (; !next.done; next = steps.next()) yields++;
    // The check in three steps, the copy in three more.
    expect(yields).toBeGreaterThanOrEqual(4);
    expect(next.value).toBeInstanceOf(Uint32Array);
    expect(Array.from(next.value)).toEqual(Array.from(many));
    many[140_000] = 2 ** 40;
    const wide = runSync(compactRevisionsSteps(many));
    expect(wide).toBeInstanceOf(Float64Array);
    expect(wide[140_000]).toBe(2 ** 40);
  });
});
