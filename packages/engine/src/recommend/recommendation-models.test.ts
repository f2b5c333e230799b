import { describe, expect, it } from 'vitest';
import type { WebsiteConfig } from '../config.js';
import { isAisleError } from '../errors.js';
import { verifyRetailMedia } from '../retail-media/index.js';
import type { CatalogView, Product, PurchaseRecord, RecommendParams } from '../types.js';
import { stableGuid } from '../util/ids.js';
import { METHODS } from './methods.js';
import { RecommendationModels } from './recommendation-models.js';
import { MapCatalog } from './map-catalog.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);
const W = 'site-a';

function website(settings: WebsiteConfig['settings'] = {}): WebsiteConfig {
  return { websiteId: W, client: 'c', tokens: ['t'], hmacSecret: 'top-secret', settings };
}

function products(): Product[] {
  const list: Product[] = [];
  for (let i = 1; i <= 20; i++) {
    list.push({ refId: `p${i}`, title: `Product ${i}`, search_category: i <= 10 ? 'Mugs' : 'Plates', brand: i % 2 ? 'Acme' : 'Zen', price: 10 + i });
  }
  // Products with image vectors and styles.
  list.push({ refId: 'v1', title: 'red shirt', search_category: 'Shirts', image_vector: [1, 0, 0], style_id: 'S1' });
  list.push({ refId: 'v1b', title: 'red shirt L', search_category: 'Shirts', image_vector: [0.99, 0.01, 0], style_id: 'S1' });
  list.push({ refId: 'v2', title: 'pink shirt', search_category: 'Shirts', image_vector: [0.9, 0.1, 0], style_id: 'S2' });
  list.push({ refId: 'v3', title: 'blue shirt', search_category: 'Shirts', image_vector: [0, 1, 0], style_id: 'S3' });
  list.push({ refId: 'oos', title: 'sold out mug', search_category: 'Mugs', availability: 0 });
  list.push({ refId: 'lonely', title: 'Lonely item', search_category: 'Misc' });
  return list;
}

function setup(settings?: WebsiteConfig['settings']) {
  const catalog = new MapCatalog(products());
  const models = new RecommendationModels({ website: website(settings), catalog, now: () => T0 + 30 * DAY, tuning: { popularRefreshMs: 0 } });
  return { catalog, models };
}

let orderNo = 0;
function buy(models: RecommendationModels, customerId: string, refs: string[], time = T0): void {
  const p: PurchaseRecord = { websiteId: W, customerId, sessionId: `s-${customerId}`, orderId: `o${++orderNo}`, eventTime: time, items: refs.map((refId) => ({ refId, quantity: 1, price: 1 })) };
  models.applyPurchase(p);
}

function view(models: RecommendationModels, customerId: string, sessionId: string, refs: string[], time = T0): void {
  refs.forEach((refId, k) => models.applyView({ websiteId: W, customerId, sessionId, refId, eventTime: time + k * 1000 }));
}

function errorOf(fn: () => unknown): { code: string; param?: unknown; status: number } | undefined {
  try {
    fn();
  } catch (err) {
    if (isAisleError(err)) return { code: err.code, param: err.details?.key, status: err.status };
    throw err;
  }
  return undefined;
}

const rec = (models: RecommendationModels, method: string, params: RecommendParams = {}) => models.recommend(method, params);
const labels = (r: { slots: { tacticLabel: string }[] }) => [...new Set(r.slots.map((s) => s.tacticLabel))];
/** The tactic that leads a hybrid's list (later tactics complete it). */
const lead = (r: { slots: { tacticLabel: string }[] }) => r.slots[0]?.tacticLabel;
/** The first n items and the leading tactic. */
const head = (r: { payload: string[]; slots: { tacticLabel: string }[] }, n: number) => ({ payload: r.payload.slice(0, n), lead: lead(r) });

describe('RecommendationModels — response shape', () => {
  it('returns the documented shape with stable ids and one slot per payload entry', () => {
    const { models } = setup();
    buy(models, 'c1', ['p1', 'p2']);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1' });
    expect(r.type).toBe(1);
    expect(r.code).toBe(0);
    expect(r.recommenderId).toBe(stableGuid(W, 'recommender', 'BoughtTogether'));
    expect(r.slots.map((s) => s.refId)).toEqual(r.payload);
    expect(r.slots[0]).toEqual({ refId: 'p2', tacticLabel: 'Bought Together', tacticId: stableGuid(W, 'tactic', 'Bought Together') });
  });

  it('matches method segments case-insensitively and answers every spec method', () => {
    const { models } = setup();
    buy(models, 'c1', ['p1', 'p2']);
    const params: RecommendParams = { customerId: 'c1', productRef: 'p1', items: ['p1'] };
    for (const m of METHODS) {
      const r = rec(models, m.name, params);
      expect(r.recommenderId).toBe(stableGuid(W, 'recommender', m.name));
      expect(rec(models, m.name.toUpperCase(), params).recommenderId).toBe(r.recommenderId);
    }
  });

  it('rejects an unknown method with UNKNOWN_METHOD (404)', () => {
    const { models } = setup();
    expect(errorOf(() => rec(models, 'Bogus'))).toMatchObject({ code: 'UNKNOWN_METHOD', status: 404 });
  });

  it('rejects missing or bad parameters with RECOMMEND_BAD_PARAMS naming them', () => {
    const { models } = setup();
    expect(errorOf(() => rec(models, 'ProductDetail', {}))).toMatchObject({ code: 'RECOMMEND_BAD_PARAMS', param: 'productRef', status: 400 });
    expect(errorOf(() => rec(models, 'Cart', {}))).toMatchObject({ param: 'items' });
    expect(errorOf(() => rec(models, 'Personalized', {}))).toMatchObject({ param: 'customerId' });
    expect(errorOf(() => rec(models, 'PopularItems', { count: 0 }))).toMatchObject({ param: 'count' });
    expect(errorOf(() => rec(models, 'PopularItems', { count: 101 }))).toMatchObject({ param: 'count' });
    expect(errorOf(() => rec(models, 'PopularItems', { count: 1.5 }))).toMatchObject({ param: 'count' });
  });
});

