import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { objectProductList } from '../catalog/columns/product-store.js';
import { generateCatalog } from '../demo/generate-catalog.js';
import type { CatalogView, Product } from '../types.js';
import { Interner } from './interner.js';
import { VisualSimilarity } from './visual-similarity.js';

function catalogOf(products: Product[]): CatalogView {
  const map = new Map(products.map((p) => [p.refId, p]));
  return { version: 1, liveCount: map.size, has: (r) => map.has(r), getProduct: (r) => map.get(r), isInStock: () => true, liveProducts: () => objectProductList(products) };
}

describe('VisualSimilarity', () => {
  it('returns the exact cosine top-k over many vectors (heap selection = full sort)', () => {
    let s = 42;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
    const products: Product[] = Array.from({ length: 700 }, (_, i) => ({ refId: `p${i}`, image_vector: Array.from({ length: 7 }, rnd), style_id: i % 50 === 0 ? 'S0' : `s${i}` }));
    products.push({ refId: 'novec', title: 'x' }, { refId: 'bad', image_vector: [1, 2] });
    const items = new Interner();
    const visual = new VisualSimilarity(catalogOf(products), items);
    const seed = items.intern('p0');
    const got = visual.byProduct(seed, 150);
    const norm = (v: number[]) => Math.hypot(...v);
    const q = products[0]!.image_vector as number[];
    const expected = products
      .filter((p) => Array.isArray(p.image_vector) && (p.image_vector as number[]).length === 7 && p.style_id !== 'S0')
      .map((p) => {
        const v = p.image_vector as number[];
        return { refId: p.refId, score: v.reduce((acc, x, d) => acc + x * q[d]!, 0) / (norm(v) * norm(q)) };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, 150);
    expect(got.map((g) => items.name(g.item))).toEqual(expected.map((e) => e.refId));
    for (const [k, g] of got.entries()) expect(g.score).toBeCloseTo(expected[k]!.score, 5);
    expect(visual.byProduct(items.intern('novec'), 10)).toEqual([]);
    expect(visual.byProduct(items.intern('bad'), 10)).toEqual([]);
    // By style: the style's own products are excluded.
    expect(visual.byStyle('S0', 700).some((g) => products.find((p) => p.refId === items.name(g.item))!.style_id === 'S0')).toBe(false);
    expect(visual.byStyle('nope', 10)).toEqual([]);
  });

  it('takes a zero vector for no vector: no image to compare, so never listed as similar nor asked about', () => {
    const products: Product[] = [
      { refId: 'q', image_vector: [1, 0, 0], style_id: 'S' }, { refId: 'near', image_vector: [1, 0.2, 0] }, { refId: 'zero', image_vector: [0, 0, 0], style_id: 'Z' },
      { refId: 'far', image_vector: [0, 1, 0] },
    ];
    const items = new Interner();
    const visual = new VisualSimilarity(catalogOf(products), items);
    // It scored 0 against every image and was listed after the real neighbours ("Visually Similar" to anything).
    expect(visual.byProduct(items.intern('q'), 10).map((g) => items.name(g.item))).toEqual(['near', 'far']);
    expect(visual.byStyle('S', 10).map((g) => items.name(g.item))).toEqual(['near', 'far']);
    expect(visual.byProduct(items.intern('zero'), 10)).toEqual([]);
    expect(visual.byStyle('Z', 10)).toEqual([]);
  });

  it('answers nothing for an item interned after the index was built (row look-up by item id)', () => {
    const products: Product[] = [{ refId: 'a', image_vector: [1, 0] }, { refId: 'b', image_vector: [0.9, 0.1] }];
    const items = new Interner();
    const visual = new VisualSimilarity(catalogOf(products), items);
    expect(visual.byProduct(items.intern('a'), 5).map((g) => items.name(g.item))).toEqual(['b']);
    for (let i = 0; i < 100; i++) items.intern(`later-${i}`);
    expect(visual.byProduct(items.intern('later-99'), 5)).toEqual([]);
    expect(visual.styleOfItem(items.intern('later-99'))).toBeUndefined();
    expect(visual.byProduct(-1, 5)).toEqual([]);
  });

  it('keeps the styles of copied rows across a rebuild, and files new products under known and new styles', () => {
    const products: Product[] = [
      { refId: 'a', image_vector: [1, 0, 0], style_id: 'S' },
      { refId: 'b', image_vector: [0.9, 0.1, 0], style_id: 'S' },
      { refId: 'c', image_vector: [0.8, 0.2, 0] },
      { refId: 'd', image_vector: [0, 1, 0], style_id: 7 },
    ];
    let version = 1;
    let list = products;
    const catalog: CatalogView = {
      get version() { return version; }, get liveCount() { return list.length; }, has: (r) => list.some((p) => p.refId === r),
      getProduct: (r) => list.find((p) => p.refId === r), isInStock: () => true, liveProducts: () => objectProductList(list),
    };
    const items = new Interner();
    const visual = new VisualSimilarity(catalog, items);
    const names = (xs: { item: number }[]) => xs.map((g) => items.name(g.item));
    // The seed's own style is left out.
    expect(names(visual.byProduct(items.intern('a'), 5))).toEqual(['c', 'd']);
    expect(visual.styleOfItem(items.intern('d'))).toBe('7');
    expect(visual.styleOfItem(items.intern('c'))).toBeUndefined();
    // A rebuild (the rows of a..d are copied) with a new product in style S and one in a new style.
    list = [...products, { refId: 'e', image_vector: [0.95, 0.05, 0], style_id: 'S' }, { refId: 'f', image_vector: [0.7, 0.3, 0], style_id: 'T' }];
    version = 2;
    expect(names(visual.byProduct(items.intern('a'), 5))).toEqual(['c', 'f', 'd']);
    expect(names(visual.byStyle('S', 5))).toEqual(['c', 'f', 'd']);
    expect(names(visual.byStyle('T', 5))).toEqual(['c', 'b', 'e', 'a', 'd']);
    expect(visual.styleOfItem(items.intern('e'))).toBe('S');
    expect(visual.styleOfItem(items.intern('b'))).toBe('S');
    expect(visual.byStyle('never', 5)).toEqual([]);
  });

  it("reads a catalog's image vector column in place, answering as over the same products as objects", async () => {
    const products = generateCatalog({ count: 3000, seed: 7 });
    const catalog = new Catalog();
    await catalog.replace(products);
    const objectsOf = (c: Catalog): Product[] => { const list = c.liveProducts(); return Array.from({ length: list.length }, (_, i) => list.get(i)); };
    const same = async (): Promise<void> => {
      for (const annThreshold of [100_000, 500]) {
        const items = new Interner();
        const overCatalog = new VisualSimilarity(catalog, items, { syncLimit: 0, annThreshold });
        const overObjects = new VisualSimilarity(catalogOf(objectsOf(catalog)), items, { syncLimit: 0, annThreshold });
        await overCatalog.whenReady();
        await overObjects.whenReady();
        // No copy of the vectors: the index reads the version's column (43 MB of a copy at 1M products).
        expect(overCatalog.index.get()!.data).toBe(catalog.state.vectors!.data);
        for (let i = 0; i < products.length; i += 97) {
          const seed = items.intern(products[i]!.refId);
          const got = overCatalog.byProduct(seed, 12);
          const want = overObjects.byProduct(seed, 12);
          expect(got.map((g) => g.item)).toEqual(want.map((w) => w.item));
          for (const [k, g] of got.entries()) expect(g.score).toBeCloseTo(want[k]!.score, 6);
          const style = overObjects.styleOfItem(seed);
          if (style !== undefined) expect(overCatalog.byStyle(style, 12).map((g) => g.item)).toEqual(overObjects.byStyle(style, 12).map((g) => g.item));
        }
      }
    };
    await same();
    // After tombstones and appends (live products are no longer docs 0..n-1): a changed vector, a deleted product, a new one.
    await catalog.upsert([{ ...products[5]!, image_vector: products[6]!.image_vector }, { ...products[8]!, refId: 'appended' }]);
    await catalog.delete([products[9]!.refId, products[12]!.refId]);
    await same();
  });
});

