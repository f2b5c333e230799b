/**
 * Conversion of stored rows back into {@link StoredEvent}s and {@link CouponRecord}s, shared by the SQL stores.
 * @module
 */
import type { EventRow } from './plan.js';
import type { CouponRecord, PurchaseEventData, SearchKeyRecord, StoredEvent, ViewEventData } from './store.js';

/** A row as the SQL stores return it (payload still JSON text). */
export type StoredRow = EventRow & { seq: number };

/** Parses a stored row. */
export function rowToStoredEvent(row: StoredRow): StoredEvent {
  const base = {
    seq: row.seq, websiteId: row.websiteId, transactionId: row.transactionId, customerId: row.customerId,
    sessionId: row.sessionId, origin: row.origin, receivedAt: row.receivedAt,
  };
  return row.kind === 'purchase'
    ? { ...base, kind: 'purchase', purchase: JSON.parse(row.payload) as PurchaseEventData }
    : { ...base, kind: 'view', view: JSON.parse(row.payload) as ViewEventData };
}

/** A coupon row of either SQL store; PostgreSQL returns BIGINT times as strings. */
export interface CouponRow {
  website_id: string; code: string; customer_id: string | null; discount: number | null;
  state: 'issued' | 'used'; source: 'admin' | 'purchase'; issued_at: number | string; used_at: number | string | null;
}

/** Reads a coupon row. */
export function couponFromRow(r: CouponRow): CouponRecord {
  return {
    websiteId: r.website_id, code: r.code, customerId: r.customer_id, discount: r.discount, state: r.state,
    source: r.source, issuedAt: Number(r.issued_at), usedAt: r.used_at === null ? null : Number(r.used_at),
  };
}

/** A search-key row of either SQL store (scope and actions as JSON text; PostgreSQL BIGINTs as strings). */
export interface SearchKeyRow {
  website_id: string; id: string; key_hash: string; key_prefix: string; actions: string; scope: string | null;
  expires_at: number | string | null; created_at: number | string;
}

/** Reads a search-key row. */
export function searchKeyFromRow(r: SearchKeyRow): SearchKeyRecord {
  return {
    websiteId: r.website_id, id: r.id, keyHash: r.key_hash, keyPrefix: r.key_prefix, actions: JSON.parse(r.actions) as string[],
    scope: r.scope === null ? null : JSON.parse(r.scope) as Record<string, unknown>,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at), createdAt: Number(r.created_at),
  };
}

/** The column values of a search key, in the order of {@link SEARCH_KEY_COLUMNS}. */
export function searchKeyValues(k: SearchKeyRecord): (string | number | null)[] {
  return [k.websiteId, k.id, k.keyHash, k.keyPrefix, JSON.stringify(k.actions), k.scope === null ? null : JSON.stringify(k.scope), k.expiresAt, k.createdAt];
}

/** The columns of the search_keys table, in the order of {@link searchKeyValues}. */
export const SEARCH_KEY_COLUMNS = 'website_id, id, key_hash, key_prefix, actions, scope, expires_at, created_at';
