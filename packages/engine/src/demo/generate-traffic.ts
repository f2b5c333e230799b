/**
 * Demo traffic: shoppers searching (some typing as they go), clicking results at their positions,
 * adding to cart, opening product pages with recommendations, clicking those, and buying — the
 * purchases attributed to the click (`clickId`), the recommender and tactic, a campaign, the search
 * model, retail media and price-beat codes. Everything goes through the engine's public API
 * ({@link TrafficEngine}: search, recommend, clicks, views, purchases, coupons), so the result ids,
 * positions and slots are the engine's own answers and every report (searches, recommendations,
 * attribution) is filled as a real shop would fill it.
 *
 * Deterministic: the same options give the same requests in the same order (the responses depend only on
 * the catalog and the stored history, which the demo seeds first). Event times are the clock's at the
 * time of each call (the result lists and the search log are stamped by the engine's clock anyway).
 * Requests are made in three phases — every search and recommendation one after the other, then the
 * clicks and views, then the purchases (a purchase is attributed to a click already recorded) — and the
 * events of a phase are sent a few at a time, so their durable writes share group commits.
 * @module
 */
import { DEFAULT_FIELD_ROLES } from '../config.js';
import type { Engine } from '../engine-api.js';
import { METHODS } from '../recommend/methods.js';
import type { ClickRequest, Product, PurchaseRequest, RecommendationSlot, ViewRequest } from '../types.js';
import { Random, Zipf, shuffled } from '../util/seeded-random.js';

/** The engine calls the traffic is made of (public API only). */
export type TrafficEngine = Pick<Engine, 'search' | 'recommend' | 'recordClicks' | 'recordViews' | 'recordPurchases' | 'issueCoupons' | 'semanticModel'>;

/** Options of {@link generateTraffic}. */
export interface GenerateTrafficOptions {
  websiteId: string;
  client: string;
  /** The catalog the queries and product pages are drawn from (uses `title` and the default brand and category roles). */
  products: readonly Product[];
  /** Shopper sessions (each a search or a product page). Default 240. */
  sessions?: number;
  /** Seed of the pseudo-random source. Default 1. */
  seed?: number;
  /** Clock of the event times (ms since the epoch). Default `Date.now`. */
  now?: () => number;
  /** Base URL of the shop in `currentUrl`. Default `https://shop.example.com`. */
  shopUrl?: string;
  /** Event requests in flight at once (their writes share group commits). Default 16. */
  concurrency?: number;
}

/** What {@link generateTraffic} sent. */
export interface TrafficSummary {
  /** Search requests, prefixes typed on the way included. */
  searches: number;
  /** Recommendation requests. */
  recommendations: number;
  /** Click events of type `click`. */
  clicks: number;
  /** Click events of type `addToCart`. */
  addToCarts: number;
  /** View events. */
  views: number;
  /** Purchase requests (one order each). */
  purchases: number;
  /** Price-beat codes issued. */
  coupons: number;
}

/** Share of sessions that search (the others open a product page). */
const SEARCH_SESSION_SHARE = 0.6;
/** Share of search sessions whose query is typed letter by letter (a search-as-you-type chain). */
const TYPED_SHARE = 0.35;
/** Share of a typed query's prefixes sent as searches. */
const TYPED_PREFIX_SHARE = 0.5;
/** Share of search sessions searching words the catalog does not hold. */
const NO_RESULT_SHARE = 0.08;
/** Share of searches with results that get a click. */
const SEARCH_CLICK_RATE = 0.7;
/** Share of recommendation responses with items that get a click. */
const RECOMMENDATION_CLICK_RATE = 0.45;
/** Share of the clicks on a recommendation with a sponsored (retail-media) slot that go to that slot. */
const SPONSORED_CLICK_SHARE = 0.3;
/** Share of clicks followed by an add-to-cart of the same item. */
const ADD_TO_CART_RATE = 0.4;
/** Share of clicks that end in a purchase of the clicked item. */
const PURCHASE_RATE = 0.35;
/** Share of purchases carrying a price-beat code. */
const PRICE_BEAT_RATE = 0.15;
/** Share of purchase lines sent with a campaign id. */
const CAMPAIGN_RATE = 0.4;
/** Results a shopper looks at: positions are drawn among the first ones, the first most often. */
const LOOKED_AT = 10;
/** Distinct queries searched (the most popular most often). */
const QUERY_POOL = 60;
/** Recommendation list length asked for. */
const COUNT = 6;
/** The methods a product page calls, besides `ProductDetail` (every method answering for a product alone). */
const PRODUCT_PAGE_METHODS = METHODS.filter((m) => ['productRef', 'productRefOrStyle', 'none'].includes(m.required)).map((m) => m.name);