describe('RecommendationModels — single-tactic methods', () => {
  it('PopularItems ranks by purchases within 7 days of the newest event', () => {
    const { models } = setup();
    buy(models, 'a', ['p1'], T0);
    buy(models, 'b', ['p1'], T0);
    buy(models, 'c', ['p1'], T0);
    buy(models, 'a', ['p2'], T0 + 5 * DAY);
    buy(models, 'b', ['p2'], T0 + 5 * DAY);
    buy(models, 'c', ['p3'], T0 + 5 * DAY);
    expect(rec(models, 'PopularItems').payload).toEqual(['p1', 'p2', 'p3']);
    // The newest event moves to T0 + 8 days: p1's purchases fall out of the window.
    buy(models, 'd', ['p4'], T0 + 8 * DAY);
    expect(rec(models, 'PopularItems').payload).toEqual(['p2', 'p3', 'p4']);
    expect(labels(rec(models, 'PopularItems'))).toEqual(['Popular Items']);
  });

  it('purchases outrank views in popularity; views break ties', () => {
    const { models } = setup();
    view(models, 'v', 's1', ['p5', 'p6']);
    view(models, 'w', 's2', ['p6']);
    buy(models, 'x', ['p7']);
    expect(rec(models, 'PopularItems').payload).toEqual(['p7', 'p6', 'p5']);
  });

  it('ViewedTogether returns items viewed in the same sessions, strongest first', () => {
    const { models } = setup();
    view(models, 'a', 's1', ['p1', 'p2', 'p3']);
    view(models, 'b', 's2', ['p1', 'p3']);
    view(models, 'c', 's3', ['p4']);
    const r = rec(models, 'ViewedTogether', { productRef: 'p1' });
    expect(r.payload).toEqual(['p3', 'p2']);
    expect(labels(r)).toEqual(['Viewed Together']);
    expect(rec(models, 'ViewedTogether', { productRef: 'unknown' }).payload).toEqual([]);
  });

  it('ViewedTogether weighs items viewed one right after the other above items merely in the same session', () => {
    const { models } = setup();
    // p1 → p2 → p3 and p1 → p3 → p2 once each: p2 and p3 share p1's sessions alike, but p2 followed p1 directly more often.
    view(models, 'a', 'sa', ['p1', 'p2', 'p3']);
    view(models, 'b', 'sb', ['p1', 'p2', 'p3']);
    view(models, 'c', 'sc', ['p1', 'p3', 'p2']);
    expect(rec(models, 'ViewedTogether', { productRef: 'p1' }).payload).toEqual(['p2', 'p3']);
    const flat = new RecommendationModels({ website: website(), catalog: new MapCatalog(products()), tuning: { viewAdjacencyBonus: 0 } });
    view(flat, 'a', 'sa', ['p1', 'p3', 'p2']);
    view(flat, 'b', 'sb', ['p1', 'p2', 'p3']);
    // Without the bonus: equal counts, ties by sessions overall then id.
    expect(rec(flat, 'ViewedTogether', { productRef: 'p1' }).payload).toEqual(['p2', 'p3']);
  });

  it('ViewedTogether weighs the browsing direction: what shoppers viewed next above what they came from', () => {
    const { models } = setup();
    // p4 was viewed right before p1 (sa), p5 right after it (sb): one adjacency each, in opposite directions.
    view(models, 'a', 'sa', ['p4', 'p1']);
    view(models, 'b', 'sb', ['p1', 'p5']);
    expect(rec(models, 'ViewedTogether', { productRef: 'p1' }).payload).toEqual(['p5', 'p4']);
    const symmetric = new RecommendationModels({ website: website(), catalog: new MapCatalog(products()), tuning: { viewBackwardBonus: 3 } });
    view(symmetric, 'a', 'sa', ['p5', 'p1']);
    view(symmetric, 'b', 'sb', ['p1', 'p4']);
    // Same bonus both ways: equal weights, ties by sessions overall then id.
    expect(rec(symmetric, 'ViewedTogether', { productRef: 'p1' }).payload).toEqual(['p4', 'p5']);
  });

  it('BoughtTogether favours small orders and lists only co-bought items (no popular back-fill)', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'p2']);
    buy(models, 'b', ['p1', 'p3', 'p4', 'p5', 'p6', 'p7']);
    buy(models, 'c', ['p9']);
    buy(models, 'd', ['p9']);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1', count: 10 });
    expect(r.payload[0]).toBe('p2');
    expect(new Set(r.payload)).toEqual(new Set(['p2', 'p3', 'p4', 'p5', 'p6', 'p7']));
    expect(labels(r)).toEqual(['Bought Together']);
    // Never bought with anything, or unknown: nothing (falling back is the hybrids' job).
    expect(rec(models, 'BoughtTogether', { productRef: 'p9' }).payload).toEqual([]);
    expect(rec(models, 'BoughtTogether', { productRef: 'unknown' }).payload).toEqual([]);
  });

  it('BoughtTogether does not list two items that are always bought together side by side (redundancy)', () => {
    const { models } = setup();
    // p2 and p3 come only together with p1; p4 comes with p1 on its own, a little less often.
    for (const c of ['a', 'b', 'c']) buy(models, c, ['p1', 'p2', 'p3']);
    for (const c of ['d', 'e']) buy(models, c, ['p1', 'p4']);
    expect(rec(models, 'BoughtTogether', { productRef: 'p1', count: 3 }).payload).toEqual(['p2', 'p4', 'p3']);
    expect(rec(models, 'ProductDetail', { productRef: 'p1', count: 3 }).payload).toEqual(['p2', 'p4', 'p3']);
    const plain = new RecommendationModels({ website: website(), catalog: new MapCatalog(products()), tuning: { redundancyPenalty: 0 } });
    for (const c of ['a', 'b', 'c']) buy(plain, c, ['p1', 'p2', 'p3']);
    for (const c of ['d', 'e']) buy(plain, c, ['p1', 'p4']);
    expect(rec(plain, 'BoughtTogether', { productRef: 'p1', count: 3 }).payload).toEqual(['p2', 'p3', 'p4']);
  });

  it('Popular Items does not spend two places on items always bought together either', () => {
    const { models } = setup();
    for (const c of ['a', 'b', 'c']) buy(models, c, ['p1', 'p2']);
    for (const c of ['d', 'e']) buy(models, c, ['p3']);
    // p2 sold as often as p1, but only ever with it: the next-best seller takes the second place.
    expect(rec(models, 'PopularItems', { count: 3 }).payload).toEqual(['p1', 'p3', 'p2']);
    const plain = new RecommendationModels({ website: website(), catalog: new MapCatalog(products()), tuning: { redundancyPenalty: 0, popularRefreshMs: 0 } });
    for (const c of ['a', 'b', 'c']) buy(plain, c, ['p1', 'p2']);
    for (const c of ['d', 'e']) buy(plain, c, ['p3']);
    expect(rec(plain, 'PopularItems', { count: 3 }).payload).toEqual(['p1', 'p2', 'p3']);
  });

  it('weighs newer orders more (forward decay, half-life 180 days by default)', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'p2'], T0);
    buy(models, 'b', ['p1', 'p3'], T0 + 200 * DAY);
    expect(rec(models, 'BoughtTogether', { productRef: 'p1', count: 2 }).payload).toEqual(['p3', 'p2']);
    const catalog = new MapCatalog(products());
    const flat = new RecommendationModels({ website: website(), catalog, tuning: { boughtHalfLifeDays: 0 } });
    buy(flat, 'a', ['p1', 'p2'], T0);
    buy(flat, 'b', ['p1', 'p3'], T0 + 200 * DAY);
    expect(rec(flat, 'BoughtTogether', { productRef: 'p1', count: 2 }).payload).toEqual(['p2', 'p3']);
  });

  it('keeps decayed weights in range over many half-lives', () => {
    const catalog = new MapCatalog(products());
    const m = new RecommendationModels({ website: website(), catalog, tuning: { boughtHalfLifeDays: 1, customerCoPurchaseWeight: 0 } });
    buy(m, 'a', ['p1', 'p2'], T0);
    buy(m, 'b', ['p1', 'p3'], T0 + 50 * DAY);
    buy(m, 'c', ['p1', 'p4'], T0 + 100 * DAY); // 100 half-lives after the origin: the table is rescaled
    buy(m, 'd', ['p1', 'p4'], T0 + 100 * DAY);
    expect(rec(m, 'BoughtTogether', { productRef: 'p1', count: 3 }).payload).toEqual(['p4', 'p3', 'p2']);
    // Finite weights: one more old-style pair still ranks below two fresh ones.
    buy(m, 'e', ['p1', 'p3'], T0 + 100 * DAY);
    expect(rec(m, 'BoughtTogether', { productRef: 'p1', count: 3 }).payload).toEqual(['p4', 'p3', 'p2']);
    buy(m, 'f', ['p1', 'p3'], T0 + 100 * DAY);
    buy(m, 'g', ['p1', 'p3'], T0 + 100 * DAY);
    expect(rec(m, 'BoughtTogether', { productRef: 'p1', count: 1 }).payload).toEqual(['p3']);
  });

  it('customer-level co-purchase links items of separate orders of one customer (weaker than same order)', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'p2']);
    buy(models, 'a', ['p3']);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1' });
    expect(r.payload.slice(0, 2)).toEqual(['p2', 'p3']);
    expect(r.slots[1]!.tacticLabel).toBe('Bought Together');
  });

  it('OnlySimilarAttributes ranks by shared category, brand, words', () => {
    const { models } = setup();
    const r = rec(models, 'OnlySimilarAttributes', { productRef: 'p1' });
    expect(r.payload.length).toBeGreaterThan(0);
    expect(r.payload[0]).toBe('p3'); // Mugs + Acme + close price
    for (const ref of r.payload.slice(0, 4)) expect(['p3', 'p5', 'p7', 'p9']).toContain(ref);
    expect(labels(r)).toEqual(['Similar Attributes']);
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'nope' }).payload).toEqual([]);
  });

  it('OnlyVisuallySimilar by product excludes its own style; by style id too; no vector → empty', () => {
    const { models } = setup();
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload).toEqual(['v2', 'v3']);
    expect(rec(models, 'OnlyVisuallySimilar', { productStyleId: 'S1' }).payload).toEqual(['v2', 'v3']);
    expect(rec(models, 'OnlyVisuallySimilar', { productStyleId: 'S3' }).payload[0]).toBe('v2');
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'p1' }).payload).toEqual([]);
    expect(labels(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }))).toEqual(['Visually Similar']);
  });

  it('BoughtTogetherCartContent aggregates the cart items and never returns them', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'p2']);
    buy(models, 'b', ['p3', 'p4']);
    buy(models, 'c', ['p1', 'p3', 'p5']);
    const r = rec(models, 'BoughtTogetherCartContent', { items: ['p1', 'p3'] });
    expect(r.payload).toContain('p2');
    expect(r.payload).toContain('p4');
    expect(r.payload[0]).toBe('p5'); // bought with both
    expect(r.payload).not.toContain('p1');
    expect(r.payload).not.toContain('p3');
    expect(labels(r)).toEqual(['Bought With Cart Contents']);
  });

  it('RecentlyViewed is the latest session, newest first, deduplicated; HistoricViewed the earlier ones (≤ 20)', () => {
    const { models } = setup();
    view(models, 'c1', 's1', ['p1', 'p2', 'p3']);
    view(models, 'c1', 's2', ['p4', 'p5', 'p4'], T0 + DAY);
    expect(rec(models, 'RecentlyViewed', { customerId: 'c1' }).payload).toEqual(['p4', 'p5']);
    expect(rec(models, 'HistoricViewed', { customerId: 'c1' }).payload).toEqual(['p3', 'p2', 'p1']);
    expect(rec(models, 'RecentlyViewed', { customerId: 'stranger' }).payload).toEqual([]);
    expect(rec(models, 'HistoricViewed', { customerId: 'stranger' }).payload).toEqual([]);
    // At most 20 historic items, even when asked for more.
    const many = Array.from({ length: 20 }, (_, i) => `p${i + 1}`);
    view(models, 'c2', 'x1', many.slice(0, 10));
    view(models, 'c2', 'x2', many.slice(10), T0 + DAY);
    view(models, 'c2', 'x3', ['v1', 'v2', 'v3', 'lonely'], T0 + 2 * DAY);
    view(models, 'c2', 'x4', ['oos'], T0 + 3 * DAY);
    const h = rec(models, 'HistoricViewed', { customerId: 'c2', count: 50 });
    expect(h.payload).toHaveLength(20);
    expect(h.payload.slice(0, 4)).toEqual(['lonely', 'v3', 'v2', 'v1']);
    expect(labels(h)).toEqual(['Historic Viewed']);
  });

  it('ViewedTogetherRecentlyViewed and BoughtTogetherRecentlyViewed seed with the latest session', () => {
    const { models } = setup();
    view(models, 'other', 'o1', ['p1', 'p8']);
    buy(models, 'other', ['p2', 'p9']);
    view(models, 'c1', 's1', ['p1', 'p2']);
    const vw = rec(models, 'ViewedTogetherRecentlyViewed', { customerId: 'c1' });
    expect(vw.payload).toEqual(['p8']);
    const bw = rec(models, 'BoughtTogetherRecentlyViewed', { customerId: 'c1' });
    expect(bw.payload).toEqual(['p9']);
    expect(labels(bw)).toEqual(['Bought With Recently Viewed']);
    expect(rec(models, 'BoughtTogetherRecentlyViewed', { customerId: 'nobody' }).payload).toEqual([]);
  });
});

