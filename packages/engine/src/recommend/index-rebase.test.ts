/**
 * Derived recommendation indexes after catalog value patches: an index that reads none of the patched
 * fields is carried over to the new version (no rebuild, same answers); one that reads them rebuilds.
 */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import type { Product } from '../types.js';
import { AttributeSimilarity } from './attribute-similarity.js';
import { Interner } from './interner.js';
import { VisualSimilarity } from './visual-similarity.js';

function products(): Product[] {
  return Array.from({ length: 60 }, (_, i) => ({
    refId: `p${i}`, title: `Cotton shirt ${i % 7}`, brand: i % 3 ? 'Acme' : 'Zen', search_category: 'Shirts',
    price: 10 + i, availability: i % 4, image_vector: [1, (i % 10) / 10, (i % 3) / 3], style_id: `S${i % 20}`,
  }));
}

async function setup() {
  const catalog = new Catalog();
  const list = products();
  await catalog.upsert(list);
  const items = new Interner();
  const visual = new VisualSimilarity(catalog, items, { syncLimit: 0 });
  const attributes = new AttributeSimilarity(catalog, items, undefined, undefined, 0);
  await Promise.all([visual.whenReady(), attributes.whenReady()]);
  // A build captures the catalog's products first (the list, or the list in steps): count the captures.
  let captures = 0;
  const liveProducts = catalog.liveProducts.bind(catalog);
  catalog.liveProducts = () => { captures++; return liveProducts(); };
  const liveProductsSteps = catalog.liveProductsSteps.bind(catalog);
  catalog.liveProductsSteps = () => { captures++; return liveProductsSteps(); };
  const answers = (seed: string) => ({
    visual: visual.byProduct(items.intern(seed), 10),
    attributes: attributes.similar(items.intern(seed), 10),
  });
  return { catalog, list, items, visual, attributes, answers, captures: () => captures };
}

describe('recommendation indexes after value patches', () => {
  it('carries both indexes over a stock update (no rebuild, same answers)', async () => {
    const s = await setup();
    const before = s.answers('p1');
    expect(before.visual.length).toBeGreaterThan(0);
    expect(before.attributes.length).toBeGreaterThan(0);
    const version = s.catalog.version;
    await s.catalog.upsert(s.list.slice(0, 30).map((p) => ({ ...p, availability: 9 })));
    expect(s.catalog.version).toBe(version + 1);
    await Promise.all([s.visual.whenReady(), s.attributes.whenReady()]);
    expect(s.visual.upToDate && s.attributes.upToDate).toBe(true);
    expect(s.captures()).toBe(0);
    expect(s.answers('p1')).toEqual(before);
  });

  it('rebuilds the attribute index (price bands) but not the visual one on a price update', async () => {
    const s = await setup();
    await s.catalog.upsert([{ ...s.list[1], price: 1000 }, { ...s.list[2], price: '999.5' }]);
    await Promise.all([s.visual.whenReady(), s.attributes.whenReady()]);
    expect(s.captures()).toBe(1);
    // The rebuilt index equals one built from scratch on the new catalog.
    const fresh = new AttributeSimilarity(s.catalog, s.items, undefined, undefined, 0);
    await fresh.whenReady();
    expect(s.attributes.similar(s.items.intern('p1'), 20)).toEqual(fresh.similar(s.items.intern('p1'), 20));
  });

  it('rebuilds both after any other change (a new vector is a full catalog build)', async () => {
    const s = await setup();
    await s.catalog.upsert([{ ...s.list[1], image_vector: [0, 1, 0] }]);
    await Promise.all([s.visual.whenReady(), s.attributes.whenReady()]);
    expect(s.captures()).toBe(2);
    // Patches after a full build are measured from it: a stock update is carried over again.
    await s.catalog.upsert([{ ...s.list[5], availability: 7 }]);
    await Promise.all([s.visual.whenReady(), s.attributes.whenReady()]);
    expect(s.captures()).toBe(2);
  });
});
