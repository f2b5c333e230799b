import { describe, expect, it } from 'vitest';
import { isAisleError } from '../errors.js';
import { assembleBundles, checkBundleBody, MAX_BUNDLE_COUNT } from './bundles.js';

function fieldOf(body: unknown): string | undefined {
  try {
    checkBundleBody(body);
  } catch (err) {
    return isAisleError(err) && err.code === 'RECOMMEND_BAD_PARAMS' ? String(err.details?.key) : 'other';
  }
  return undefined;
}

describe('checkBundleBody', () => {
  it('applies the documented defaults', () => {
    expect(checkBundleBody({ product_ref_ids: ['a', 'b', 'a'] })).toEqual({ productRefIds: ['a', 'b'], setCount: 1, count: 3, filterOutOfStock: false });
  });
  it('names the field at fault', () => {
    expect(fieldOf(null)).toBe('body');
    expect(fieldOf([])).toBe('body');
    expect(fieldOf({})).toBe('product_ref_ids');
    expect(fieldOf({ product_ref_ids: [] })).toBe('product_ref_ids');
    expect(fieldOf({ product_ref_ids: ['a', 3] })).toBe('product_ref_ids[1]');
    expect(fieldOf({ product_ref_ids: ['a'], setCount: 0 })).toBe('setCount');
    expect(fieldOf({ product_ref_ids: ['a'], setCount: 1.5 })).toBe('setCount');
    expect(fieldOf({ product_ref_ids: ['a'], count: 1 })).toBe('count');
    expect(fieldOf({ product_ref_ids: ['a'], count: 'x' })).toBe('count');
    expect(fieldOf({ product_ref_ids: ['a'], filter_out_of_stock: 1 })).toBe('filter_out_of_stock');
    expect(fieldOf({ product_ref_ids: ['a'], setCount: 3, count: 4, filter_out_of_stock: true })).toBeUndefined();
  });
  it('keeps every bundle within MAX_BUNDLE_COUNT items: at most that many minus one distinct inputs', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
    // 100 distinct inputs made bundles of 101 items by default (count at most 100), and any count given a 400.
    expect(fieldOf({ product_ref_ids: ids(MAX_BUNDLE_COUNT) })).toBe('product_ref_ids');
    expect(checkBundleBody({ product_ref_ids: ids(MAX_BUNDLE_COUNT - 1) }).count).toBe(MAX_BUNDLE_COUNT);
    // Repeats count once: 100 entries naming 99 RefIds are fine.
    expect(checkBundleBody({ product_ref_ids: [...ids(MAX_BUNDLE_COUNT - 1), 'p0'] }).count).toBe(MAX_BUNDLE_COUNT);
  });
});

describe('assembleBundles', () => {
  it('keeps the best companions and varies the last one', () => {
    expect(assembleBundles(['i'], ['a', 'b', 'c', 'd'], 2, 3)).toEqual([['i', 'a', 'b'], ['i', 'a', 'c'], ['i', 'a', 'd']]);
    expect(assembleBundles(['i'], ['a', 'b', 'c'], 1, 5)).toEqual([['i', 'a'], ['i', 'b'], ['i', 'c']]);
  });
  it('returns one short bundle when companions are scarce, none when there are none', () => {
    expect(assembleBundles(['i'], ['a'], 3, 2)).toEqual([['i', 'a']]);
    expect(assembleBundles(['i'], [], 1, 2)).toEqual([]);
  });
});
