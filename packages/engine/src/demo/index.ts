/**
 * Demo data: a deterministic generator of realistic shop products and of shopper behaviour (views and
 * purchases as the events endpoints' wire bodies). Used by `aisle serve` without a config (the demo
 * website), by tests, and by the benchmarks.
 *
 * @example
 * ```ts
 * const products = generateCatalog({ count: 10_000, seed: 42 });
 * const { views, purchases } = generateInteractions({ products, sessions: 2_000, seed: 42 });
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
export type {
  GenerateInteractionsOptions,
  GeneratedInteractions,
  ViewsBody,
  ViewEventBody,
  PurchasesBody,
  PurchaseEventBody,
  PurchasedProductBody,
} from './generate-interactions.js';
export { Random, Zipf } from './random.js';
