/**
 * aisle's engine: a columnar product catalog with full-text search, facets, ranges and sorting;
 * recommendation models and their cascades; purchase and view events with attribution, retail-media
 * HMAC checks and price-beat coupons; embedded (SQLite) and PostgreSQL stores.
 *
 * Start with {@link createEngine}.
 * @module
 */
export { createEngine } from './engine.js';
export type { Embedder } from './semantic/embedder.js';
export { TextModel, TEXT_MODEL_ID, trainTextModel, productText, type TextModelOptions } from './semantic/text-model.js';
export type * from './engine-api.js';
export type * from './types.js';
export * from './config.js';
export { AisleError, ValidationError, ErrorCodes, isAisleError, type ErrorCode } from './errors.js';
export {
  canonicalRetailMediaString, generateHmacSalt, signRetailMedia, verifyRetailMedia, HMAC_SALT_LENGTH,
  type RetailMediaSignedFields,
} from './retail-media/hmac.js';
export { stableGuid, randomGuid, newTraceId } from './util/ids.js';
export * from './catalog/index.js';
export * from './search/index.js';
export * from './demo/index.js';
