/**
 * Personalized search: the customer's views and purchases (from the recommendation models) lift their
 * brands, categories and products within the same result set; totals and facets do not move; an
 * unknown customer gets the plain order; `customer_id` stays required when personalization is on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import type { Engine } from '../engine-api.js';
import { isAisleError } from '../errors.js';
import type { Product } from '../types.js';
import { affinityOf, affinityProfile, affinityRolesOf, DEFAULT_AFFINITY_ROLES } from './personalize.js';

const site = { websiteId: 'site-p', client: 'client-p', tokens: ['token-p'], hmacSecret: 'secret-p' };
const brands = ['Alpha', 'Beta', 'Gamma', 'Delta'];
// 40 shirts, equal text: the plain order is the catalog order (brands interleaved).
const products: Product[] = Array.from({ length: 40 }, (_, i) => ({
  refId: `s${i}`, title: 'cotton shirt', brand: brands[i % 4], search_category: i < 20 ? 'Formal' : 'Casual', price: 10 + i,
}));

const CUSTOMER = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('affinity profile', () => {
  const byId = new Map(products.map((p) => [p.refId, p]));
  it('weighs purchases over views, newer over older, and reads fields through roles', () => {
    const profile = affinityProfile({ purchased: ['s1'], recent: ['s2'], historic: ['s3', 'gone'] }, (id) => byId.get(id), DEFAULT_AFFINITY_ROLES)!;
    expect(profile.brands.get('Beta')).toBe(1); // s1 bought
    expect(profile.brands.get('Gamma')).toBeCloseTo(0.6); // s2 viewed now
    expect(affinityOf(profile, byId.get('s5')!)).toBeGreaterThan(affinityOf(profile, byId.get('s6')!)); // Beta > Gamma
    expect(affinityOf(profile, byId.get('s1')!)).toBeGreaterThan(affinityOf(profile, byId.get('s5')!)); // the product itself counts
    expect(affinityOf(profile, { refId: 'x', brand: 'Nope' })).toBe(0);
    expect(affinityProfile({ purchased: [], recent: [], historic: [] }, (id) => byId.get(id), DEFAULT_AFFINITY_ROLES)).toBeUndefined();
    // Other roles: a list of category fields (e.g. a path), no brand.
    const custom = affinityProfile({ purchased: [], recent: [], historic: ['a'] }, () => ({ refId: 'a', path: ['Home', 'Lamps'] }), { category: ['path'] })!;
    expect(affinityOf(custom, { refId: 'b', path: ['Garden', 'Lamps'] })).toBeCloseTo(0.4);
    expect(affinityOf(custom, { refId: 'c', path: 'Lamps' })).toBeCloseTo(0.4);
    expect(affinityRolesOf({ brand: 'maker' })).toEqual({ brand: 'maker', category: 'search_category' });
    expect(affinityRolesOf(undefined)).toEqual(DEFAULT_AFFINITY_ROLES);
  });
});

describe('personalized search', () => {
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
  });
  async function open(personalization: unknown): Promise<Engine> {
    const engine = await createEngine({ workers: 0, websites: [{ ...site, settings: { personalization } as never }] });
    engines.push(engine);
    await engine.upsertProducts(site.websiteId, products);
    return engine;
  }
  const search = (engine: Engine, body: Record<string, unknown>) =>
    engine.search({ website_id: site.websiteId, client: site.client, start: 0, q: 'shirt', aggregations: ['brand'], range_fields: ['price'], ...body });

  it('lifts the brand and category the customer viewed and bought; same set, totals and facets', async () => {
    const engine = await open(true);
    const plain = await search(engine, { customer_id: 'never-seen', size: 40 });
    expect(plain.payload.result.map((p) => p.refId)).toEqual(products.map((p) => p.refId));
    await engine.recordViews(site.websiteId, {
      customerId: CUSTOMER, sessionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      events: ['s2', 's26', 's30'].map((refId, i) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: `2026-11-20T09:0${i}:00Z`, refId })),
    });
    const mine = await search(engine, { customer_id: CUSTOMER, size: 40 });
    expect(mine.payload.total_results).toBe(plain.payload.total_results);
    expect(mine.payload.aggregations).toEqual(plain.payload.aggregations);
    expect(mine.payload.ranges).toEqual(plain.payload.ranges);
    expect(mine.payload.result.map((p) => p.refId).sort()).toEqual(plain.payload.result.map((p) => p.refId).sort());
    expect(mine.settings).toEqual({ ranked_by: ['personalization'] }); // no ats_model: personalization is not a semantic model
    // Viewed: Gamma (s2, s26, s30). The blend weighs that against the plain rank (weight 0.3 by default).
    const gammas = (r: typeof mine) => r.payload.result.slice(0, 10).filter((p) => p.brand === 'Gamma').length;
    expect(mine.payload.result[0].brand).toBe('Gamma');
    expect(gammas(plain)).toBe(2);
    expect(gammas(mine)).toBeGreaterThanOrEqual(5);
    const at = (r: typeof mine, id: string) => r.payload.result.findIndex((p) => p.refId === id);
    for (const id of ['s2', 's26', 's30']) expect(at(mine, id)).toBeLessThan(at(plain, id) - 1);
    // Paging: page 2 continues page 1 of the same reordering.
    const p1 = await search(engine, { customer_id: CUSTOMER, size: 7 });
    const p2 = await search(engine, { customer_id: CUSTOMER, start: 7, size: 7 });
    expect([...p1.payload.result, ...p2.payload.result].map((p) => p.refId)).toEqual(mine.payload.result.slice(0, 14).map((p) => p.refId));
    // An explicit sort keeps its order.
    const sorted = await search(engine, { customer_id: CUSTOMER, sort_fields: [{ price: { order: 'desc', type: 'number' } }] });
    expect(sorted.payload.result[0].refId).toBe('s39');
  });

  it('keeps products pinned by merchandising rules at their positions and reorders the others around them', async () => {
    const engine = await createEngine({ workers: 0, websites: [{ ...site, settings: {
      personalization: { weight: 3 }, rules: [{ id: 'pin-s39', query: 'shirt', pin: [{ refId: 's39', position: 1 }, { refId: 's1', position: 4 }] }],
    } }] });
    engines.push(engine);
    await engine.upsertProducts(site.websiteId, products);
    await engine.recordViews(site.websiteId, {
      customerId: CUSTOMER, sessionId: '7c9e6679-7425-40de-944b-e07fc1f90ae9',
      events: ['s2', 's6'].map((refId, i) => ({ currentUrl: `https://shop.example/p/${refId}`, eventTime: `2026-11-20T09:0${i}:00Z`, refId })),
    });
    const r = await search(engine, { customer_id: CUSTOMER, size: 10, highlight: true });
    const ids = r.payload.result.map((p) => p.refId);
    expect(ids[0]).toBe('s39');
    expect(ids[3]).toBe('s1');
    for (const i of [1, 2, 4]) expect(r.payload.result[i].brand).toBe('Gamma');
    expect(r.payload.result[1]._highlight).toBeDefined(); // the page is highlighted after the re-rank
    expect(r.payload.total_results).toBe(40);
  });

  it('a purchase counts more than views; the weight sets how far', async () => {
    const engine = await open({ weight: 0.05 });
    await engine.recordPurchases(site.websiteId, {
      customerId: CUSTOMER, sessionId: '7c9e6679-7425-40de-944b-e07fc1f90ae8',
      events: [{ currentUrl: 'https://shop.example/checkout', eventTime: '2026-11-20T10:00:00Z', orderId: 'o-p1', currencyCode: 'EUR',
        products: [{ refId: 's39', quantity: 1, price: 49 }] }],
    });
    const weak = await search(engine, { customer_id: CUSTOMER, size: 40 });
    const strong = await search(await reopenWith(engine, { weight: 3 }), { customer_id: CUSTOMER, size: 40 });
    const at = (r: typeof weak, id: string) => r.payload.result.findIndex((p) => p.refId === id);
    expect(at(strong, 's39')).toBe(0);
    expect(at(weak, 's39')).toBeGreaterThan(at(strong, 's39'));
    expect(at(weak, 's39')).toBeLessThan(39);
  });

  async function reopenWith(engine: Engine, personalization: unknown): Promise<Engine> {
    await engine.addWebsite({ ...site, settings: { personalization } as never });
    return engine;
  }

  it('keeps customer_id required when personalization is on (the spec), and optional when off', async () => {
    const on = await open(true);
    await expect(search(on, {})).rejects.toSatisfy((e: unknown) => isAisleError(e) && e.code === 'SEARCH_BAD_REQUEST' && /customer_id/.test(e.message));
    const off = await open(false);
    const r = await search(off, { customer_id: CUSTOMER });
    expect(r.payload.result.map((p) => p.refId)).toEqual(products.slice(0, 20).map((p) => p.refId));
  });
});
