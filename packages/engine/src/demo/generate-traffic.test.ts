import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { generateCatalog } from './generate-catalog.js';
import { generateInteractions } from './generate-interactions.js';
import { demoQueries, generateTraffic, type TrafficEngine } from './generate-traffic.js';
import { Random } from '../util/seeded-random.js';

const products = generateCatalog({ count: 400, seed: 5 });
// The generated orders state EUR: the shop's reports count its revenue in it.
const site = { websiteId: 'shop', client: 'shop', tokens: ['t'], hmacSecret: 'a'.repeat(64), settings: { semanticSearch: true, currency: 'EUR' } };
const dirs: string[] = [];
const engines: Engine[] = [];

/** A real engine on a fresh data directory, with the generated history recorded (as the demo seeds it). */
async function seededEngine(): Promise<Engine> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'aisle-traffic-'));
  dirs.push(dataDir);
  const engine = await createEngine({ dataDir, workers: 0, websites: [site] });
  engines.push(engine);
  await engine.upsertProducts('shop', products);
  const { views, purchases } = generateInteractions({ products, sessions: 150, seed: 5, now: Date.now() });
  for (const body of views) await engine.recordViews('shop', body);
  for (const body of purchases) await engine.recordPurchases('shop', body);
  return engine;
}

/** The engine, with every request the traffic makes written down (method and body, in order). */
function recording(engine: Engine, calls: string[]): TrafficEngine {
  // Event times and GUID-stamped result ids differ between runs; the rest must not.
  const stable = (value: unknown) => JSON.stringify(value, (key, v: unknown) => (key === 'eventTime' || key === 'queryId' || key === 'timeStamp' || key === 'hmac' || key === 'hmacSalt' ? undefined : v));
  return {
    search: (body, options) => { calls.push(`search ${stable(body)}`); return engine.search(body, options); },
    recommend: (websiteId, method, params) => { calls.push(`recommend ${method} ${stable(params)}`); return engine.recommend(websiteId, method, params); },
    recordClicks: (websiteId, body) => { calls.push(`clicks ${stable(body)}`); return engine.recordClicks(websiteId, body); },
    recordViews: (websiteId, body) => { calls.push(`views ${stable(body)}`); return engine.recordViews(websiteId, body); },
    recordPurchases: (websiteId, body) => { calls.push(`purchases ${stable(body)}`); return engine.recordPurchases(websiteId, body); },
    issueCoupons: (websiteId, coupons) => { calls.push(`coupons ${stable(coupons)}`); return engine.issueCoupons(websiteId, coupons); },
    semanticModel: (websiteId) => engine.semanticModel(websiteId),
  };
}

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('generateTraffic', () => {
  it('fills every report through the public API: searches, clicks, recommendations, attributed purchases', async () => {
    const engine = await seededEngine();
    const summary = await generateTraffic(engine, { websiteId: 'shop', client: 'shop', products, seed: 3, sessions: 160 });
    expect(summary.searches).toBeGreaterThan(summary.clicks / 2);
    expect(summary.recommendations).toBeGreaterThan(0);
    expect(summary.addToCarts).toBeGreaterThan(0);
    expect(summary.purchases).toBeGreaterThan(0);
    expect(summary.coupons).toBeGreaterThan(0);

    const searches = await engine.searchReport('shop', { limit: 50 });
    expect(searches.top.length).toBeGreaterThan(0);
    expect(searches.noResults.length).toBeGreaterThan(0);
    expect(searches.noClicks.length).toBeGreaterThan(0);
    expect(searches.top.some((t) => t.clicks > 0 && t.avgClickPosition !== null && t.conversions > 0)).toBe(true);
    // Typed letter by letter, a query counts once: no one-letter prefix is a counted search.
    expect(searches.top.every((t) => t.query.length >= 3)).toBe(true);

    const recommendations = await engine.recommendationReport('shop', {});
    expect(recommendations.methods.map((m) => m.method)).toContain('ProductDetail');
    expect(recommendations.methods.some((m) => m.tactics.some((t) => t.clicks > 0))).toBe(true);

    const attribution = await engine.attributionReport('shop');
    for (const list of ['byRecommender', 'byCampaign', 'byTactic', 'byAtsModel', 'bySearchQuery', 'byRecommendationMethod', 'byClickPosition', 'priceBeat'] as const) {
      expect(attribution[list].length, list).toBeGreaterThan(0);
    }
    expect(attribution.totals.clickAttributedRevenue).toBeGreaterThan(0);
  });

  it('makes the same requests for the same seed and catalog', async () => {
    const runs: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const calls: string[] = [];
      await generateTraffic(recording(await seededEngine(), calls), { websiteId: 'shop', client: 'shop', products, seed: 9, sessions: 60 });
      runs.push(calls);
    }
    expect(runs[0]!.length).toBeGreaterThan(60);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('sends nothing for an empty catalog or no sessions', async () => {
    const engine = await seededEngine();
    const calls: string[] = [];
    const none = { searches: 0, recommendations: 0, clicks: 0, addToCarts: 0, views: 0, purchases: 0, coupons: 0 };
    expect(await generateTraffic(recording(engine, calls), { websiteId: 'shop', client: 'shop', products: [] })).toEqual(none);
    expect(await generateTraffic(recording(engine, calls), { websiteId: 'shop', client: 'shop', products, sessions: 0 })).toEqual(none);
    expect(calls).toEqual([]);
  });
});

describe('demoQueries', () => {
  it('draws words a shopper types from the catalog, most frequent first', () => {
    const queries = demoQueries(products, new Random(1), 30);
    expect(queries).toHaveLength(30);
    expect(new Set(queries).size).toBe(30);
    for (const q of queries) expect(q).not.toMatch(/\d/);
    expect(demoQueries(products, new Random(1), 30)).toEqual(queries);
  });
});
