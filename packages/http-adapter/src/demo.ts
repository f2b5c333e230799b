/**
 * The demo website of `aisle serve` without a config: generated catalog and interactions recorded
 * through the engine into the embedded store of the data directory. Its identity (tokens, secret)
 * is kept in `<dataDir>/demo.json`, and the data is seeded only when the store has none, so a restart
 * neither changes the tokens nor duplicates the data.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stableGuid, type Engine, type EngineOptions, type ViewRequest, type WebsiteConfig } from '@aisle/engine';
import { generateCatalog, generateInteractions, generateTraffic, type TrafficSummary } from '@aisle/engine/demo';
import { makeDataDirectory } from '@aisle/engine/internal';

/** What `demo.json` holds. */
export interface DemoIdentity {
  websiteId: string;
  client: string;
  token: string;
  adminToken: string;
  hmacSecret: string;
  productCount: number;
  seed: number;
  /** A browser search key of the demo website (created at the first start; see {@link ensureDemoSearchKey}). */
  searchKey?: string;
}

/** The demo's fixed coupon code (issued at seeding, usable once with the coupon call). */
export const DEMO_COUPON = 'DEMO-PRICEBEAT-10';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Where the demo's ids and tokens are kept. */
export function demoIdentityFile(dataDir: string): string {
  return path.join(dataDir, 'demo.json');
}