describe('RecommendationModels — cascades', () => {
  it('ProductDetail walks Viewed With → Bought With → Visually Similar → VWRV → BWCC → Recently Viewed → Popular Items', () => {
    const { models } = setup();
    buy(models, 'z', ['p20']); // something popular
    // Popular Items: nothing known about the product, no customer.
    expect(lead(rec(models, 'ProductDetail', { productRef: 'lonely' }))).toBe('Popular Items');
    // Recently Viewed: the customer viewed things (not connected to anything else).
    view(models, 'c1', 's1', ['p17']);
    expect(lead(rec(models, 'ProductDetail', { productRef: 'lonely', customerId: 'c1' }))).toBe('Recently Viewed');
    // Bought With Cart Contents: the cart item was bought with something.
    buy(models, 'y', ['p15', 'p16']);
    const bwcc = rec(models, 'ProductDetail', { productRef: 'lonely', customerId: 'c1', items: ['p15'] });
    expect(lead(bwcc)).toBe('Bought With Cart Contents');
    expect(bwcc.payload[0]).toBe('p16');
    // The later tactics complete the list, each slot naming its tactic.
    // (Recently Viewed only leads: it never pads another tactic's list with what the shopper just saw.)
    expect(labels(bwcc)).toEqual(['Bought With Cart Contents', 'Popular Items']);
    // Viewed With Recently Viewed: the customer's recent item was viewed with another.
    view(models, 'x', 'sx', ['p17', 'p18']);
    expect(head(rec(models, 'ProductDetail', { productRef: 'lonely', customerId: 'c1', items: ['p15'] }), 1).payload).toEqual(['p18']);
    expect(lead(rec(models, 'ProductDetail', { productRef: 'lonely', customerId: 'c1', items: ['p15'] }))).toBe('Viewed With Recently Viewed');
    // Visually Similar: the product has a vector.
    expect(lead(rec(models, 'ProductDetail', { productRef: 'v1', customerId: 'c1' }))).toBe('Visually Similar');
    // Bought With: the product was bought with something.
    buy(models, 'w', ['v1', 'p11']);
    expect(head(rec(models, 'ProductDetail', { productRef: 'v1', customerId: 'c1' }), 1).payload).toEqual(['p11']);
    // Viewed With: the product was viewed with something.
    view(models, 'u', 'su', ['v1', 'p12']);
    const vw = rec(models, 'ProductDetail', { productRef: 'v1', customerId: 'c1' });
    expect(vw.payload.slice(0, 4)).toEqual(['p12', 'p11', 'v2', 'v3']);
    expect(vw.slots.slice(0, 4).map((x) => x.tacticLabel)).toEqual(['Viewed With', 'Bought With', 'Visually Similar', 'Visually Similar']);
    expect(vw.slots[0]!.tacticLabel).toBe('Viewed With');
    expect(vw.slots[0]!.tacticId).toBe(stableGuid(W, 'tactic', 'Viewed With'));
  });

  it('falls through a tactic whose only results are filtered (cart items, input, out of stock)', () => {
    const { models } = setup();
    view(models, 'a', 's', ['p1', 'p2']);
    buy(models, 'b', ['p1', 'p3']);
    // p2 (Viewed With) is in the cart → Bought With wins.
    expect(rec(models, 'ProductDetail', { productRef: 'p1', items: ['p2'] }).payload).toEqual(['p3']);
    view(models, 'c', 's2', ['p4', 'oos']);
    buy(models, 'd', ['p4', 'p5']);
    expect(head(rec(models, 'ProductDetail', { productRef: 'p4' }), 2)).toEqual({ payload: ['oos', 'p5'], lead: 'Viewed With' });
    const filtered = rec(models, 'ProductDetail', { productRef: 'p4', filterOutOfStock: true });
    expect(filtered.payload[0]).toBe('p5');
    expect(filtered.payload).not.toContain('oos');
    expect(lead(filtered)).toBe('Bought With');
  });

  it('ProductDetail and Cart answer a customer with an empty cart from their customer tactics', () => {
    const { models } = setup();
    buy(models, 'z', ['p20']);
    // Unknown customer, nothing else: Popular Items.
    expect(lead(rec(models, 'Cart', { customerId: 'new' }))).toBe('Popular Items');
    expect(lead(rec(models, 'ProductDetail', { customerId: 'new' }))).toBe('Popular Items');
    view(models, 'c1', 's1', ['p7']);
    view(models, 'x', 'sx', ['p7', 'p8']);
    for (const method of ['Cart', 'ProductDetail']) {
      const r = rec(models, method, { customerId: 'c1' });
      expect(head(r, 1)).toEqual({ payload: ['p8'], lead: 'Viewed With Recently Viewed' });
    }
    // Nothing at all is still a bad request, naming the parameter.
    expect(errorOf(() => rec(models, 'Cart', {}))).toMatchObject({ code: 'RECOMMEND_BAD_PARAMS', param: 'items', status: 400 });
    expect(errorOf(() => rec(models, 'ProductDetail', {}))).toMatchObject({ code: 'RECOMMEND_BAD_PARAMS', param: 'productRef', status: 400 });
  });

  it('sets aside the items the customer viewed in the latest session (except in the history tactics)', () => {
    const { models } = setup();
    // Others viewed p1 with p2, p3; the customer already saw p1 and p2 in this session.
    for (let s = 0; s < 3; s++) view(models, `o${s}`, `so${s}`, ['p1', 'p2', 'p3']);
    view(models, 'c1', 's1', ['p2', 'p1']);
    const pd = rec(models, 'ProductDetail', { productRef: 'p1', customerId: 'c1' });
    expect(pd.payload[0]).toBe('p3');
    expect(pd.payload).not.toContain('p2');
    expect(rec(models, 'ViewedTogetherRecentlyViewed', { customerId: 'c1' }).payload).toEqual(['p3']);
    expect(rec(models, 'Personalized', { customerId: 'c1' }).payload).not.toContain('p2');
    expect(rec(models, 'RecentlyViewed', { customerId: 'c1' }).payload).toEqual(['p1', 'p2']);
    // Without the customer the session is unknown: p2 is listed.
    expect(rec(models, 'ProductDetail', { productRef: 'p1' }).payload.slice(0, 2)).toEqual(['p2', 'p3']);
  });

  it('Cart uses the same cascade with the cart items as seeds', () => {
    const { models } = setup();
    buy(models, 'z', ['p20']);
    expect(lead(rec(models, 'Cart', { items: ['lonely'] }))).toBe('Popular Items');
    buy(models, 'b', ['p1', 'p3']);
    expect(head(rec(models, 'Cart', { items: ['p1'] }), 1).payload).toEqual(['p3']);
    expect(lead(rec(models, 'Cart', { items: ['p1'] }))).toBe('Bought With');
    view(models, 'a', 's', ['p1', 'p2']);
    expect(lead(rec(models, 'Cart', { items: ['p1'] }))).toBe('Viewed With');
  });

  it('Personalized: Viewed With Recently Viewed → Bought With Recently Viewed → Recently Viewed → Popular Items', () => {
    const { models } = setup();
    buy(models, 'z', ['p20']);
    expect(lead(rec(models, 'Personalized', { customerId: 'c1' }))).toBe('Popular Items');
    view(models, 'c1', 's1', ['p1']);
    expect(head(rec(models, 'Personalized', { customerId: 'c1' }), 1)).toEqual({ payload: ['p1'], lead: 'Recently Viewed' });
    buy(models, 'o', ['p1', 'p2']);
    expect(head(rec(models, 'Personalized', { customerId: 'c1' }), 1)).toEqual({ payload: ['p2'], lead: 'Bought With Recently Viewed' });
    view(models, 'o', 'so', ['p1', 'p3']);
    expect(head(rec(models, 'Personalized', { customerId: 'c1' }), 1)).toEqual({ payload: ['p3'], lead: 'Viewed With Recently Viewed' });
  });

  it('ViewedTogetherAttributes: Jaccard → Similar Attributes → Popular Items; SimilarAttributesViewedTogether the other way', () => {
    const { models } = setup();
    buy(models, 'z', ['p20']);
    expect(lead(rec(models, 'ViewedTogetherAttributes', { productRef: 'lonely' }))).toBe('Popular Items');
    expect(lead(rec(models, 'ViewedTogetherAttributes', { productRef: 'p1' }))).toBe('Similar Attributes');
    view(models, 'a', 's', ['p1', 'p12']);
    expect(head(rec(models, 'ViewedTogetherAttributes', { productRef: 'p1' }), 1)).toEqual({ payload: ['p12'], lead: 'Jaccard Items Viewed Together' });
    expect(lead(rec(models, 'SimilarAttributesViewedTogether', { productRef: 'p1' }))).toBe('Similar Attributes');
    expect(rec(models, 'SimilarAttributesViewedTogether', { productRef: 'lonely2' }).slots[0]!.tacticLabel).toBe('Popular Items');
  });

  it('Jaccard ranks by overlap relative to both items’ sessions', () => {
    const { models } = setup();
    // p2: viewed with p1 twice but also in 8 other sessions; p3: viewed with p1 twice and nowhere else.
    for (let s = 0; s < 2; s++) view(models, `a${s}`, `s${s}`, ['p1', 'p2', 'p3']);
    for (let s = 0; s < 8; s++) view(models, `b${s}`, `t${s}`, ['p2']);
    expect(rec(models, 'ViewedTogetherAttributes', { productRef: 'p1' }).payload.slice(0, 2)).toEqual(['p3', 'p2']);
  });

  it('ViewedTogetherVisuallySimilar / VisuallySimilarViewedTogether follow their orders and style ids', () => {
    const { models } = setup();
    buy(models, 'z', ['p20']);
    expect(lead(rec(models, 'ViewedTogetherVisuallySimilar', { productRef: 'v1' }))).toBe('Visually Similar');
    expect(lead(rec(models, 'ViewedTogetherVisuallySimilar', { productRef: 'p1' }))).toBe('Popular Items');
    view(models, 'a', 's', ['v1', 'p3']);
    expect(lead(rec(models, 'ViewedTogetherVisuallySimilar', { productRef: 'v1' }))).toBe('Jaccard Items Viewed Together');
    expect(lead(rec(models, 'VisuallySimilarViewedTogether', { productRef: 'v1' }))).toBe('Visually Similar');
    expect(lead(rec(models, 'VisuallySimilarViewedTogether', { productRef: 'p3' }))).toBe('Jaccard Items Viewed Together');
    expect(lead(rec(models, 'VisuallySimilarViewedTogether', { productRef: 'p1' }))).toBe('Popular Items');
  });

  it('requires productStyleId for the visual methods when the website uses style ids', () => {
    const { models } = setup({ useStyleIdForVisualSimilarity: true });
    expect(errorOf(() => rec(models, 'VisuallySimilarViewedTogether', { productRef: 'v1' }))).toMatchObject({ param: 'productStyleId' });
    expect(rec(models, 'VisuallySimilarViewedTogether', { productRef: 'v1', productStyleId: 'S1' }).payload).toEqual(['v2', 'v3']);
  });
});

