/**
 * `GET /dashboard/config.json`'s fields derived from the engine: the display fields from the website's
 * field roles (defaults filled in), the customer methods from the method table, the demo customers only
 * where the server was given some; and the demo's choice of customers.
 */
import { createEngine, RECOMMEND_METHODS, type Engine } from '@aisle/engine';
import { generateCatalog, generateInteractions } from '@aisle/engine/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardConfig } from '../src/dashboard-config.js';
import { busiestCustomers } from '../src/demo.js';

let engine: Engine;

beforeAll(async () => {
  engine = await createEngine({
    workers: 0,
    websites: [
      { websiteId: 'plain', client: 'plain', tokens: ['t-plain'], hmacSecret: 's' },
      {
        websiteId: 'roles', client: 'roles', tokens: ['t-roles'], hmacSecret: 's',
        settings: { fieldRoles: { category: ['department', 'aisle'], brand: 'maker', price: 'cost', image: 'picture' } },
      },
    ],
  });
});
afterAll(async () => {
  await engine?.close();
});

describe('dashboardConfig', () => {
  it('shows items by the website\'s field roles, the spec\'s names by default', () => {
    const config = dashboardConfig(engine, {});
    const [plain, roles] = config.websites;
    expect(plain).toEqual({
      websiteId: 'plain', client: 'plain', facets: ['brand', 'search_category'], numericFields: ['price'], hierarchies: [],
      displayFields: { title: 'title', price: 'price', image: 'image_url' },
    });
    expect(roles).toEqual({
      websiteId: 'roles', client: 'roles', facets: ['maker', 'department'], numericFields: ['cost'], hierarchies: [],
      displayFields: { title: 'title', price: 'cost', image: 'picture' },
    });
  });

  it('lists the methods whose only input is a customer id, in the spec\'s order', () => {
    const { recommendMethods, customerMethods } = dashboardConfig(engine, {});
    expect(recommendMethods).toEqual(RECOMMEND_METHODS);
    expect(customerMethods).toEqual(['Personalized', 'BoughtTogetherRecentlyViewed', 'ViewedTogetherRecentlyViewed', 'RecentlyViewed', 'HistoricViewed']);
  });

  it('offers demo customers and a search key only for the websites given them', () => {
    const config = dashboardConfig(engine, { searchKeys: { roles: 'sk_x' }, demoCustomers: { roles: ['c1', 'c2'], plain: [] } });
    expect(config.websites.map((w) => [w.websiteId, w.searchKey, w.demoCustomers])).toEqual([
      ['plain', undefined, undefined],
      ['roles', 'sk_x', ['c1', 'c2']],
    ]);
  });
});

describe('busiestCustomers', () => {
  it('picks the customers with the most view sessions, first seen first on ties', () => {
    const session = (customerId: string) => ({ customerId, sessionId: `${customerId}-s`, events: [] });
    expect(busiestCustomers(['a', 'b', 'c', 'b', 'c', 'd', 'c'].map(session), 2)).toEqual(['c', 'b']);
    expect(busiestCustomers(['a', 'b'].map(session), 5)).toEqual(['a', 'b']);
  });

  it('picks, on generated data, customers among those with the most sessions', () => {
    const { views } = generateInteractions({ products: generateCatalog({ count: 200, seed: 3 }), seed: 3 });
    const sessions = new Map<string, number>();
    for (const v of views) sessions.set(v.customerId, (sessions.get(v.customerId) ?? 0) + 1);
    const most = Math.max(...sessions.values());
    const [first] = busiestCustomers(views, 1);
    expect(sessions.get(first!)).toBe(most);
  });
});
