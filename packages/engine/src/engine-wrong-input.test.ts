/**
 * The library as a Node service calls it, with what a JavaScript caller can pass where the types say
 * otherwise (no parameters, null, a misspelt option): every public method answers an AisleError with
 * the code of what is wrong (a 4xx, or CONFIG_INVALID), never a TypeError from inside the engine and never a 503
 * STORE_FAILURE, which tells a caller to retry what can never succeed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from './engine.js';
import { isAisleError, type ErrorCode } from './errors.js';
import { badInput } from './__tests__/bad-input.js';
import { MAX_BUNDLE_COUNT, MAX_CART_ITEMS } from './contract/limits.js';

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
      // The cart was bounded only by the HTTP adapter: a library caller's 100,000 items were all read.
      const cart = Array.from({ length: MAX_CART_ITEMS + 1 }, (_, i) => `sku-${i}`);
      await expectBadRequest(() => engine.recommend('shop-1', 'Cart', { items: cart }), 'RECOMMEND_BAD_PARAMS', new RegExp(`items must have at most ${MAX_CART_ITEMS} entries`));
      await expect(engine.recommend('shop-1', 'Cart', { items: cart.slice(0, MAX_CART_ITEMS) })).resolves.toBeDefined();
      // The bundle's inputs are bounded by its schema on this path too.
      const inputs = Array.from({ length: MAX_BUNDLE_COUNT + 1 }, (_, i) => `sku-${i}`);
      await expectBadRequest(() => engine.bundles('shop-1', { product_ref_ids: inputs }), 'RECOMMEND_BAD_PARAMS', new RegExp(`product_ref_ids must have at most ${MAX_BUNDLE_COUNT} entries`));
      // Was a TypeError ("reading 'length'").
      await expectBadRequest(() => engine.getProduct('shop-1', badInput(null)), 'CATALOG_BAD_INPUT', /refId/);
      // A misspelt window answered the report of all time.
      const misspelt = /form: query parameter form is not taken here \(it takes from, to\)/;
      await expectBadRequest(() => engine.attributionReport('shop-1', badInput({ form: '2026-01-01T00:00:00Z' })), 'EVENT_VALIDATION_FAILED', misspelt);
      await expectBadRequest(() => engine.recommendationReport('shop-1', badInput({ form: '2026-01-01T00:00:00Z' })), 'EVENT_VALIDATION_FAILED', misspelt);
      await expectBadRequest(() => engine.searchReport('shop-1', badInput({ limt: 5 })), 'EVENT_VALIDATION_FAILED', /limt: query parameter limt is not taken here \(it takes from, to, limit\)/);
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

  it.runIf(process.platform === 'linux')('refuses a data directory that cannot hold files, naming it, instead of spinning', async () => {
    // Both spun for ever at full CPU in Node's recursive mkdir (/proc answers ENOENT for a new child).
    await expectBadRequest(() => createEngine({ dataDir: '/proc/aisle-no-such', websites: [site], workers: 0 }), 'CONFIG_INVALID',
      /dataDir \/proc\/aisle-no-such cannot hold aisle's files: ENOENT/);
    await expectBadRequest(() => createEngine({ dataDir: '/proc/aisle-no-such', store: { type: 'memory' }, websites: [site], workers: 0 }), 'CONFIG_INVALID',
      /\/proc\/aisle-no-such/);
  });

  it('refuses a website added at run time whose token is an admin token', async () => {
    const engine = await createEngine({ websites: [site], adminTokens: ['an-admin-token'], workers: 0 });
    try {
      // Was added: the new website's token then opened the admin API (createServer reads the engine's adminTokens).
      await expectBadRequest(() => engine.addWebsite({ websiteId: 'shop-2', client: 'shop2', tokens: ['an-admin-token'], hmacSecret: 's' }), 'CONFIG_INVALID',
        /websites\[1\]\.tokens\[0\] is also an admin token/);
      expect(engine.website('shop-2')).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('a second close waits for the shutdown the first one started', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'aisle-close-twice-'));
    try {
      const engine = await createEngine({ dataDir, websites: [site], workers: 0 });
      await engine.replaceProducts('shop-1', [{ refId: 'sku-1', title: 'Linen shirt' }]);
      await engine.recordViews('shop-1', {
        customerId: '7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10', sessionId: '0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21',
        events: [{ currentUrl: 'https://shop.example/p/sku-1', eventTime: new Date().toISOString(), refId: 'sku-1' }],
      });
      void engine.close();
      // It resolved at once, while the first was still writing: a caller that then exited lost the
      // models' checkpoint the shutdown writes (and the snapshot, and the store's last flush).
      await engine.close();
      expect(existsSync(path.join(dataDir, 'catalogs', 'shop-1.aislemodels'))).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
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