describe('RecommendationModels — filters and limits', () => {
  it('never returns input products, cart items, deleted or unknown products; count limits the list', () => {
    const { models, catalog } = setup();
    for (let i = 2; i <= 15; i++) buy(models, `c${i}`, ['p1', `p${i}`, 'ghost']);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1', items: ['p2'], count: 5 });
    expect(r.payload).toHaveLength(5);
    expect(r.payload).not.toContain('p1');
    expect(r.payload).not.toContain('p2');
    expect(r.payload).not.toContain('ghost');
    catalog.delete('p3');
    const all = rec(models, 'BoughtTogether', { productRef: 'p1', count: 100 });
    expect(all.payload).not.toContain('p3');
    expect(all.payload).not.toContain('ghost');
    expect(rec(models, 'PopularItems', { count: 100 }).payload).not.toContain('p3');
    expect(rec(models, 'PopularItems', { count: 3 }).payload).toHaveLength(3);
  });

  it('filterOutOfStock drops availability 0 (and only when asked)', () => {
    const { models } = setup();
    buy(models, 'a', ['oos', 'oos', 'p1']);
    expect(rec(models, 'PopularItems').payload).toContain('oos');
    expect(rec(models, 'PopularItems', { filterOutOfStock: true }).payload).not.toContain('oos');
  });

  it('does not pool views without a customer id into one visitor', () => {
    const { models } = setup();
    view(models, '', 'anon-1', ['p1', 'p2']);
    view(models, '', 'anon-2', ['p3', 'p4']);
    expect(rec(models, 'ViewedTogether', { productRef: 'p1' }).payload).toEqual(['p2']);
  });

  it('ignores events of another website', () => {
    const { models } = setup();
    models.applyPurchase({ websiteId: 'other', customerId: 'a', sessionId: 's', orderId: 'x', eventTime: T0, items: [{ refId: 'p1', quantity: 1, price: 1 }] });
    expect(rec(models, 'PopularItems').payload).toEqual([]);
  });

  it('rebuilds attribute and visual indexes when the catalog version changes', () => {
    const { models, catalog } = setup();
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'lonely' }).payload).toEqual([]);
    catalog.upsert({ refId: 'lonely2', title: 'Lonely twin', search_category: 'Misc' });
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'lonely' }).payload).toEqual(['lonely2']);
    // A changed product is re-read (new object); unchanged ones keep their features.
    catalog.upsert({ refId: 'lonely2', title: 'Something else', search_category: 'Plates' });
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'lonely' }).payload).toEqual([]);
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'lonely2' }).payload.slice(0, 1)).toEqual(['p11']);
    expect(rec(models, 'OnlySimilarAttributes', { productRef: 'p1' }).payload[0]).toBe('p3');
    catalog.upsert({ refId: 'v4', title: 'shirt', image_vector: [1, 0, 0.01] });
    expect(rec(models, 'OnlyVisuallySimilar', { productRef: 'v1' }).payload[0]).toBe('v4');
  });
});

