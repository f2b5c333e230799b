/**
 * ProductStore: a catalog version's products kept as stored JSON, with the docs changed by the fast
 * paths kept beside it; every doc reads as JSON gives it, whichever way it is kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Product } from '../types.js';
import { ProductStore } from './product-store.js';
import { StoredJson } from './stored-json.js';

const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('ProductStore', () => {
  it('reads encoded, replaced and appended docs as JSON gives them, sharing the encoded text', () => {
    const products: Product[] = [{ refId: 'a', price: 1 }, { refId: 'b', title: 'x' }, { refId: 'c' }];
    const store = ProductStore.encode(products);
    expect(store.length).toBe(3);
    expect(store.toArray()).toEqual(products);
    const next = store.with([[1, { refId: 'b', title: 'y', price: -0 }]], [{ refId: 'd', gone: undefined }]);
    expect(next.length).toBe(4);
    expect(next.get(1)).toEqual({ refId: 'b', title: 'y', price: 0 });
    expect(Object.is(next.get(1).price, 0)).toBe(true);
    expect(Object.keys(next.get(3))).toEqual(['refId']);
    expect(next.page([3, 0])).toEqual([{ refId: 'd' }, products[0]]);
    // The earlier version is untouched, and only a store with nothing beside its text is "encoded only".
    expect(store.toArray()).toEqual(products);
    expect(store.encodedOnly).toBeInstanceOf(StoredJson);
    expect(next.encodedOnly).toBeUndefined();
    // Replacing an appended doc replaces it where it is.
    expect(next.with([[3, { refId: 'd', n: 2 }]]).get(3)).toEqual({ refId: 'd', n: 2 });
  });

  it('after any sequence of replacements and appends, reads as the same changes applied to an array', () => {
    const product = fc.record({ refId: fc.string(), v: fc.oneof(fc.double(), fc.string(), fc.constant(null)) }, { requiredKeys: ['refId'] });
    const step = fc.oneof(
      fc.record({ replace: fc.nat(), product }),
      fc.record({ append: fc.array(product, { maxLength: 3 }) }),
    );
    fc.assert(fc.property(fc.array(product, { minLength: 1, maxLength: 8 }), fc.array(step, { maxLength: 10 }), (initial, steps) => {
      let store = ProductStore.encode(initial as Product[]);
      const expected = asJson(initial) as Product[];
      for (const s of steps) {
        if ('replace' in s) {
          const doc = s.replace % expected.length;
          store = store.with([[doc, s.product as Product]]);
          expected[doc] = asJson(s.product) as Product;
        } else {
          store = store.with([], s.append as Product[]);
          expected.push(...(asJson(s.append) as Product[]));
        }
      }
      expect(store.toArray()).toEqual(expected);
      const visited: Product[] = [];
      store.forEach((p, d) => { visited[d] = p; });
      expect(visited).toEqual(expected);
    }));
  });
});
