/**
 * The demo's seeding: on an empty store, the catalog, the history and the live traffic (searches,
 * clicks, attributed orders through the engine's API); on a restart nothing; over products loaded into
 * the demo website by hand, no traffic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '@aisle/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { demoEngineOptions, demoIdentity, seedDemo } from '../src/demo.js';

const dirs: string[] = [];
const open: Engine[] = [];

async function demoEngine(dir: string) {
  const identity = demoIdentity(dir, 200);
  const engine = await createEngine({ ...demoEngineOptions(dir, identity), workers: 0 });
  open.push(engine);
  return { identity, engine };
}

afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('seedDemo', () => {
  it('fills an empty store with the catalog, the history and live traffic; a restart adds nothing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'aisle-demo-seed-'));
    dirs.push(dir);
    const first = await demoEngine(dir);
    const seeded = await seedDemo(first.engine, first.identity);
    expect(seeded.products).toBe(200);
    expect(seeded.traffic!.searches).toBeGreaterThan(0);
    expect(seeded.traffic!.clicks).toBeGreaterThan(0);
    expect(seeded.traffic!.purchases).toBeGreaterThan(0);
    // Every list the dashboard's insights draw has rows on the first start, before anyone used the page.
    const searches = await first.engine.searchReport('demo', {});
    for (const list of ['top', 'noResults', 'noClicks'] as const) expect(searches[list].length, list).toBeGreaterThan(0);
    const recommendations = await first.engine.recommendationReport('demo', {});
    expect(recommendations.methods.some((m) => m.clicks > 0 && m.tactics.some((t) => t.clicks > 0))).toBe(true);
    const attribution = await first.engine.attributionReport('demo');
    for (const list of ['byRecommender', 'byTactic', 'byCampaign', 'byAtsModel', 'bySearchQuery', 'byRecommendationMethod', 'byClickPosition', 'retailMedia', 'priceBeat'] as const) {
      expect(attribution[list].length, list).toBeGreaterThan(0);
    }
    expect(attribution.totals.clickAttributedRevenue).toBeGreaterThan(0);
    // The history ends at the start: the last 30 days hold every order.
    const recent = await first.engine.attributionReport('demo', { from: new Date(Date.now() - 30 * 86_400_000).toISOString() });
    expect(recent.totals.orders).toBe(attribution.totals.orders);
    const stats = await first.engine.stats('demo');
    await first.engine.close();

    const again = await demoEngine(dir);
    expect(await seedDemo(again.engine, again.identity)).toEqual({ products: 0, views: 0, purchases: 0 });
    expect(await again.engine.stats('demo')).toEqual(stats);
  });

  it('sends no traffic over a catalog loaded into the demo website by hand', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'aisle-demo-seed-'));
    dirs.push(dir);
    const { identity, engine } = await demoEngine(dir);
    await engine.upsertProducts('demo', [{ refId: 'OWN-1', title: 'A shop\'s own lamp', price: 10 }, { refId: 'OWN-2', title: 'A shop\'s own chair', price: 20 }]);
    const seeded = await seedDemo(engine, identity);
    expect(seeded.products).toBe(0);
    expect(seeded.traffic).toBeUndefined();
    expect((await engine.searchReport('demo', {})).top).toEqual([]);
  });
});