describe('RecommendationModels — retail media and boost', () => {
  const adSet = { adSetId: '0F0E0D0C-0000-4000-8000-00000000AD01', version: 2, products: ['p19', 'p9'], costPerClick: 0.25, costPerMille: 4, bannerId: 'b-1' };

  it('places a sponsored product that shares the context category at the slot position, signed', () => {
    const { models } = setup({ retailMedia: { adSets: [adSet] } });
    for (let i = 2; i <= 6; i++) buy(models, `c${i}`, ['p1', `p${i}`]);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1', count: 5 });
    expect(r.payload).toHaveLength(5);
    // p19 is a Plate (no fit with the Mugs context); p9 is a Mug → sponsored at position 2.
    expect(r.payload[2]).toBe('p9');
    const slot = r.slots[2]!;
    expect(slot.tacticLabel).toBe('Retail Media');
    const rm = slot.retailMedia!;
    expect(rm).toMatchObject({ adSetId: adSet.adSetId, adSetVersion: 2, costPerClick: 0.25, costPerMille: 4, bannerId: 'b-1' });
    expect(rm.timeStamp).toBe(new Date(T0 + 30 * DAY).toISOString());
    expect(rm.hmacSalt).toHaveLength(16);
    expect(verifyRetailMedia(rm, rm.hmac, 'top-secret')).toBe(true);
    expect(r.slots.filter((s) => s.retailMedia)).toHaveLength(1);
  });

  it('honours slotPosition, moves a sponsored candidate already in the list, and skips ads that do not fit', () => {
    const { models } = setup({ retailMedia: { adSets: [{ ...adSet, products: ['p4'] }], slotPosition: 0 } });
    for (let i = 2; i <= 6; i++) buy(models, `c${i}`, ['p1', `p${i}`]);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1', count: 5 });
    expect(r.payload[0]).toBe('p4');
    expect(new Set(r.payload).size).toBe(5);
    // The sponsored product is never an input or cart item.
    expect(rec(models, 'BoughtTogether', { productRef: 'p1', items: ['p4'] }).payload).not.toContain('p4');
    // An ad outside the context (a Plate for a Shirts list) is not shown.
    const { models: m2 } = setup({ retailMedia: { adSets: [{ ...adSet, products: ['p19'] }] } });
    const vs = rec(m2, 'OnlyVisuallySimilar', { productRef: 'v1' });
    expect(vs.payload).toEqual(['v2', 'v3']);
    expect(vs.slots.some((s) => s.retailMedia)).toBe(false);
  });

  it('places the sponsored slot per method (settings.retailMedia.placements) and never in a customer\'s own history', () => {
    const settings = { retailMedia: { adSets: [{ ...adSet, products: ['p9'] }], placements: { BoughtTogether: 0, Personalized: false as const } } };
    const { models } = setup(settings);
    for (let i = 2; i <= 6; i++) buy(models, `c${i}`, ['p1', `p${i}`]);
    view(models, 'c1', 's1', ['p1', 'p2', 'p3', 'p4']);
    // A per-method position.
    expect(rec(models, 'BoughtTogether', { productRef: 'p1', count: 5 }).slots[0]!.tacticLabel).toBe('Retail Media');
    // Turned off for one method; the others keep the default position (2).
    expect(rec(models, 'Personalized', { customerId: 'c1' }).slots.some((x) => x.retailMedia)).toBe(false);
    expect(rec(models, 'ProductDetail', { productRef: 'p1', count: 5 }).slots[2]!.tacticLabel).toBe('Retail Media');
    // The customer's own history never carries an ad, whatever the settings.
    for (const method of ['RecentlyViewed', 'HistoricViewed']) {
      view(models, 'c1', 's2', ['p5']);
      const r = rec(models, method, { customerId: 'c1' });
      expect(r.payload.length).toBeGreaterThan(0);
      expect(r.slots.some((x) => x.retailMedia || x.tacticLabel === 'Retail Media')).toBe(false);
    }
  });

  it('marks (and lifts) retailer-boosted products', () => {
    const { models } = setup({ retailBoost: { collections: [{ campaignId: 'CAMPAIGN-1', products: ['p6'] }] } });
    buy(models, 'a', ['p1', 'p2']);
    buy(models, 'b', ['p1', 'p2']);
    buy(models, 'c', ['p1', 'p6']);
    const r = rec(models, 'BoughtTogether', { productRef: 'p1' });
    expect(r.payload.slice(0, 2)).toEqual(['p2', 'p6']);
    expect(r.slots[1]!.retailBoost).toEqual({ retailBoostCollectionCampaignId: 'CAMPAIGN-1' });
    expect(r.slots[0]!.retailBoost).toBeUndefined();
  });

  it('setWebsite applies new settings', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'p2']);
    expect(rec(models, 'BoughtTogether', { productRef: 'p1' }).slots[0]!.retailBoost).toBeUndefined();
    models.setWebsite(website({ retailBoost: { collections: [{ campaignId: 'K', products: ['p2'] }] } }));
    expect(rec(models, 'BoughtTogether', { productRef: 'p1' }).slots[0]!.retailBoost).toEqual({ retailBoostCollectionCampaignId: 'K' });
  });
});

