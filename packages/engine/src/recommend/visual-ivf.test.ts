import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../demo/generate-catalog.js';
import { objectProductList } from '../catalog/columns/product-store.js';
import type { CatalogView, Product } from '../types.js';
import { Interner } from './interner.js';
import { VisualSimilarity } from './visual-similarity.js';

/** A catalog over a Map whose version changes on every write. */
function mapCatalog(products: Product[]): CatalogView & { upsert(p: Product): void; remove(refId: string): void } {
  const byRef = new Map(products.map((p) => [p.refId, p]));
  let version = 1;
  return {
    get version() {
      return version;
    },
    get liveCount() {
      return byRef.size;
    },
    has: (r) => byRef.has(r),
    getProduct: (r) => byRef.get(r),
    isInStock: () => true,
    liveProducts: () => objectProductList([...byRef.values()]),
    upsert(p) {
      byRef.set(p.refId, p);
      version++;
    },
    remove(refId) {
      byRef.delete(refId);
      version++;
    },
  };
}

describe('VisualSimilarity — approximate (IVF) index', () => {
  it('has a high recall@10 against the exact scan on generated vectors (threshold forced low)', async () => {
    const products = generateCatalog({ count: 3000, seed: 11 });
    const items = new Interner();
    const visual = new VisualSimilarity(mapCatalog(products), items, { syncLimit: 0, annThreshold: 500 });
    await visual.whenReady();
    expect(visual.approximate).toBe(true);
    const seeds = products.filter((p) => p.image_vector !== undefined).filter((_, i) => i % 10 === 0).map((p) => items.intern(p.refId));
    expect(seeds.length).toBeGreaterThan(100);
    let recall = 0;
    for (const seed of seeds) {
      const approx = visual.byProduct(seed, 10);
      const exact = visual.exactByProduct(seed, 10);
      expect(approx).toHaveLength(exact.length);
      const truth = new Set(exact.map((e) => e.item));
      recall += approx.filter((a) => truth.has(a.item)).length / truth.size;
      // Scores are exact cosines, best first.
      for (let k = 1; k < approx.length; k++) expect(approx[k - 1]!.score).toBeGreaterThanOrEqual(approx[k]!.score);
    }
    expect(recall / seeds.length).toBeGreaterThanOrEqual(0.9);
  });

  it('below the threshold scans exactly', async () => {
    const products = generateCatalog({ count: 300, seed: 3 });
    const visual = new VisualSimilarity(mapCatalog(products), new Interner());
    await visual.whenReady();
    expect(visual.approximate).toBe(false);
  });

  it('a rebuild keeps the lists of unchanged products and files new ones; deleted ones never come back', async () => {
    const products = generateCatalog({ count: 2000, seed: 13 });
    const catalog = mapCatalog(products);
    const items = new Interner();
    const visual = new VisualSimilarity(catalog, items, { syncLimit: 0, annThreshold: 500 });
    await visual.whenReady();
    const seedProduct = products.find((p) => p.image_vector !== undefined)!;
    const seed = items.intern(seedProduct.refId);
    const before = visual.byProduct(seed, 10);
    const gone = items.name(before[0]!.item);
    catalog.remove(gone);
    // A near-copy of the seed's vector under another style: the new best neighbour once indexed.
    const twin: Product = { refId: 'twin', image_vector: (seedProduct.image_vector as number[]).map((x, d) => x + (d === 0 ? 1e-3 : 0)), style_id: 'twin-style' };
    catalog.upsert(twin);
    const during = visual.byProduct(seed, 10).map((r) => items.name(r.item));
    expect(during).not.toContain(gone);
    expect(during).not.toContain('twin');
    await visual.whenReady();
    expect(visual.approximate).toBe(true);
    const after = visual.byProduct(seed, 10).map((r) => items.name(r.item));
    expect(after[0]).toBe('twin');
    expect(after).not.toContain(gone);
  });
});
