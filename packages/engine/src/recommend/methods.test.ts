import { describe, expect, it } from 'vitest';
import { isAisleError } from '../errors.js';
import { checkParams, METHODS, resolveMethod } from './methods.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isAisleError(err) ? `${err.code}:${String(err.details?.key ?? err.details?.method)}` : 'other';
  }
  return undefined;
}

describe('resolveMethod', () => {
  it('knows the seventeen methods of the spec, case-insensitively', () => {
    expect(METHODS).toHaveLength(17);
    expect(resolveMethod('ProductDetail').name).toBe('ProductDetail');
    expect(resolveMethod('productdetail').name).toBe('ProductDetail');
    expect(codeOf(() => resolveMethod('Nope'))).toBe('UNKNOWN_METHOD:Nope');
    expect(codeOf(() => resolveMethod('bundle'))).toBe('UNKNOWN_METHOD:bundle');
  });
});

describe('checkParams', () => {
  const pd = resolveMethod('ProductDetail');
  it('applies defaults', () => {
    expect(checkParams(pd, { productRef: 'a' }, false)).toEqual({ customerId: undefined, productRef: 'a', productStyleId: undefined, items: [], filterOutOfStock: false, count: 10 });
  });
  it('rejects bad counts', () => {
    for (const count of [0, 101, 2.5, Number.NaN, '3' as unknown as number]) expect(codeOf(() => checkParams(pd, { productRef: 'a', count }, false))).toBe('RECOMMEND_BAD_PARAMS:count');
    expect(checkParams(pd, { productRef: 'a', count: 100 }, false).count).toBe(100);
  });
  it('names missing required parameters', () => {
    expect(codeOf(() => checkParams(pd, {}, false))).toBe('RECOMMEND_BAD_PARAMS:productRef');
    expect(codeOf(() => checkParams(resolveMethod('Cart'), { items: [] }, false))).toBe('RECOMMEND_BAD_PARAMS:items');
    expect(codeOf(() => checkParams(resolveMethod('RecentlyViewed'), {}, false))).toBe('RECOMMEND_BAD_PARAMS:customerId');
    expect(codeOf(() => checkParams(resolveMethod('OnlyVisuallySimilar'), {}, false))).toBe('RECOMMEND_BAD_PARAMS:productRef');
    expect(checkParams(resolveMethod('OnlyVisuallySimilar'), { productStyleId: 's' }, false).productStyleId).toBe('s');
    expect(codeOf(() => checkParams(resolveMethod('VisuallySimilarViewedTogether'), { productRef: 'a' }, true))).toBe('RECOMMEND_BAD_PARAMS:productStyleId');
    expect(checkParams(resolveMethod('PopularItems'), undefined, false).count).toBe(10);
  });
  it('rejects ill-typed parameters', () => {
    expect(codeOf(() => checkParams(pd, { productRef: 5 as unknown as string }, false))).toBe('RECOMMEND_BAD_PARAMS:productRef');
    expect(codeOf(() => checkParams(pd, { productRef: 'a', items: 'x' as unknown as string[] }, false))).toBe('RECOMMEND_BAD_PARAMS:items');
    expect(codeOf(() => checkParams(pd, { productRef: 'a', items: ['x', ''] }, false))).toBe('RECOMMEND_BAD_PARAMS:items[1]');
    expect(codeOf(() => checkParams(pd, { productRef: 'a', filterOutOfStock: 'yes' as unknown as boolean }, false))).toBe('RECOMMEND_BAD_PARAMS:filterOutOfStock');
  });
});
