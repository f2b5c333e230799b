import { describe, expect, it } from 'vitest';
import { generateCatalog } from './generate-catalog.js';
import { generateInteractions } from './generate-interactions.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const products = generateCatalog({ count: 3000, seed: 11 });

describe('generateInteractions', () => {
  it('is deterministic for a seed', () => {
    const a = generateInteractions({ products, sessions: 300, seed: 1 });
    const b = generateInteractions({ products, sessions: 300, seed: 1 });
    const c = generateInteractions({ products, sessions: 300, seed: 2 });
    expect(a).toEqual(b);
    expect(a.views[0]!.customerId).not.toBe(c.views[0]!.customerId);
  });

  it('produces wire bodies of the documented shape', () => {
    const now = Date.UTC(2026, 5, 1);
    const { views, purchases } = generateInteractions({ products, sessions: 500, customers: 80, days: 10, seed: 3, now });
    const refIds = new Set(products.map((p) => p.refId));
    expect(views).toHaveLength(500);
    expect(purchases.length).toBeGreaterThan(50);
    expect(purchases.length).toBeLessThan(250);
    const customers = new Set<string>();
    for (const body of views) {
      expect(body.customerId).toMatch(GUID);
      expect(body.sessionId).toMatch(GUID);
      customers.add(body.customerId);
      expect(body.events.length).toBeGreaterThan(0);
      for (const e of body.events) {
        expect(refIds.has(e.refId)).toBe(true);
        expect(e.currentUrl).toMatch(/^https:\/\//);
        expect(new Date(e.eventTime).toISOString()).toBe(e.eventTime);
        const t = Date.parse(e.eventTime);
        expect(t).toBeLessThanOrEqual(now);
        expect(t).toBeGreaterThan(now - 11 * 86_400_000);
      }
    }
    expect(customers.size).toBeLessThanOrEqual(80);
    expect(customers.size).toBeGreaterThan(20);
    const orderIds = new Set<string>();
    for (const body of purchases) {
      expect(body.customerId).toMatch(GUID);
      expect(body.sessionId).toMatch(GUID);
      expect(body.events).toHaveLength(1);
      const e = body.events[0]!;
      expect(orderIds.has(e.orderId)).toBe(false);
      orderIds.add(e.orderId);
      expect(e.currencyCode).toMatch(/^[A-Z]{3}$/);
      expect(typeof e.paymentMethod).toBe('string');
      expect(e.products.length).toBeGreaterThan(0);
      for (const item of e.products) {
        expect(refIds.has(item.refId)).toBe(true);
        expect(Number.isInteger(item.quantity) && item.quantity >= 1).toBe(true);
        expect(typeof item.price).toBe('number');
      }
    }
    // Sessions of one customer share the customerId; every purchase matches a viewed session.
    const sessionsViewed = new Map(views.map((v) => [v.sessionId, v]));
    for (const p of purchases) expect(sessionsViewed.get(p.sessionId)?.customerId).toBe(p.customerId);
  });

  it('browses within a category and buys co-viewed items, so co-occurrence carries signal', () => {
    const { views, purchases } = generateInteractions({ products, sessions: 2000, seed: 5 });
    const category = new Map(products.map((p) => [p.refId, p.search_category]));
    let sameCategoryPairs = 0, pairs = 0;
    for (const body of views) {
      for (let i = 1; i < body.events.length; i++) {
        pairs++;
        if (category.get(body.events[i]!.refId) === category.get(body.events[i - 1]!.refId)) sameCategoryPairs++;
      }
    }
    expect(sameCategoryPairs / pairs).toBeGreaterThan(0.7);
    const viewedIn = new Map(views.map((v) => [v.sessionId, new Set(v.events.map((e) => e.refId))]));
    let boughtViewed = 0, bought = 0;
    const pairCounts = new Map<string, number>();
    for (const body of purchases) {
      const items = body.events[0]!.products.map((x) => x.refId);
      for (const r of items) { bought++; if (viewedIn.get(body.sessionId)!.has(r)) boughtViewed++; }
      for (const a of items) for (const b of items) if (a < b) pairCounts.set(`${a} ${b}`, (pairCounts.get(`${a} ${b}`) ?? 0) + 1);
    }
    expect(boughtViewed / bought).toBeGreaterThan(0.6);
    // Some pairs are bought together repeatedly (companions), not just once by chance.
    expect(Math.max(...pairCounts.values())).toBeGreaterThan(2);
  });

  it('handles an empty catalog', () => {
    expect(generateInteractions({ products: [] })).toEqual({ views: [], purchases: [] });
  });
});
