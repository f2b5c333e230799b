import { describe, expect, it } from 'vitest';
import { Catalog } from '../catalog.js';
import { MAX_PRODUCT_DEPTH, MAX_PRODUCT_FIELDS, MAX_WORDS_PER_FIELD, productProblem } from './product-limits.js';
import { MAX_REPORTED_SKIPS } from '../../engine-api.js';
import { MAX_ID_LENGTH } from '../../contract/limits.js';
import { badInput } from '../../__tests__/bad-input.js';

/** An object nested `levels` deep, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('product limits', () => {
  it('names the product and the field of each limit', () => {
    expect(productProblem({ refId: 'deep', spec: nested(6000) })).toMatch(/^product "deep": field "spec(\.a)+" is nested deeper than 16 levels$/);
    expect(productProblem({ refId: 'ok', spec: nested(MAX_PRODUCT_DEPTH - 1) })).toBeUndefined();
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i}`).join(' ');
    expect(productProblem({ refId: 'long', title: 't', description: words })).toBe(`product "long": field "description" has more than ${MAX_WORDS_PER_FIELD} words`);
    const many = Object.fromEntries(Array.from({ length: MAX_PRODUCT_FIELDS + 1 }, (_, i) => [`f${i}`, i]));
    expect(productProblem({ refId: 'wide', ...many })).toMatch(/more than 2000 fields/);
    expect(productProblem({ refId: 'arr', tags: new Array(MAX_PRODUCT_FIELDS + 1).fill('t') })).toMatch(/field "tags"/);
    expect(productProblem({ refId: 'big', text: 'x'.repeat(2_000_001) })).toMatch(/more than 2000000 characters/);
    expect(productProblem({ refId: 'v', variants: [{ size: 'M' }, { spec: nested(MAX_PRODUCT_DEPTH) }] })).toMatch(/^product "v": field "variants\[1\]\.spec(\.a)+" is nested deeper than 16 levels$/);
    expect(productProblem({ refId: 'w', variants: [{ size: 'M' }, { notes: [words] }] })).toBe(`product "w": field "variants[1].notes[0]" has more than ${MAX_WORDS_PER_FIELD} words`);
    // Checks share their walk: a problem found never leaks into the next product's.
    expect(productProblem({ refId: 'ok2', variants: [{ size: 'M' }], title: 'x' })).toBeUndefined();
    expect(productProblem([1])).toBe('not a JSON object');
    expect(productProblem({ refId: '' })).toBe('missing or non-string refId');
    // Text events and URLs cannot name; a pair of surrogates (an emoji) is text like any other.
    for (const refId of ['a\u0000', 'b\ud800', '\udc00c']) expect(productProblem({ refId })).toBe('refId must not contain NUL characters or unpaired surrogates (events and URLs could not name the product)');
    expect(productProblem({ refId: 'pan-\ud83c\udf73' })).toBeUndefined();
    // Blank: the events refuse it too ("The RefId field must not be blank."), so it could never be purchased.
    for (const refId of [' ', '\t\n ']) expect(productProblem({ refId })).toBe('refId is blank: events could not name the product');
  });

  it('refuses reserved fields the engine would misread: availability not an integer, image_vector not finite numbers', () => {
    expect(productProblem({ refId: 'a', availability: 'out of stock' })).toBe('product "a": field "availability" must be an integer (0 out of stock, -1 not tracked, more than 0 in stock), not "out of stock"');
    expect(productProblem({ refId: 'a', availability: 1.5 })).toMatch(/field "availability" must be an integer/);
    expect(productProblem({ refId: 'a', availability: Number.NaN })).toMatch(/field "availability" must be an integer/);
    for (const availability of [0, -1, 7, '12', null, undefined]) expect(productProblem({ refId: 'a', availability })).toBeUndefined();
    for (const image_vector of [[], [0.1, Number.POSITIVE_INFINITY], ['0.1'], 0.1]) {
      expect(productProblem({ refId: 'v', image_vector })).toBe('product "v": field "image_vector" must be a non-empty list of finite numbers');
    }
    expect(productProblem({ refId: 'v', image_vector: [0.1, -2, 3e-5] })).toBeUndefined();
    expect(productProblem({ refId: 'v', image_vector: null })).toBeUndefined();
  });

  it('keeps every refId addressable by URL: at most MAX_ID_LENGTH characters (code points)', async () => {
    expect(productProblem({ refId: 'x'.repeat(MAX_ID_LENGTH) })).toBeUndefined();
    // Characters outside the BMP take two UTF-16 units each and still count once.
    expect(productProblem({ refId: '😀'.repeat(MAX_ID_LENGTH) })).toBeUndefined();
    expect(productProblem({ refId: 'x'.repeat(MAX_ID_LENGTH + 1) })).toMatch(new RegExp(`refId is longer than ${MAX_ID_LENGTH} characters$`));
    const catalog = new Catalog();
    const summary = await catalog.upsert([{ refId: 'ok' }, { refId: 'y'.repeat(100_000) }], { onError: 'skip' });
    expect(summary).toMatchObject({ loaded: 1, skippedCount: 1, skipped: [{ line: 2, message: expect.stringContaining('refId is longer than') }] });
    await expect(catalog.upsert([{ refId: 'y'.repeat(100_000) }])).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT' });
    expect(catalog.liveCount).toBe(1);
  });

  it('refuses a hostile product whole (400) and changes nothing; skips it with onError=skip', async () => {
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'mug' }]);
    const hostile = [{ refId: 'b', title: 'fine' }, { refId: 'deep', spec: nested(6000) }];
    await expect(catalog.upsert(hostile)).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT', message: expect.stringContaining('product 2: product "deep": field "spec') });
    expect(catalog.liveCount).toBe(1);
    const summary = await catalog.upsert(hostile, { onError: 'skip' });
    expect(summary).toMatchObject({ loaded: 1, skippedCount: 1, catalogSize: 2 });
    expect(catalog.has('deep')).toBe(false);
  });

  it('indexes a long text below the limit on every build path (no spread of its words)', async () => {
    const words = Array.from({ length: MAX_WORDS_PER_FIELD - 1 }, (_, i) => `w${i}`);
    const catalog = new Catalog();
    await catalog.upsert([{ refId: 'a', title: 'mug', description: words.join(' ') }]);
    // An append of a new product to the existing columns, then a full rebuild (a replace).
    await catalog.upsert([{ refId: 'b', title: 'cup', description: words.slice().reverse().join(' ') }]);
    await catalog.replace([{ refId: 'c', title: 'bowl', description: words.join(' ') }]);
    expect(catalog.liveCount).toBe(1);
  });

  it('answers a bounded summary for many bad records', async () => {
    const bad = Array.from({ length: 50_000 }, () => ({ title: 'no refId' }));
    const summary = await new Catalog().upsert(badInput([...bad, { refId: 'ok' }]), { onError: 'skip' });
    expect(summary.skippedCount).toBe(50_000);
    expect(summary.skipped).toHaveLength(MAX_REPORTED_SKIPS);
    expect(summary.loaded).toBe(1);
  });
});