/** The queries shoppers type: categories, "brand category" and the last words of titles, most frequent first. */
export function demoQueries(products: readonly Product[], random: Random, size = QUERY_POOL): string[] {
  const counts = new Map<string, number>();
  const add = (q: string) => {
    const query = q.trim().toLowerCase();
    if (query.length >= 3) counts.set(query, (counts.get(query) ?? 0) + 1);
  };
  // The category role may name a path of fields: its last (finest) one.
  const categoryRole = DEFAULT_FIELD_ROLES.category;
  const categoryField = Array.isArray(categoryRole) ? categoryRole[categoryRole.length - 1]! : categoryRole;
  for (const p of products) {
    const category = p[categoryField];
    const brand = p[DEFAULT_FIELD_ROLES.brand];
    if (typeof category === 'string') {
      add(category);
      if (typeof brand === 'string') add(`${brand} ${category}`);
    }
    // Words a shopper types: letters (and hyphens) only, so "Set of 2" gives no "of 2".
    const words = typeof p.title === 'string' ? p.title.split(/\s+/).filter((w) => /^[\p{L}-]{3,}$/u.test(w)) : [];
    if (words.length >= 2) add(words.slice(-2).join(' '));
    if (words.length >= 1) add(words[words.length - 1]!);
  }
  // Frequent queries first; a seeded shuffle first so ties do not follow the catalog's order.
  return shuffled([...counts.keys()].sort(), random).sort((a, b) => counts.get(b)! - counts.get(a)!).slice(0, size);
}

/** Words of letters no catalog word is made of (a shopper's typo or a product the shop does not carry). */
function unknownWord(random: Random): string {
  const letters = 'qxzjvwk';
  return Array.from({ length: 7 }, () => letters[random.int(0, letters.length - 1)]).join('');
}

/** One click planned on a result list, and what follows it. */
interface PlannedClick {
  customerId: string;
  sessionId: string;
  refId: string;
  queryId: string;
  position: number;
  clickId: string;
  addToCart: boolean;
  /** The recommendation's ids, on the click and on its purchase line (a recommendation click). */
  recommendation?: { recommenderId: string; tacticId: string };
  /** The purchase line's attribution, when the click ends in a purchase. */
  purchase?: { price: number; atsModel?: string; retailMedia?: RecommendationSlot['retailMedia'] };
}

function priceOf(product: Product | undefined): number {
  const p = product?.[DEFAULT_FIELD_ROLES.price];
  const n = typeof p === 'number' ? p : typeof p === 'string' ? Number(p) : NaN;
  return Number.isFinite(n) && n > 0 ? n : 9.99;
}

