import { describe, expect, it } from 'vitest';
import type { Product } from '../types.js';
import { ATTRIBUTE_WEIGHTS, AttributeSimilarity, WeightTable, featureReads, isRefinement, productFeatures, resolveFieldRoles } from './attribute-similarity.js';
import { RecommendationModels } from './recommendation-models.js';
import { MapCatalog } from './map-catalog.js';
import { Interner } from './interner.js';

describe('productFeatures', () => {
  it('reads the spec fields by default: category, brand, type, price band, title words and found text attributes', () => {
    const f = productFeatures({
      refId: 'x', title: 'The Red Ceramic Mug', search_category: 'Mugs', brand: 'Acme', type: 'mug',
      price: '12.50', colour: 'Red', height: 'Tall', weightGrams: 350, attributes: { Material: 'Ceramic' }, description: 'ignored', availability: 3, image_vector: [1],
    });
    expect(f.get('c:mugs')).toBe(ATTRIBUTE_WEIGHTS.category);
    expect(f.get('b:acme')).toBe(ATTRIBUTE_WEIGHTS.brand);
    expect(f.get('t:mug')).toBe(ATTRIBUTE_WEIGHTS.type);
    expect(f.get(`p:${Math.floor(Math.log(12.5) / Math.log(1.5))}`)).toBe(ATTRIBUTE_WEIGHTS.priceBand);
    expect(f.get('w:ceramic')).toBe(ATTRIBUTE_WEIGHTS.titleWord);
    expect(f.has('w:the')).toBe(false);
    expect(f.get('a:colour=red')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    // A shop's `height` is an attribute like any other (no data-set-tuned exclusions).
    expect(f.get('a:height=tall')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    expect(f.get('a:attributes.material=ceramic')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    // Found numbers are not attributes (counts, sizes, times); spec identity/stock/text fields never are.
    expect([...f.keys()].some((k) => k.startsWith('a:weightgrams') || k.includes('ignored') || k.startsWith('a:availability'))).toBe(false);
  });

  it('follows the website field roles: named fields, category paths, listed attributes (numbers too), ignore', () => {
    const roles = resolveFieldRoles({ category: 'path', brand: 'maker', type: 'kind', price: 'cost', attributes: ['size', 'attributes.Material'], ignore: ['kind'] });
    const f = productFeatures({
      refId: 'x', title: 'Mug', path: ['Home', 'Kitchen', 'Mugs'], maker: 'Acme', kind: 'mug', cost: 10, size: 42, colour: 'Red',
      search_category: 'Other', brand: 'Other', attributes: { Material: 'Ceramic' },
    }, roles);
    expect(f.get('c:mugs')).toBe(ATTRIBUTE_WEIGHTS.category);
    expect(f.get('c:home')).toBeLessThan(f.get('c:kitchen')!);
    expect(f.get('b:acme')).toBe(ATTRIBUTE_WEIGHTS.brand);
    expect(f.has('t:mug')).toBe(false);
    expect(f.has(`p:${Math.floor(Math.log(10) / Math.log(1.5))}`)).toBe(true);
    expect(f.get('a:size=42')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    expect(f.get('a:attributes.material=ceramic')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    // Only the listed attributes; the spec-named fields the roles replaced are not read.
    expect([...f.keys()].some((k) => k.startsWith('a:colour') || k === 'c:other' || k === 'b:other')).toBe(false);
    expect(featureReads(roles, 'cost')).toBe(true);
    expect(featureReads(roles, 'size')).toBe(true);
    expect(featureReads(roles, 'availability')).toBe(false);
    expect(featureReads(roles, 'kind')).toBe(false);
  });

  it('never reads the image role as an attribute (default image_url, or the field the roles name)', () => {
    const product = { refId: 'x', image_url: '/i/x.jpg', picture: '/p/x.jpg', colour: 'Red' };
    const byDefault = productFeatures(product);
    expect(byDefault.has('a:image_url=/i/x.jpg')).toBe(false);
    expect(byDefault.get('a:picture=/p/x.jpg')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    const named = productFeatures(product, resolveFieldRoles({ image: 'picture' }));
    expect(named.has('a:picture=/p/x.jpg')).toBe(false);
    expect(named.get('a:image_url=/i/x.jpg')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
    expect(named.get('a:colour=red')).toBe(ATTRIBUTE_WEIGHTS.customAttribute);
  });
});

describe('Similar Attributes over field roles', () => {
  const website = (fieldRoles?: object) => ({ websiteId: 'w', client: 'c', tokens: [], hmacSecret: 's', settings: fieldRoles ? { fieldRoles } : {} });
  const catalog = (): MapCatalog => {
    const list: Product[] = [
      { refId: 'hose', title: 'Garden hose 20 m', search_category: 'Garden', price: 20, currency: 'EUR' },
      { refId: 'shirt1', title: 'Blue shirt', search_category: 'Shirts', brand: 'Zen', price: 21, currency: 'EUR' },
      { refId: 'shirt2', title: 'White shirt', search_category: 'Shirts', brand: 'Zen', price: 22, currency: 'EUR' },
      { refId: 'shirt3', title: 'Red shirt', search_category: 'Shirts', brand: 'Acme', price: 90, currency: 'EUR' },
      { refId: 'rake', title: 'Leaf rake', search_category: 'Garden', price: 200, currency: 'EUR' },
    ];
    return new MapCatalog(list);
  };
  const similar = (m: RecommendationModels, ref: string) => m.recommend('OnlySimilarAttributes', { productRef: ref }).payload;

  it('a shared price band alone (or an attribute most of the catalog shares) is not similarity; price refines', () => {
    const m = new RecommendationModels({ website: website(), catalog: catalog() });
    // The hose shares a price band with two shirts and `currency` with everything: only the rake shares an attribute.
    expect(similar(m, 'hose')).toEqual(['rake']);
    // Among shirts, the close price and the brand rank shirt2 first.
    expect(similar(m, 'shirt1')).toEqual(['shirt2', 'shirt3']);
    // The hybrid falls through to its next tactic when nothing shares an attribute.
    const lonely = new MapCatalog([{ refId: 'a', title: 'A thing', search_category: 'X', price: 10 }, { refId: 'b', title: 'B thing', search_category: 'Y', price: 10 }]);
    const m2 = new RecommendationModels({ website: website(), catalog: lonely });
    m2.applyView({ websiteId: 'w', customerId: 'c', sessionId: 's', refId: 'b', eventTime: 1 });
    expect(similar(m2, 'a')).toEqual([]);
    expect(m2.recommend('SimilarAttributesViewedTogether', { productRef: 'a' }).slots[0]!.tacticLabel).toBe('Popular Items');
  });

  it('reads the roles from the website settings, and rebuilds when they change', () => {
    const m = new RecommendationModels({ website: website(), catalog: catalog() });
    expect(similar(m, 'hose')).toEqual(['rake']);
    // Listing `currency` as an attribute makes it one (the website's choice).
    m.setWebsite(website({ attributes: ['currency'] }));
    expect(similar(m, 'hose')).toHaveLength(4);
    // A category role the products do not have: nothing is similar any more.
    m.setWebsite(website({ category: 'department', attributes: [] }));
    expect(similar(m, 'shirt1')).toEqual(['shirt2']);
    m.setWebsite(website());
    expect(similar(m, 'hose')).toEqual(['rake']);
  });
});

describe('WeightTable (feature weights stored as codes)', () => {
  it('gives one code per distinct weight, the float32 weight back, and codes that stay as the table grows', () => {
    const table = new WeightTable();
    const a = table.code(ATTRIBUTE_WEIGHTS.category * (1 / 3) ** 0.6);
    expect(table.code(ATTRIBUTE_WEIGHTS.category * (1 / 3) ** 0.6)).toBe(a);
    const before = table.view();
    for (let i = 1; i <= 500; i++) table.code(i / 7);
    const after = table.view();
    expect(after[a]).toBe(Math.fround(ATTRIBUTE_WEIGHTS.category * (1 / 3) ** 0.6));
    // A view taken before the growth still answers the codes it had.
    expect(before[a]).toBe(after[a]);
    expect(after[table.code(3 / 7)]).toBe(Math.fround(3 / 7));
    expect(table.size).toBe(501);
  });

  it('maps a new weight to the nearest known one once full (never fails a build)', () => {
    const table = new WeightTable();
    for (let i = 0; i < WeightTable.capacity; i++) table.code(i);
    expect(table.size).toBe(WeightTable.capacity);
    expect(table.view()[table.code(41.75)]).toBe(42);
    expect(table.view()[table.code(-3)]).toBe(0);
    expect(table.size).toBe(WeightTable.capacity);
  });

  // More than 256 distinct weights (paths of 1..40 levels) take two-byte codes; the scores stay exact.
  it.each([['one-byte codes', 0], ['two-byte codes', 40]])('scores with the exact weights of category path levels (%s)', (_, deepPaths) => {
    const products: Product[] = [
      { refId: 'a', title: 'x', category: ['Home', 'Kitchen', 'Mugs', 'Tall'], brand: 'Acme' },
      { refId: 'b', title: 'y', category: ['Home', 'Kitchen', 'Mugs'], brand: 'Acme' },
      { refId: 'c', title: 'z', category: ['Garden'], brand: 'Other' },
      ...Array.from({ length: deepPaths as number }, (_, n) => ({ refId: `deep${n}`, title: 'q', category: Array.from({ length: n + 1 }, (_, i) => `d${n}-${i}`), brand: `B${n}` })),
    ];
    const items = new Interner();
    const attributes = new AttributeSimilarity(new MapCatalog(products), items);
    const roles = resolveFieldRoles({ category: 'category' });
    attributes.setFieldRoles({ category: 'category' });
    const got = attributes.similar(items.intern('a'), 10);
    const fa = productFeatures(products[0]!, roles);
    const fb = productFeatures(products[1]!, roles);
    let expected = 0;
    for (const [key, wa] of fa) {
      const wb = fb.get(key);
      if (wb === undefined) continue;
      const df = products.filter((p) => productFeatures(p, roles).has(key)).length;
      expected += Math.fround(Math.log(1 + products.length / df)) * Math.min(Math.fround(wa), Math.fround(wb));
    }
    expect(got.map((g) => items.name(g.item))).toEqual(['b']);
    expect(got[0]!.score).toBeCloseTo(expected, 9);
  });
});

describe('AttributeSimilarity keeps the first maxPosting products of a feature', () => {
  /**
   * The reference: every product's features read again, posting lists cut to their first `cap` products
   * in catalog order (the documented bound of a look-up), anchors first, then refinements adding to the
   * candidates only, in the seed's feature order.
   */
  const reference = (products: Product[], seed: number, cap: number): { ref: string; score: number }[] => {
    const features = products.map((p) => productFeatures(p));
    const lists = new Map<string, number[]>();
    features.forEach((f, r) => { for (const key of f.keys()) { const l = lists.get(key) ?? []; l.push(r); lists.set(key, l); } });
    const scores = new Map<number, number>();
    for (const anchor of [true, false]) {
      for (const [key, w] of features[seed]!) {
        const list = lists.get(key)!;
        const common = !isRefinement(key) && key.startsWith('a:') && list.length * 2 > products.length;
        if ((isRefinement(key) || common) === anchor) continue;
        const first = list.slice(0, cap);
        if (first.length < 2) continue;
        const idf = Math.fround(Math.log(1 + products.length / list.length));
        for (const other of first) {
          if (other === seed || (!anchor && !scores.has(other))) continue;
          scores.set(other, (scores.get(other) ?? 0) + idf * Math.min(Math.fround(w), Math.fround(features[other]!.get(key)!)));
        }
      }
    }
    return [...scores].map(([r, score]) => ({ ref: products[r]!.refId, score, r })).sort((x, y) => y.score - x.score || x.r - y.r).map(({ ref, score }) => ({ ref, score }));
  };

  it.each([
    ['two-byte feature ids', 200, 3, 7],
    // More than 65,536 features (unique title words): four-byte ids.
    ['four-byte feature ids', 2200, 31, 5],
  ])('answers as full lists cut to maxPosting would (%s)', async (_, count, uniqueWords, cap) => {
    const products: Product[] = Array.from({ length: count }, (_, i) => ({
      refId: `p${i}`,
      title: `${['red', 'blue', 'green'][i % 3]} ${['mug', 'cup'][i % 2]} ${Array.from({ length: uniqueWords }, (_, k) => `u${i}x${k}`).join(' ')}`,
      search_category: `cat${i % 4}`, brand: `brand${i % 5}`, price: 10 + (i % 13), colour: ['red', 'blue'][i % 2],
    }));
    const items = new Interner();
    const attributes = new AttributeSimilarity(new MapCatalog(products), items, cap, 10_000, 100);
    await attributes.whenReady();
    const ix = attributes.index.get()!;
    expect(ix.featPairs).toBeInstanceOf(uniqueWords * count > 65_536 ? Int32Array : Uint16Array);
    for (const seed of [0, 1, 7, count - 1]) {
      const got = attributes.similar(items.lookup(`p${seed}`), 50).map((s) => ({ ref: items.name(s.item), score: s.score }));
      expect(got).toEqual(reference(products, seed, cap).slice(0, 50));
    }
  });
});
