/**
 * aisle's engine: a columnar product catalog with full-text search, facets, ranges and sorting;
 * recommendation models and their cascades; purchase and view events with attribution, retail-media
 * HMAC checks and price-beat coupons; embedded (SQLite) and PostgreSQL stores.
 *
 * Start with {@link createEngine}. This entry point is the public API only; the demo data generator is
 * `@aisle/engine/demo`, and the internals the benchmarks measure are `@aisle/engine/internal` (no
 * stability promise).
 * @module
 */
export { createEngine, type CreateEngineOptions } from './engine.js';
export { MemoryStore } from './store/memory-store.js';
export type * from './store/store.js';
export type { SharedCatalogs, SharedCatalogsErrorHandler, ReplicationTask } from './store/shared-catalogs.js';
export { MAX_LOGGED_QUERY_LENGTH, MAX_SUGGESTED_QUERIES, SEARCH_REPORT_LIMITS } from './analytics/search-log.js';
export type { Embedder } from './semantic/embedder.js';
export { TextModel, TEXT_MODEL_ID, trainTextModel, productText, type TextModelOptions } from './semantic/text-model.js';
export type * from './engine-api.js';
export { MAX_REPORTED_SKIPS } from './engine-api.js';
export type { ClickOutcome } from './events/click-attribution.js';
export {
  RESULT_PAGE_FLUSH_MS, CROSS_REPLICA_GRACE_MS, MAX_STORED_LISTS_PER_WEBSITE, MIN_RETENTION_DAYS,
} from './clicks/result-pages.js';
export { BACKGROUND_TASKS, type BackgroundTask, type BackgroundFailure, type EngineHooks, type EngineLogger } from './background-failures.js';
export { READINESS_CHECK_TIMEOUT_MS, READY_MIN_FREE_BYTES, type Readiness, type ReadinessCheck } from './readiness.js';
export type * from './types.js';
export * from './config.js';
export { DEFAULT_WEBSITE_SETTINGS, checkWebsiteSettings, mergePatch, settingsWithDefaults } from './settings/website-settings.js';
export {
  AisleError, ValidationError, ErrorCodes, isAisleError, messageOf,
  type ErrorCode, type TemplatedErrorCode, type MessageValues,
} from './errors.js';
export {
  canonicalRetailMediaString, generateHmacSalt, signRetailMedia, verifyRetailMedia, HMAC_SALT_LENGTH,
  type RetailMediaSignedFields,
} from './retail-media/index.js';
export { stableGuid, randomGuid, newTraceId } from './util/ids.js';
export * from './contract/index.js';
export { MAX_FACET_BUCKETS } from './search/assemble-payload.js';
export { valueFits, type FieldType, type FieldTypes, type FieldMismatch } from './catalog/field-types.js';
export { restrictFacetBuckets, valueAllowed, type Scope } from './keys/key-scope.js';
export {
  hashSearchKey, KEY_ACTIONS, KEY_CACHE_TTL_MS, MAX_KEYS_PER_WEBSITE, SEARCH_KEY_PREFIX,
  type CreatedSearchKey, type PresentedSearchKey, type SearchKeyInfo, type SearchKeyRequest,
} from './keys/search-key-service.js';
export { DEFAULT_FIELD_ROLES } from './config.js';
