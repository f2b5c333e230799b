/**
 * Pinned field types (`settings.fields`): what fits each type (pure), and through the engine the feed
 * glitch of issue #24 — 2 % of prices "N/A" — with `price` pinned: the bad records are skipped or the
 * load refused, `price` stays numeric and range filters keep working; a settings change that stored
 * products do not fit is refused whole (409).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import type { Product } from '../types.js';
import { firstMismatch, valueFits } from './field-types.js';

describe('valueFits', () => {
  it('takes what each type documents, null and absent always', () => {
    expect([12, '12.50', ' 3 ', -0].every((v) => valueFits('number', v))).toBe(true);
    expect(['N/A', true, [1], {}, '', Infinity].some((v) => valueFits('number', v))).toBe(false);
    expect(['red', '', 12].every((v) => valueFits('text', v))).toBe(true);
    expect([true, ['red'], { a: 1 }, NaN].some((v) => valueFits('text', v))).toBe(false);
    expect(valueFits('boolean', false) && !valueFits('boolean', 'true') && !valueFits('boolean', 0)).toBe(true);
    expect([['a', 3], [], 'a', 7].every((v) => valueFits('text[]', v))).toBe(true);
    expect([[['a']], [true], [{}]].some((v) => valueFits('text[]', v))).toBe(false);
    expect([[1, '2.5'], 4, '4'].every((v) => valueFits('number[]', v))).toBe(true);
    expect([[1, 'x'], 'x', [null]].some((v) => valueFits('number[]', v))).toBe(false);
    for (const type of ['text', 'number', 'boolean', 'text[]', 'number[]'] as const) {
      expect(valueFits(type, null) && valueFits(type, undefined)).toBe(true);
    }
  });

  it('names the first pinned field a product does not fit, never an inherited member', () => {
    const types = { price: { type: 'number' as const }, constructor: { type: 'number' as const } };
    expect(firstMismatch({ refId: 'a', price: 'N/A' }, types)).toEqual({
      refId: 'a', field: 'price', value: 'N/A', message: 'field "price" is pinned to type number and takes a number or a numeric string',
    });
    expect(firstMismatch({ refId: 'b', price: '9.99' }, types)).toBeUndefined();
  });
});

/** A catalog of `n` products, every 50th (2 %) with a price of "N/A" when `glitch`. */
function feed(n: number, glitch: boolean): Product[] {
  return Array.from({ length: n }, (_, i) => ({ refId: `p${i}`, title: `product ${i}`, price: glitch && i % 50 === 7 ? 'N/A' : 10 + (i % 90) }));
}

