/**
 * Conversion of stored rows back into {@link StoredEvent}s and {@link CouponRecord}s, shared by the SQL stores.
 * @module
 */
import type { EventRow } from './plan.js';
import type { CouponRecord, PurchaseEventData, StoredEvent, ViewEventData } from './store.js';

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
