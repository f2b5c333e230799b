import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCatalog } from '../demo/generate-catalog.js';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { indexReadiness } from './background-build.js';

const site = { websiteId: 'ready-site', client: 'c', tokens: ['t-ready'], hmacSecret: 's' };

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('recommendation index readiness (pure)', () => {
  const base = { built: true, upToDate: false, building: true, builtFrom: 10 };
  it('serves from a previous non-empty index during a rebuild; not before the first build of a loaded catalog; not after a failure', () => {
    expect(indexReadiness('x', base, 20)).toEqual({ ready: true });
    expect(indexReadiness('x', { ...base, builtFrom: 0 }, 20)).toMatchObject({ ready: false, reason: 'x index of the loaded catalog not built yet (building)' });
    expect(indexReadiness('x', { ...base, builtFrom: 0 }, 0)).toEqual({ ready: true });
    expect(indexReadiness('x', { ...base, built: false, builtFrom: 0 }, 20)).toMatchObject({ ready: false, reason: 'x index not built yet (building)' });
    expect(indexReadiness('x', { ...base, error: 'boom' }, 20)).toMatchObject({ ready: false, reason: 'x index build failed: boom' });
    expect(indexReadiness('x', { ...base, upToDate: true, building: false, builtFrom: 0 }, 20)).toEqual({ ready: true });
  });
});

describe('engine.recommendationIndexStatus', () => {
  let engine: Engine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  it('builds the indexes when the catalog is loaded (not at the first look-up), reports ready once built, and answers the same request alike', async () => {
    engine = await createEngine({ workers: 0, websites: [site] });
    expect(engine.recommendationIndexesReady()).toBe(true); // an empty catalog needs nothing
    // Above the in-request limit (1,000 products): built in the background, started by the load itself.
    const products = generateCatalog({ count: 1500, seed: 3 });
    await engine.upsertProducts(site.websiteId, products);
    const status = engine.recommendationIndexStatus();
    expect(status.ready).toBe(false);
    expect(status.reason).toMatch(/^website "ready-site": similar-attributes index of the loaded catalog not built yet/);
    expect(status.websites).toEqual([{ websiteId: 'ready-site', ready: false, reason: expect.any(String) }]);
    // Nobody asks for a recommendation: the builds finish on their own.
    await until(() => engine!.recommendationIndexesReady());
    const seed = products.find((p) => p.image_vector !== undefined)!.refId;
    const first = await engine.recommend(site.websiteId, 'ProductDetail', { productRef: seed });
    expect(first.slots[0]!.tacticLabel).toBe('Visually Similar');
    expect((await engine.recommend(site.websiteId, 'ProductDetail', { productRef: seed })).payload).toEqual(first.payload);
    expect((await engine.recommend(site.websiteId, 'OnlySimilarAttributes', { productRef: seed })).payload.length).toBeGreaterThan(0);

    // A change: the previous index keeps serving (still ready, still answering) until the new one is in.
    await engine.deleteProducts(site.websiteId, [products[0]!.refId]);
    expect(engine.recommendationIndexesReady()).toBe(true);
    expect((await engine.recommend(site.websiteId, 'OnlySimilarAttributes', { productRef: seed })).payload.length).toBeGreaterThan(0);
  }, 60_000);
  it('after a restart, builds the indexes of the restored catalog once the engine is open (not during its start)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'aisle-index-restart-'));
    try {
      const first = await createEngine({ workers: 0, websites: [site], dataDir });
      await first.upsertProducts(site.websiteId, generateCatalog({ count: 1500, seed: 3 }));
      await first.close();
      engine = await createEngine({ workers: 0, websites: [site], dataDir });
      // The builds started when the engine was handed out (their first slice comes on the next turn of
      // the event loop); searches are served meanwhile.
      expect(engine.recommendationIndexStatus().reason).toMatch(/^website "ready-site": similar-attributes index not built yet \(building\)/);
      expect((await engine.search({ website_id: site.websiteId, client: site.client, q: 'shirt', start: 0 })).payload.total_results).toBeGreaterThan(0);
      await until(() => engine!.recommendationIndexesReady());
      await engine.recommend(site.websiteId, 'PopularItems', {}); // waits for the stored events' replay
      expect((await engine.readiness()).ready).toBe(true);
    } finally {
      await engine?.close();
      engine = undefined;
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