describe('pinned field types through the engine', () => {
  let engine: Engine;
  const search = (body: Record<string, unknown>) => engine.search({ website_id: 'w', client: 'c', q: '', start: 0, ...body });
  beforeEach(async () => {
    engine = await createEngine({ workers: 0, websites: [{ websiteId: 'w', client: 'c', tokens: ['t-0123456789'], hmacSecret: 's' }] });
  });
  afterEach(() => engine.close());

  it('without a pin, the feed glitch turns price into text (the issue), so range_fields fails', async () => {
    await engine.upsertProducts('w', feed(1000, true));
    await expect(search({ range_fields: ['price'] })).rejects.toMatchObject({ code: 'SEARCH_BAD_REQUEST' });
  });

  it('with price pinned: skipped (onError=skip) or refused whole (reject); price stays numeric', async () => {
    await engine.updateSettings('w', { fields: { price: { type: 'number' } } }, { merge: true });
    await engine.upsertProducts('w', feed(1000, false));
    const summary = await engine.upsertProducts('w', feed(1000, true), { onError: 'skip' });
    expect(summary).toMatchObject({ loaded: 980, skippedCount: 20, catalogSize: 1000 });
    expect(summary.skipped[0]).toEqual({
      line: 8, refId: 'p7', field: 'price', value: 'N/A',
      message: 'product 8: product "p7": field "price" is pinned to type number and takes a number or a numeric string',
    });
    expect(summary.skipped.map((s) => s.line)).toEqual(Array.from({ length: 20 }, (_, i) => 8 + 50 * i));
    // The skipped products keep their stored (numeric) price.
    expect((await engine.getProduct('w', 'p7'))?.price).toBe(17);
    expect((await search({ range_fields: ['price'] })).payload.ranges).toEqual({ price: { min: 10, max: 99 } });
    expect((await search({ range_fields: ['price'], scope: { price: { min: 99 } } })).payload).toMatchObject({ total_results: 11, ranges: { price: { min: 99, max: 99 } } });

    const rejected = await engine.upsertProducts('w', [{ refId: 'new', price: 5 }, { refId: 'p1', price: 'N/A' }, { refId: 'p2', price: [1] }]).catch((e: unknown) => e);
    expect(rejected).toMatchObject({ code: 'CATALOG_BAD_INPUT', problem: { status: 400, records: [{ line: 2, refId: 'p1', field: 'price', value: 'N/A' }, { line: 3, refId: 'p2', value: [1] }] } });
    expect(await engine.getProduct('w', 'new')).toBeUndefined();
    // A patch is checked too: its value would be the merged product's.
    await expect(engine.patchProducts('w', [{ refId: 'p3', price: 'call us' }])).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT' });
    const patched = await engine.patchProducts('w', [{ refId: 'p3', price: null }, { refId: 'p4', price: 'x' }], { onError: 'skip' });
    expect(patched).toMatchObject({ loaded: 1, skipped: [{ line: 2, refId: 'p4', field: 'price', value: 'x' }] });
    expect(await engine.getProduct('w', 'p3')).toEqual({ refId: 'p3', title: 'product 3' });
    // A replace with a bad record changes nothing.
    await expect(engine.replaceProducts('w', [{ refId: 'only', price: 'N/A' }])).rejects.toMatchObject({ code: 'CATALOG_BAD_INPUT' });
    expect((await search({})).payload.total_results).toBe(1000);
  });

  it('refuses (409) a settings change that stored products do not fit, listing up to 100, and changes nothing', async () => {
    await engine.upsertProducts('w', [...feed(10_000, true), { refId: 'flag', title: 'x', price: 1, sale: 'yes' }]);
    const refused = await engine.updateSettings('w', { fields: { price: { type: 'number' } } }, { merge: true }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'FIELD_TYPES_CONFLICT', status: 409, problem: { status: 409 } });
    const records = (refused as { problem: { records: { refId: string }[]; errors: Record<string, string[]> } }).problem.records;
    expect(records).toHaveLength(100);
    expect(records[0]).toEqual({ refId: 'p7', field: 'price', value: 'N/A', message: 'field "price" is pinned to type number and takes a number or a numeric string' });
    expect(Object.keys((refused as { problem: { errors: object } }).problem.errors)).toEqual(['settings.Fields.Price']);
    expect((await engine.getSettings('w')).fields).toEqual({});
    await expect(engine.updateSettings('w', { fields: { sale: { type: 'boolean' } } }, { merge: true })).rejects.toMatchObject({ code: 'FIELD_TYPES_CONFLICT' });
    // Fitting pins are taken; a field no product has may be pinned; refId may not.
    await engine.updateSettings('w', { fields: { title: { type: 'text' }, sale: { type: 'text' }, weight: { type: 'number[]' } } }, { merge: true });
    expect((await engine.getSettings('w')).fields).toEqual({ title: { type: 'text' }, sale: { type: 'text' }, weight: { type: 'number[]' } });
    await expect(engine.updateSettings('w', { fields: { refId: { type: 'number' } } }, { merge: true })).rejects.toMatchObject({ code: 'SETTINGS_INVALID', message: 'settings.fields.refId cannot be pinned: refIds are always text keys' });
    await expect(engine.updateSettings('w', { fields: { price: { type: 'money' } } }, { merge: true })).rejects.toMatchObject({ code: 'SETTINGS_INVALID' });
    // The reserved fields keep their meaning: availability is a number (pinned to text, the in-stock scope
    // {not: [0]} answered 400 on every search), image_vector a vector (facets and scopes never read it).
    await expect(engine.updateSettings('w', { fields: { availability: { type: 'text' } } }, { merge: true })).rejects.toMatchObject({
      code: 'SETTINGS_INVALID', message: 'settings.fields.availability can be pinned only to type number: availability is an integer stock count (0 out of stock)',
    });
    await expect(engine.updateSettings('w', { fields: { image_vector: { type: 'number[]' } } }, { merge: true })).rejects.toMatchObject({
      code: 'SETTINGS_INVALID', message: 'settings.fields.image_vector cannot be pinned: image vectors are for visual similarity, not for facets, scopes or sorts',
    });
    await engine.updateSettings('w', { fields: { availability: { type: 'number' } } }, { merge: true });
    expect((await engine.getSettings('w')).fields).toMatchObject({ availability: { type: 'number' } });
  });
});
