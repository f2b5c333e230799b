import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog/catalog.js';
import { Interner } from './interner.js';
import { ItemStatus } from './item-status.js';

describe('ItemStatus', () => {
  it('follows the catalog from version to version: deletes, stock changes (value patches), new products', async () => {
    const catalog = new Catalog();
    const items = new Interner();
    const status = new ItemStatus(catalog, items);
    await catalog.upsert([{ refId: 'a', availability: 3 }, { refId: 'b', availability: 0 }, { refId: 'c' }]);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((r) => items.intern(r));
    expect([a, b, c, d].map((i) => status.accepts(i, false))).toEqual([true, true, true, false]);
    expect([a, b, c, d].map((i) => status.accepts(i, true))).toEqual([true, false, true, false]);
    // Stock only: the catalog takes it as a value patch, a new version all the same.
    await catalog.upsert([{ refId: 'a', availability: 0 }, { refId: 'b', availability: '2' }]);
    expect([a, b].map((i) => status.accepts(i, true))).toEqual([false, true]);
    await catalog.delete(['c']);
    await catalog.upsert([{ refId: 'd', availability: -1 }]);
    expect([a, b, c, d].map((i) => status.accepts(i, false))).toEqual([true, true, false, true]);
    expect(status.accepts(d, true)).toBe(true);
  });

  it('grows with the interned items', async () => {
    const catalog = new Catalog();
    const items = new Interner();
    const status = new ItemStatus(catalog, items);
    const refs = Array.from({ length: 5000 }, (_, i) => `p${i}`);
    await catalog.upsert(refs.filter((_, i) => i % 2 === 0).map((refId) => ({ refId })));
    const ids = refs.map((r) => items.intern(r));
    expect(ids.filter((i) => status.accepts(i, false)).length).toBe(2500);
  });
});
