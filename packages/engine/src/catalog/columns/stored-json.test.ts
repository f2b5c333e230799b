/**
 * Stored JSON: every product comes back exactly as given (unicode, nesting, numbers, empty objects),
 * in any order, and the bytes held are the UTF-8 texts plus the offsets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Product } from '../../types.js';
import { StoredJson } from './stored-json.js';

describe('StoredJson', () => {
  it('returns each product exactly as given', () => {
    const products: Product[] = [
      { refId: 'A', title: 'Crème brûlée ☕ 𝄞', price: 12.5, tags: ['x', 'ü'], nested: { deep: { deeper: [1, null, true] } } },
      { refId: 'B' },
      { refId: 'C', empty: '', zero: 0, negative: -1e-7, big: 1e300 },
    ];
    const stored = StoredJson.from(products);
    expect(stored.count).toBe(3);
    products.forEach((p, d) => expect(stored.get(d)).toEqual(p));
    expect(stored.page([2, 0])).toEqual([products[2], products[0]]);
    expect(stored.text(1)).toBe('{"refId":"B"}');
    // Keys are kept once per shape: the bytes are the values' JSON arrays, the offsets and the shape ids.
    const valueBytes = products.reduce((n, p) => n + Buffer.byteLength(JSON.stringify(Object.values(p))), 0);
    expect(stored.byteLength).toBe(valueBytes + 4 * 4 + 3 * 4);
    expect(stored.shapeCount).toBe(3);
    expect(Object.keys(stored.get(0))).toEqual(Object.keys(products[0]!));
  });

  it('products sharing their keys share one shape; key order and "__proto__" keys are kept', () => {
    const products = JSON.parse('[{"refId":"a","x":1,"y":"u"},{"refId":"b","x":2,"y":"v"},{"y":"w","refId":"c","x":3},{"refId":"d","__proto__":{"p":1}}]') as Product[];
    const stored = StoredJson.from(products);
    expect(stored.shapeCount).toBe(3);
    products.forEach((p, d) => {
      expect(stored.text(d)).toBe(JSON.stringify(p));
      expect(Object.getPrototypeOf(stored.get(d))).toBe(Object.prototype);
    });
    const undefinedValue = { refId: 'e', gone: undefined, kept: 1 } as unknown as Product;
    expect(StoredJson.from([undefinedValue]).get(0)).toEqual({ refId: 'e', kept: 1 });
  });

  it('an empty list holds nothing', () => {
    const stored = StoredJson.from([]);
    expect(stored.count).toBe(0);
    expect(stored.page([])).toEqual([]);
  });

  it('round-trips random JSON products across buffer growth', () => {
    fc.assert(fc.property(fc.array(fc.record({ refId: fc.string({ minLength: 1 }), v: fc.jsonValue() }), { maxLength: 300 }), (raw) => {
      // JSON's own view of each product (e.g. -0 becomes 0) is what is stored.
      const products = raw.map((p) => JSON.parse(JSON.stringify(p)) as Product);
      const stored = StoredJson.from(products);
      products.forEach((p, d) => expect(stored.get(d)).toEqual(p));
    }), { numRuns: 50 });
  });
});