describe('RecommendationModels — bundles', () => {
  it('returns bundles of the inputs plus companions bought with all of them', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'p2', 'p5']);
    buy(models, 'b', ['p1', 'p2', 'p5']);
    buy(models, 'c', ['p1', 'p6']);
    buy(models, 'd', ['p2', 'p7']);
    const r = models.bundles({ product_ref_ids: ['p1', 'p2'] });
    expect(r).toMatchObject({ type: 1, code: 0, recommenderId: stableGuid(W, 'recommender', 'bundle') });
    expect(r.payload).toEqual([['p1', 'p2', 'p5']]);
    const three = models.bundles({ product_ref_ids: ['p1', 'p2'], setCount: 3 });
    expect(three.payload).toHaveLength(3);
    expect(three.payload[0]).toEqual(['p1', 'p2', 'p5']);
    expect(new Set(three.payload.map((b) => b[2])).size).toBe(3);
    for (const b of three.payload) expect(b.slice(0, 2)).toEqual(['p1', 'p2']);
  });

  it('uses count as items per bundle, falls back to viewed-together and popular items, filters stock', () => {
    const { models } = setup();
    buy(models, 'a', ['p1', 'oos']);
    view(models, 'v', 's', ['p1', 'p8']);
    buy(models, 'z', ['p20']);
    const r = models.bundles({ product_ref_ids: ['p1'], count: 4 });
    expect(r.payload).toEqual([['p1', 'oos', 'p8', 'p20']]);
    const f = models.bundles({ product_ref_ids: ['p1'], count: 3, filter_out_of_stock: true });
    expect(f.payload).toEqual([['p1', 'p8', 'p20']]);
  });

  it('validates the body, naming the field', () => {
    const { models } = setup();
    expect(errorOf(() => models.bundles({}))).toMatchObject({ code: 'RECOMMEND_BAD_PARAMS', param: 'product_ref_ids' });
    expect(errorOf(() => models.bundles({ product_ref_ids: ['a'], setCount: -1 }))).toMatchObject({ param: 'setCount' });
    expect(errorOf(() => models.bundles('x'))).toMatchObject({ param: 'body' });
  });

  it('drops inputs unknown to the catalog; empty payload when nothing is known', () => {
    const { models } = setup();
    expect(models.bundles({ product_ref_ids: ['ghost'] }).payload).toEqual([]);
    buy(models, 'a', ['p1', 'p2']);
    expect(models.bundles({ product_ref_ids: ['p1', 'ghost'] }).payload).toEqual([['p1', 'p2']]);
  });
});