/** Runs `tasks` at most `limit` at a time; rejects with the first failure (after the others settle). */
async function inBatches<T>(items: readonly T[], limit: number, task: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) {
    const results = await Promise.allSettled(items.slice(i, i + limit).map(task));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/**
 * Sends the demo's traffic through `engine` for `websiteId` (see the module comment) and returns what
 * was sent. Meant for a demo website's empty store: it adds searches, clicks and purchases to whatever
 * the store holds.
 */
export async function generateTraffic(engine: TrafficEngine, options: GenerateTrafficOptions): Promise<TrafficSummary> {
  const { websiteId, client, products } = options;
  const random = new Random((options.seed ?? 1) * 104_729 + 31);
  const sessions = Math.max(0, Math.floor(options.sessions ?? 240));
  const now = options.now ?? Date.now;
  const shopUrl = (options.shopUrl ?? 'https://shop.example.com').replace(/\/$/, '');
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const summary: TrafficSummary = { searches: 0, recommendations: 0, clicks: 0, addToCarts: 0, views: 0, purchases: 0, coupons: 0 };
  if (products.length === 0 || sessions === 0) return summary;

  const byRef = new Map(products.map((p) => [p.refId, p]));
  const queries = demoQueries(products, random);
  const queryZipf = new Zipf(Math.max(1, queries.length), 1.0);
  const unknown = Array.from({ length: 4 }, () => unknownWord(random));
  const pageProducts = shuffled(products.map((p) => p.refId), random);
  const productZipf = new Zipf(pageProducts.length, 1.0);
  const positionZipf = (n: number) => new Zipf(Math.max(1, Math.min(n, LOOKED_AT)), 1.1);
  const campaigns = Array.from({ length: 3 }, () => random.guid());
  const eventTime = () => new Date(now()).toISOString();
  const clicks: PlannedClick[] = [];
  const views: ViewRequest[] = [];

  // A semantic model still being built would rank the first searches without it: they would name no
  // search model (`ats_model`) for their purchases to be attributed to.
  await engine.semanticModel(websiteId);
  // Phase 1: the searches and recommendations, one after the other (their answers are the engine's).
  for (let s = 0; s < sessions; s++) {
    const customerId = random.guid();
    const sessionId = random.guid();
    const plan = (
      refId: string, queryId: string, position: number, clickRate: number,
      attribution: Omit<NonNullable<PlannedClick['purchase']>, 'price'>, recommendation?: PlannedClick['recommendation'],
    ) => {
      if (!random.chance(clickRate)) return;
      const click: PlannedClick = { customerId, sessionId, refId, queryId, position, clickId: random.guid(), addToCart: random.chance(ADD_TO_CART_RATE) };
      if (recommendation) click.recommendation = recommendation;
      if (random.chance(PURCHASE_RATE)) click.purchase = { price: priceOf(byRef.get(refId)), ...attribution };
      clicks.push(click);
      views.push({ customerId, sessionId, events: [{ currentUrl: `${shopUrl}/p/${encodeURIComponent(refId)}`, eventTime: eventTime(), refId, queryId, position }] });
    };
    if (queries.length > 0 && random.chance(SEARCH_SESSION_SHARE)) {
      const q = random.chance(NO_RESULT_SHARE) ? random.pick(unknown) : queries[queryZipf.sample(random)]!;
      // Typed letter by letter: the prefixes are searches of the session (one chain in the report), about
      // half of them (a storefront debounces keystrokes typed quickly).
      const typed = random.chance(TYPED_SHARE) ? Array.from({ length: q.length - 1 }, (_, i) => q.slice(0, i + 1)).filter(() => random.chance(TYPED_PREFIX_SHARE)) : [];
      let answer;
      for (const text of [...typed, q]) {
        answer = await engine.search({ website_id: websiteId, client, q: text, start: 0, size: 20, customer_id: customerId, session_id: sessionId });
        summary.searches++;
      }
      const result = answer!.payload.result;
      if (result.length === 0) continue;
      const position = 1 + positionZipf(result.length).sample(random);
      plan(result[position - 1]!.refId, answer!.query_id, position, SEARCH_CLICK_RATE, { atsModel: answer!.settings?.ats_model });
    } else {
      const productRef = pageProducts[productZipf.sample(random)]!;
      views.push({ customerId, sessionId, events: [{ currentUrl: `${shopUrl}/p/${encodeURIComponent(productRef)}`, eventTime: eventTime(), refId: productRef }] });
      for (const method of ['ProductDetail', random.pick(PRODUCT_PAGE_METHODS)]) {
        const answer = await engine.recommend(websiteId, method, { productRef, customerId, count: COUNT });
        summary.recommendations++;
        if (answer.payload.length === 0) continue;
        // A sponsored slot draws the eye: it gets a share of the clicks whatever its position.
        const sponsored = answer.slots.findIndex((slot) => slot.retailMedia !== undefined);
        const position = sponsored >= 0 && random.chance(SPONSORED_CLICK_SHARE) ? sponsored + 1 : 1 + positionZipf(answer.payload.length).sample(random);
        const slot = answer.slots[position - 1]!;
        plan(answer.payload[position - 1]!, answer.queryId, position, RECOMMENDATION_CLICK_RATE,
          slot.retailMedia ? { retailMedia: slot.retailMedia } : {}, { recommenderId: answer.recommenderId, tacticId: slot.tacticId });
      }
    }
  }

  // Phase 2: the clicks (an add-to-cart after its click) and the product views they led to.
  await inBatches(clicks, concurrency, async (c) => {
    const at = eventTime();
    const onList = { refId: c.refId, queryId: c.queryId, position: c.position, ...c.recommendation };
    const events: ClickRequest['events'] = [{ eventTime: at, type: 'click', clickId: c.clickId, ...onList }];
    if (c.addToCart) events.push({ eventTime: at, type: 'addToCart', ...onList });
    await engine.recordClicks(websiteId, { customerId: c.customerId, sessionId: c.sessionId, events });
    summary.clicks++;
    if (c.addToCart) summary.addToCarts++;
  });
  await inBatches(views, concurrency, async (body) => {
    await engine.recordViews(websiteId, body);
    summary.views += body.events.length;
  });

  // Phase 3: price-beat codes, then the purchases attributed to the clicks.
  const bought = clicks.filter((c) => c.purchase !== undefined);
  let codeNumber = 0;
  const codes = bought.map(() => (random.chance(PRICE_BEAT_RATE) ? { code: `DEMO-BEAT-${String(++codeNumber).padStart(4, '0')}`, discount: random.int(2, 15) } : undefined));
  const issued = codes.filter((c) => c !== undefined);
  if (issued.length > 0) summary.coupons = (await engine.issueCoupons(websiteId, issued)).issued;
  const orders: PurchaseRequest[] = bought.map((c, i) => {
    const { price, atsModel, retailMedia } = c.purchase!;
    const promotion = codes[i];
    return {
      customerId: c.customerId,
      sessionId: c.sessionId,
      events: [{
        currentUrl: `${shopUrl}/checkout/complete`, eventTime: eventTime(), orderId: `DEMO-${String(i + 1).padStart(6, '0')}`, currencyCode: 'EUR',
        products: [{
          refId: c.refId, quantity: random.chance(0.8) ? 1 : random.int(2, 3), price, clickId: c.clickId,
          ...c.recommendation, ...(atsModel !== undefined && { atsModel }),
          ...(retailMedia !== undefined && { retailMedia }),
          ...(random.chance(CAMPAIGN_RATE) && { campaignId: random.pick(campaigns) }),
        }],
        ...(promotion && { priceBeatPromotions: [promotion] }),
      }],
    };
  });
  await inBatches(orders, concurrency, async (body) => {
    await engine.recordPurchases(websiteId, body);
    summary.purchases++;
  });
  return summary;
}
