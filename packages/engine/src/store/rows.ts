/**
 * Conversion of stored rows back into {@link StoredEvent}s, {@link CouponRecord}s, search keys, clicks and
 * result pages, and of records into column values, shared by the SQL stores.
 * @module
 */
import type { ClickRow, EventRow } from './plan.js';
import type {
  ExperimentKind, ExperimentRecord, ListExperiment, ClickEventData, CouponRecord, PurchaseEventData, ResultListKind, ResultPageRecord, SearchKeyRecord, StoredClick, StoredEvent, ViewEventData,
} from './store.js';

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

/** Whether a key expiring at `expiresAt` (ms; null: never) is expired at `now`: an expired key opens nothing. */
export function isExpiredKey(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && expiresAt <= now;
}

/** A website's keys counted as {@link isExpiredKey} reads them at `now`: live ones, and all. */
export function searchKeyCounts(keys: readonly { expiresAt: number | null }[], now: number): { live: number; total: number } {
  return { live: keys.filter((k) => !isExpiredKey(k.expiresAt, now)).length, total: keys.length };
}

/** The SQL stores' {@link searchKeyCounts}: the select list of `live` and `total`, with `now` as the placeholder `nowParam`. */
export const SEARCH_KEY_COUNTS_SQL = (nowParam: string): string =>
  `SUM(CASE WHEN expires_at IS NULL OR expires_at > ${nowParam} THEN 1 ELSE 0 END) AS live, COUNT(*) AS total`;

/** A click row as the SQL stores return it (PostgreSQL BIGINTs as strings). */
export interface StoredClickRow {
  seq: number | string; website_id: string; transaction_id: string; customer_id: string; session_id: string;
  received_at: number | string; payload: string;
}

/** Reads a click row. */
export function clickFromRow(r: StoredClickRow): StoredClick {
  return {
    seq: Number(r.seq), websiteId: r.website_id, transactionId: r.transaction_id, customerId: r.customer_id, sessionId: r.session_id,
    receivedAt: Number(r.received_at), click: JSON.parse(r.payload) as ClickEventData,
  };
}

/** The columns of the clicks table written by an insert, in the order of {@link clickValues}. */
export const CLICK_COLUMNS = 'website_id, click_id, transaction_id, customer_id, session_id, ref_id, event_time, origin, received_at, payload';

/** The column values of a click row, in the order of {@link CLICK_COLUMNS}. */
export function clickValues(r: ClickRow): (string | number | null)[] {
  return [r.websiteId, r.clickId, r.transactionId, r.customerId, r.sessionId, r.refId, r.eventTime, r.origin, r.receivedAt, r.payload];
}

/** A result-page row of either SQL store (refIds and experiment as JSON text; PostgreSQL BIGINTs as strings). */
export interface ResultPageRow {
  website_id: string; query_id: string; kind: ResultListKind; source: string; customer_id: string | null; session_id: string | null;
  variant: string | null; first_position: number | string; ref_ids: string; created_at: number | string; experiment: string | null;
  span: number | string;
}

/** Reads a result-page row. */
export function resultPageFromRow(r: ResultPageRow): ResultPageRecord {
  return {
    websiteId: r.website_id, queryId: r.query_id, kind: r.kind, source: r.source, customerId: r.customer_id, sessionId: r.session_id,
    variant: r.variant, firstPosition: Number(r.first_position), refIds: JSON.parse(r.ref_ids) as string[], createdAt: Number(r.created_at),
    ...(r.experiment !== null && r.experiment !== undefined && { experiment: JSON.parse(r.experiment) as ListExperiment }),
    ...(Number(r.span) > 1 && { span: Number(r.span) }),
  };
}

/**
 * The migration giving `result_pages` its `span` column (`ResultPageRecord.span`; 1 for the lists stored
 * before, one answer each), for both SQL stores: adding a column with a constant default rewrites no row.
 */
export function resultPageSpanSql(prefix: string): string {
  return `ALTER TABLE ${prefix}result_pages ADD COLUMN span INTEGER NOT NULL DEFAULT 1`;
}

/** The columns of the result_pages table, in the order of {@link resultPageValues}. */
export const RESULT_PAGE_COLUMNS = 'website_id, query_id, kind, source, customer_id, session_id, variant, first_position, ref_ids, created_at, experiment, span';

/** The column values of a result page, in the order of {@link RESULT_PAGE_COLUMNS}. */
export function resultPageValues(p: ResultPageRecord): (string | number | null)[] {
  return [
    p.websiteId, p.queryId, p.kind, p.source, p.customerId, p.sessionId, p.variant, p.firstPosition, JSON.stringify(p.refIds), p.createdAt,
    p.experiment === undefined ? null : JSON.stringify(p.experiment), p.span ?? 1,
  ];
}

/** An experiment row of either SQL store (the definition as JSON text; PostgreSQL BIGINTs as strings). */
export interface ExperimentRow {
  website_id: string; id: string; kind: ExperimentKind; definition: string; created_at: number | string; stopped_at: number | string | null;
}

/** What an experiment row keeps as JSON: everything but its keys, kind and times. */
type ExperimentDefinition = Pick<ExperimentRecord, 'name' | 'method' | 'variants' | 'from' | 'until'>;

/** Reads an experiment row. */
export function experimentFromRow(r: ExperimentRow): ExperimentRecord {
  const d = JSON.parse(r.definition) as ExperimentDefinition;
  return {
    websiteId: r.website_id, id: r.id, kind: r.kind, name: d.name, method: d.method, variants: d.variants, from: d.from, until: d.until,
    createdAt: Number(r.created_at), stoppedAt: r.stopped_at === null ? null : Number(r.stopped_at),
  };
}

/** The columns of the experiments table, in the order of {@link experimentValues}. */
export const EXPERIMENT_COLUMNS = 'website_id, id, kind, definition, created_at, stopped_at';

/** The column values of an experiment, in the order of {@link EXPERIMENT_COLUMNS}. */
export function experimentValues(e: ExperimentRecord): (string | number | null)[] {
  const definition: ExperimentDefinition = { name: e.name, method: e.method, variants: e.variants, from: e.from, until: e.until };
  return [e.websiteId, e.id, e.kind, JSON.stringify(definition), e.createdAt, e.stoppedAt];
}

/**
 * The migration of the experiments (both SQL stores; `prefix` is `''` or `schema.`): the table, and
 * the partial unique index that lets one experiment per website and kind be not stopped — the store
 * itself refuses a second, whichever replica asks — plus the experiment of each result list.
 */
export function experimentTablesSql(prefix: string, int: string): string {
  return `CREATE TABLE ${prefix}experiments (
     website_id TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, definition TEXT NOT NULL,
     created_at ${int} NOT NULL, stopped_at ${int},
     PRIMARY KEY (website_id, id)
   );
   CREATE UNIQUE INDEX experiments_one_running ON ${prefix}experiments (website_id, kind) WHERE stopped_at IS NULL;
   ALTER TABLE ${prefix}result_pages ADD COLUMN experiment TEXT;`;
}
