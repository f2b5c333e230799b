/**
 * Conversion of stored rows back into {@link StoredEvent}s, shared by the stores.
 * @module
 */
import type { EventRow } from './plan.js';
import type { PurchaseEventData, StoredEvent, ViewEventData } from './store.js';

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
