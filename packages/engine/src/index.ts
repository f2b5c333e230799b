/**
 * aisle's engine: a columnar product catalog with full-text search, facets, ranges and sorting;
 * recommendation models and their cascades; purchase and view events with attribution, retail-media
 * HMAC checks and price-beat coupons; embedded (SQLite) and PostgreSQL stores.
 *
 * Start with {@link createEngine}.
 * @module
 */
export { createEngine, DEFAULT_ATS_MODEL } from './engine.js';
export { SEARCH_LOG_RETENTION_DAYS, MAX_LOGGED_QUERY_LENGTH, MAX_SUGGESTED_QUERIES, SEARCH_REPORT_LIMITS } from './analytics/search-log.js';
export type * from './engine-api.js';
export type * from './types.js';
export * from './config.js';
export { DEFAULT_WEBSITE_SETTINGS, checkWebsiteSettings, mergePatch, settingsWithDefaults } from './settings/website-settings.js';
export { AisleError, ValidationError, ErrorCodes, isAisleError, type ErrorCode } from './errors.js';
export {
  canonicalRetailMediaString, generateHmacSalt, signRetailMedia, verifyRetailMedia, HMAC_SALT_LENGTH,
  type RetailMediaSignedFields,
} from './retail-media/hmac.js';
export { stableGuid, randomGuid, newTraceId } from './util/ids.js';
export * from './catalog/index.js';
export * from './search/index.js';
export * from './demo/index.js';
