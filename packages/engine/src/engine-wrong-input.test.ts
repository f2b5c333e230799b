/**
 * The library as a Node service calls it, with what a JavaScript caller can pass where the types say
 * otherwise (no parameters, null, a misspelt option): every public method answers an AisleError with
 * the code of what is wrong (a 4xx, or CONFIG_INVALID), never a TypeError from inside the engine and never a 503
 * STORE_FAILURE, which tells a caller to retry what can never succeed.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from './engine.js';
import { isAisleError, type ErrorCode } from './errors.js';
import { badInput } from './__tests__/bad-input.js';

const site = { websiteId: 'shop-1', client: 'shop1', tokens: ['a-website-token'], hmacSecret: 'a-secret' };

async function expectBadRequest(call: () => Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  const failure = await call().then(() => undefined, (err: unknown) => err);
  expect(isAisleError(failure), `expected an AisleError ${code}, got ${String(failure)}`).toBe(true);
  if (!isAisleError(failure)) return;
  expect(failure.code).toBe(code);
  if (message) expect(failure.message).toMatch(message);
}

describe('wrong input to the engine\'s methods', () => {
  it('answers AisleErrors naming what is wrong', async () => {
    const engine = await createEngine({ websites: [site], workers: 0 });
    try {
      await engine.replaceProducts('shop-1', [{ refId: 'sku-1', title: 'Linen shirt', price: 49 }]);
      // Was a TypeError ("Cannot read properties of undefined (reading 'customerId')").
      await expectBadRequest(() => engine.recommend('shop-1', 'ProductDetail', badInput(undefined)), 'RECOMMEND_BAD_PARAMS', /productRef/);
      await expectBadRequest(() => engine.recommend('shop-1', 'ProductDetail', badInput(null)), 'RECOMMEND_BAD_PARAMS', /productRef/);
      await expectBadRequest(() => engine.recommend('shop-1', 'PopularItems', { customerId: badInput(5) }), 'RECOMMEND_BAD_PARAMS', /customerId/);
      // Were read as the default (counted) without a word.
      await expectBadRequest(() => engine.recommend('shop-1', 'PopularItems', {}, badInput({ count: false })), 'RECOMMEND_BAD_PARAMS', /options\.count is not a known option/);
      await expectBadRequest(() => engine.recommend('shop-1', 'PopularItems', {}, badInput({ counted: 'no' })), 'RECOMMEND_BAD_PARAMS', /options\.counted must be true or false/);
      // Was a TypeError ("reading 'length'").
      await expectBadRequest(() => engine.getProduct('shop-1', badInput(null)), 'CATALOG_BAD_INPUT', /refId/);
      // Were 503 STORE_FAILURE: a caller would retry forever.
      await expectBadRequest(() => engine.revokeSearchKey('shop-1', badInput(undefined)), 'KEY_BAD_REQUEST');
      // Was a TypeError.
      await expectBadRequest(() => engine.addWebsite(badInput(null)), 'CONFIG_INVALID');
      // Was accepted and loaded as 'reject' without a word.
      await expectBadRequest(() => engine.upsertProducts('shop-1', [{ refId: 'sku-2' }], badInput({ onError: 'skipp' })), 'CATALOG_BAD_INPUT', /onError/);
      await expectBadRequest(() => engine.patchProducts('shop-1', [{ refId: 'sku-1' }], badInput({ onError: 'skipp' })), 'CATALOG_BAD_INPUT', /onError/);
      expect(await engine.getProduct('shop-1', 'sku-2')).toBeUndefined();
      // Said where ("$") but not what.
      await expectBadRequest(() => engine.recordPurchases('shop-1', badInput(null)), 'EVENT_VALIDATION_FAILED', /\$: The request body must be a JSON object/);
    } finally {
      await engine.close();
    }
  });

  it('reads null as "not given" where undefined is allowed', async () => {
    const engine = await createEngine({ websites: [site], workers: 0 });
    try {
      // Were TypeErrors ("reading 'from'", "reading 'forcedScope'").
      expect((await engine.attributionReport('shop-1', badInput(null))).websiteId).toBe('shop-1');
      await expect(engine.searchReport('shop-1', badInput(null))).resolves.toBeDefined();
      await expect(engine.recommendationReport('shop-1', badInput(null))).resolves.toBeDefined();
      await expect(engine.search({ website_id: 'shop-1', client: 'shop1', q: '', start: 0, size: 1 }, badInput(null))).resolves.toBeDefined();
      await expect(engine.recommend('shop-1', 'PopularItems', {}, badInput(null))).resolves.toBeDefined();
      // A key that is no string is no key (it was a 503 STORE_FAILURE).
      expect(await engine.resolveSearchKey(badInput(undefined))).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('refuses engine options that are not an object', async () => {
    // Was a TypeError ("Cannot destructure property 'logger'").
    await expectBadRequest(() => createEngine(badInput(null)), 'CONFIG_INVALID');
  });

  it('closes twice and answers ENGINE_CLOSED after', async () => {
    const engine = await createEngine({ websites: [site], workers: 0 });
    await engine.close();
    await engine.close();
    for (const call of [
      () => engine.search({ website_id: 'shop-1', client: 'shop1', q: '', start: 0, size: 1 }),
      () => engine.recommend('shop-1', 'PopularItems', {}),
      () => engine.upsertProducts('shop-1', [{ refId: 'x' }]),
      () => engine.addWebsite(site),
    ]) {
      const failure = await call().then(() => undefined, (err: unknown) => err);
      expect(isAisleError(failure) && failure.code).toBe('ENGINE_CLOSED');
    }
    expect((await engine.readiness()).ready).toBe(false);
  });
});
