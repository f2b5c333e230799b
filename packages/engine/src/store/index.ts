/**
 * Stores: the one {@link Store} interface and its implementations (memory, embedded SQLite,
 * PostgreSQL), the store factory, and the shared contract suite's helpers live here.
 * @module
 */
export type {
  CouponIssueData, CouponRecord, EventQuery, MarkUsedOutcome, OrderOutcome, PriceBeatPromotionData, PurchaseAppend,
  PurchaseAppendResult, PurchaseEventData, PurchaseProductData, RetailMediaData, RetailMediaFlag, SearchKeyRecord, Store, StoreCounts,
  StoredEvent, ViewAppend, ViewEventData,
} from './store.js';
export { MAX_READ_PAGE } from './store.js';
export { MemoryStore } from './memory-store.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { PostgresStore, DEFAULT_PG_SCHEMA, type PostgresStoreOptions } from './postgres-store.js';
export { openStore, DEFAULT_SQLITE_FILE } from './open-store.js';
export { GroupCommitter, type BatchCommitFn } from './group-commit.js';