/** Reads `<dataDir>/demo.json`, creating it (with fresh tokens) the first time. */
export function demoIdentity(dataDir: string, productCount: number): DemoIdentity {
  const file = demoIdentityFile(dataDir);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DemoIdentity;
  const identity: DemoIdentity = {
    websiteId: 'demo', client: 'demo', token: `demo-${hex(16)}`, adminToken: `admin-${hex(16)}`, hmacSecret: hex(32), productCount, seed: 42,
  };
  makeDataDirectory(dataDir);
  writeFileSync(file, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  return identity;
}

/** The demo website's configuration (retail media on a few products so slot data shows up; one result per style). */
export function demoWebsite(identity: DemoIdentity): WebsiteConfig {
  const sponsored = generateCatalog({ count: Math.min(identity.productCount, 50), seed: identity.seed }).slice(0, 5).map((p) => p.refId);
  return {
    websiteId: identity.websiteId,
    client: identity.client,
    tokens: [identity.token],
    hmacSecret: identity.hmacSecret,
    settings: {
      semanticSearch: true,
      // The generated orders and the tour's purchase state EUR: the reports' revenue is in it.
      currency: 'EUR',
      synonyms: [['tv', 'television'], ['sofa', 'couch']],
      retailMedia: { adSets: [{ adSetId: stableGuid('demo', 'ad-set-1'), version: 1, products: sponsored, costPerClick: 0.35 }] },
      cors: { origins: ['*'] },
      // The generated variants share style_id: the search page shows one result per style, and its facet
      // counts count styles too, so a ticked value's count is the number of results it leaves.
      distinct: { field: 'style_id', facetCounts: 'groups' },
      // The generated products' category paths (department > group > leaf): the search page's category menu.
      hierarchies: { categories: { field: 'categories' } },
    },
  };
}

/** Engine options of the demo. */
export function demoEngineOptions(dataDir: string, identity: DemoIdentity): EngineOptions {
  return { dataDir, store: { type: 'embedded' }, websites: [demoWebsite(identity)], adminTokens: [identity.adminToken] };
}

/** The demo's generated catalog (the same for the same identity). */
function demoProducts(identity: DemoIdentity) {
  return generateCatalog({ count: identity.productCount, seed: identity.seed });
}

/** What {@link seedDemo} did: products loaded, the history recorded (view sessions, orders) and the live traffic sent. */
export interface DemoSeeding {
  products: number;
  views: number;
  purchases: number;
  /** The traffic through the engine's API (searches, clicks, attributed purchases…); absent when the store had events. */
  traffic?: TrafficSummary;
}

/** Shopper sessions of the demo's live traffic ({@link generateTraffic}): enough for every report to have rows. */
export const DEMO_TRAFFIC_SESSIONS = 240;

/**
 * Seeds the demo website when its catalog or its events are empty; returns what was done. The events
 * are the generated history (views and purchases of the last 30 days, ending now), then live traffic
 * through the engine's public API: searches (some typed letter by letter), clicks and add-to-carts at
 * their positions, product views from result lists, and purchases attributed to the clicks, recommenders,
 * tactics, campaigns, the search model, retail media and price-beat codes — so every report of the
 * dashboard has data on the first start. Only an empty store is seeded: a restart, or a store with
 * a real shop's events, gets nothing, and the live traffic is sent only when the generated catalog was
 * loaded by this call (never over products loaded into the demo website by hand). `trafficSessions` (default {@link DEMO_TRAFFIC_SESSIONS}; 0 sends
 * none) is for the benchmark that measures what the traffic adds to the first start.
 */
export async function seedDemo(engine: Engine, identity: DemoIdentity, options: { trafficSessions?: number } = {}): Promise<DemoSeeding> {
  const done: DemoSeeding = { products: 0, views: 0, purchases: 0 };
  const stats = await engine.stats(identity.websiteId);
  const needsProducts = stats.products === 0;
  const needsEvents = stats.views === 0 && stats.purchases === 0;
  if (!needsProducts && !needsEvents) return done; // a restart: everything is in the data directory
  const products = demoProducts(identity);
  if (needsProducts) {
    done.products = (await engine.upsertProducts(identity.websiteId, products)).loaded;
  }
  if (needsEvents) {
    // The history ends now, so that the reports' default window (the last 30 days) holds it.
    const { views, purchases } = generateInteractions({ products, seed: identity.seed, now: Date.now() });
    for (const body of views) await engine.recordViews(identity.websiteId, body);
    for (const body of purchases) await engine.recordPurchases(identity.websiteId, body);
    done.views = views.length;
    done.purchases = purchases.length;
    await engine.issueCoupons(identity.websiteId, [{ code: DEMO_COUPON, discount: 10 }]);
  }
  // Live traffic searches and buys whatever the catalog holds: only over the generated catalog loaded now,
  // never over products someone loaded into the demo website.
  if (needsEvents && needsProducts) {
    done.traffic = await generateTraffic(engine, {
      websiteId: identity.websiteId, client: identity.client, products, seed: identity.seed, sessions: options.trafficSessions ?? DEMO_TRAFFIC_SESSIONS,
    });
  }
  if (done.products > 0) await engine.saveSnapshots();
  return done;
}

/** How many generated customers the dashboard offers for the customer-based methods. */
export const DEMO_CUSTOMER_COUNT = 3;

/** The customers with the most view sessions, most first (ties: first seen first); pure. */
export function busiestCustomers(views: readonly ViewRequest[], count: number): string[] {
  const sessions = new Map<string, number>();
  for (const body of views) sessions.set(body.customerId, (sessions.get(body.customerId) ?? 0) + 1);
  // Map order is first-seen order and the sort is stable, so ties keep it.
  return [...sessions].sort((a, b) => b[1] - a[1]).slice(0, count).map(([id]) => id);
}

/**
 * The demo's busiest generated shoppers (the seeded interactions regenerated from the identity's seed:
 * the same ids whether the data was seeded now or at an earlier start), for the dashboard to offer.
 */
export function demoCustomers(identity: DemoIdentity, count = DEMO_CUSTOMER_COUNT): string[] {
  const products = demoProducts(identity);
  return busiestCustomers(generateInteractions({ products, seed: identity.seed }).views, count);
}

/**
 * Makes sure the demo has a live browser search key: the one in `demo.json` when the store still knows
 * it, else a new one (written back to `demo.json`, which only its owner may read). Returns the key.
 */
export async function ensureDemoSearchKey(engine: Engine, identity: DemoIdentity, dataDir: string): Promise<string> {
  if (identity.searchKey !== undefined && (await engine.resolveSearchKey(identity.searchKey)) !== undefined) return identity.searchKey;
  const created = await engine.createSearchKey(identity.websiteId, { actions: ['search', 'insights'] });
  identity.searchKey = created.key;
  writeFileSync(demoIdentityFile(dataDir), `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  return created.key;
}

/**
 * The startup banner: ids, where the tokens are, the browser search key, and one curl command per kind
 * of endpoint. It prints no token or secret (stdout is often collected with the logs): the website and
 * admin tokens stay in the demo identity file (mode 0600 in the data directory), which the commands
 * read into shell variables. The search key is printed: it is a browser key, public by design (it
 * opens only search and click events on the demo website, and every page that uses it shows it).
 */
export function demoBanner(url: string, identity: DemoIdentity, sampleRefId: string, identityFile: string): string {
  const { websiteId, client, searchKey } = identity;
  const now = new Date().toISOString();
  // An order id of this start: the printed purchase replayed is idempotent (202, the same transactionId),
  // and a later start's banner is a new order, not a replay of "demo-order-1" with another eventTime (409).
  const orderId = `demo-order-${Date.parse(now)}`;
  const read = (key: string) => `$(node -p 'require(${JSON.stringify(path.resolve(identityFile))}).${key}')`;
  return [
    '',
    'aisle demo website',
    `  website id:   ${websiteId}`,
    `  client:       ${client}`,
    `  tokens:       in ${identityFile} (token, adminToken)`,
    ...(searchKey ? [`  search key:   ${searchKey}   (browser key: opens search and click events on "${websiteId}")`] : []),
    '',
    `Dashboard: ${url}/   (search, recommendations and reports in the browser)`,
    '',
    'Try:',
    `  export TOKEN=${read('token')} ADMIN=${read('adminToken')}`,
    `  curl -s ${url}/v1.4/search -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" \\`,
    `    -d '{"website_id":"${websiteId}","client":"${client}","q":"shirt","start":0,"size":5,"aggregations":["brand"],"range_fields":["price"]}'`,
    `  curl -s '${url}/1.0/ClientRecom/${websiteId}/ProductDetail?productRef=${encodeURIComponent(sampleRefId)}&filterOutOfStock=true'`,
    `  curl -s '${url}/1.0/ClientRecom/${websiteId}/PopularItems?count=5'`,
    `  curl -s ${url}/1.0/ClientRecom/${websiteId}/bundle -H 'Content-Type: application/json' -d '{"product_ref_ids":["${sampleRefId}"],"setCount":2,"count":3}'`,
    `  curl -s ${url}/3.0/events/purchases -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" \\`,
    `    -d '{"customerId":"7d1c0a9e-5b2f-4f4e-9a51-0c6f3c1e2a10","sessionId":"0b7f1e0c-3d2a-4c55-8e1f-2a9b6c4d8e21","events":[{"currentUrl":"https://shop.example/checkout","eventTime":"${now}","orderId":"${orderId}","products":[{"refId":"${sampleRefId}","quantity":1,"price":19.99}]}]}'`,
    `  curl -s '${url}/b2b/coupon/mark_as_used?code=${DEMO_COUPON}&client=${websiteId}'`,
    `  curl -s ${url}/admin/v1/websites/${websiteId}/stats -H "Authorization: Bearer $ADMIN"`,
    `  curl -s ${url}/openapi.json`,
    '',
  ].join('\n');
}
