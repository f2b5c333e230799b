/**
 * `@aisle/engine/demo`: a deterministic generator of realistic shop products and of shopper behaviour
 * (views and purchases as the events endpoints' wire bodies, {@link ViewRequest} and
 * {@link PurchaseRequest}), and live shop traffic sent through an engine's public API
 * ({@link generateTraffic}: searches, clicks, recommendations, attributed orders). Used by `aisle serve` without a config (the demo website), by tests, and by
 * the benchmarks; kept out of the main entry point, which is the engine's API.
 *
 * @example
 * ```ts
 * const products = generateCatalog({ count: 10_000, seed: 42 });
 * const { views, purchases } = generateInteractions({ products, sessions: 2_000, seed: 42 });
 * // With an engine holding those products and events:
 * const sent = await generateTraffic(engine, { websiteId: 'shop', client: 'shop', products, seed: 42 });
 * ```
 * @module
 */
export {
  generateCatalog,
  generateCatalogStream,
  BRANDS,
  BRAND_COUNT,
  CATEGORIES,
} from './generate-catalog.js';
export type { GenerateCatalogOptions, GeneratedCategory } from './generate-catalog.js';
export { generateInteractions } from './generate-interactions.js';
export type { GenerateInteractionsOptions, GeneratedInteractions } from './generate-interactions.js';
export { Random, Zipf } from '../util/seeded-random.js';
export type { Product, PurchaseRequest, ViewRequest } from '../types.js';
export { generateTraffic, demoQueries } from './generate-traffic.js';
export type { GenerateTrafficOptions, TrafficEngine, TrafficSummary } from './generate-traffic.js';
