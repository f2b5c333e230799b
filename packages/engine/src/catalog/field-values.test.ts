import { describe, expect, it } from 'vitest';
import { RecentKeys } from './field-values.js';

describe('RecentKeys', () => {
  it('gives each product its own keys in order, one array per shape among the recent ones', () => {
    const recent = new RecentKeys();
    const shapes = [['refId', 'title'], ['refId', 'title', 'price'], ['refId', 'price', 'title'], ['refId']];
    const make = (keys: string[], i: number) => Object.fromEntries(keys.map((k) => [k, `${k}${i}`]));
    const seen = new Map<string, readonly string[]>();
    for (let i = 0; i < 200; i++) {
      const keys = shapes[(i * 7) % shapes.length]!;
      const got = recent.of(make(keys, i));
      expect(got).toEqual(keys);
      // Interleaved shapes keep their arrays: the same array for every product of a shape.
      const first = seen.get(keys.join()) ?? got;
      expect(got).toBe(first);
      seen.set(keys.join(), first);
    }
  });

  it('tells apart keys in another order, fewer or more keys, and inherited enumerable ones', () => {
    const recent = new RecentKeys();
    expect(recent.of({ a: 1, b: 2 })).toEqual(['a', 'b']);
    expect(recent.of({ b: 2, a: 1 })).toEqual(['b', 'a']);
    expect(recent.of({ a: 1 })).toEqual(['a']);
    expect(recent.of({ a: 1, b: 2, c: 3 })).toEqual(['a', 'b', 'c']);
    // Its walk gives a, b as a product owning both does: only `a` is its own.
    const inherits = Object.create({ b: 2 }) as Record<string, unknown>;
    inherits.a = 1;
    expect(recent.of(inherits)).toEqual(['a']);
    expect(recent.of({ a: 1, b: 2 })).toEqual(['a', 'b']);
    expect(recent.of(inherits)).toEqual(['a']);
    // More shapes than it keeps: the oldest are dropped, the answers stay right.
    for (let n = 1; n <= 20; n++) {
      const product = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
      expect(recent.of(product)).toEqual(Object.keys(product));
    }
    expect(recent.of({ a: 1, b: 2 })).toEqual(['a', 'b']);
  });
});
