/**
 * The PostgreSQL store, for several engine replicas sharing one state. Tables live in one schema
 * (default `aisle`; tests use their own); versioned migrations in `<schema>.schema_migrations` are
 * applied at open under an advisory lock, so replicas may start together.
 *
 * Writes are group-committed: one transaction per batch, with a handful of round trips whatever the
 * batch size (look-ups and inserts go through `unnest` arrays). Each write transaction first takes a
 * transaction-scoped advisory lock of the schema, so write transactions of all replicas commit one after
 * another and sequence numbers become visible in increasing order: a replica reading "events with seq
 * greater than my cursor" never skips an event that commits later with a smaller seq.
 *
 * It is the store replicas share ({@link Store.sharing}): each replica polls for the others' writes,
 * and the catalogs live in the schema's change log (`replication/catalog-replication.ts`, imported
 * when opened).
 * @module
 */
import pg from 'pg';
import { PG_SCHEMA_NAME } from '../contract/config-schema.js';
import { runPgTransaction } from './pg-transaction.js';
import { GroupCommitStore } from './group-commit-store.js';
import { batchLookupKeys, clickKey, couponKey, orderKey, planBatch, planCouponIssue, type AppendOp, type AppendOpResult, type StoredClickRef, type StoredOrder } from './plan.js';
import {
  CLICK_COLUMNS, clickFromRow, EXPERIMENT_COLUMNS, experimentFromRow, experimentTablesSql, experimentValues, type ExperimentRow, clickValues, couponFromRow, RESULT_PAGE_COLUMNS, resultPageFromRow, resultPageSpanSql, resultPageValues, rowToStoredEvent,
  SEARCH_KEY_COLUMNS, SEARCH_KEY_COUNTS_SQL, searchKeyFromRow, searchKeyValues, type CouponRow, type ResultPageRow, type SearchKeyRow, type StoredClickRow,
} from './rows.js';
import {
  MAX_READ_PAGE, type ClickCandidatesQuery, type ResultPageRecord, type ResultPageRetention, type StoredClick, type CouponIssueData, type CouponIssueResult, type CouponRecord, type EventQuery, type MarkUsedOutcome,
  type Store, type StoreCounts, type StoredEvent, type StoredSettings,
  type AnalyticsBatch, type AnalyticsKind, type ExperimentSums, type QuerySessions, type RetentionKind, type RollupTotal, type RollupWindow,
  type SearchKeyRecord, type StoreSharing, type ExperimentRecord, type StoredCheckpoint, type CheckpointWriteOutcome,
} from './store.js';
import { counterValues, countBy, countersFromRow, experimentSumsFromRow, groupSessions, planOutcomes, ROLLUP_COLUMNS, rollupRowsOf, windowRanges, type CountedResponse } from './analytics-rows.js';
import {
  analyticsTablesSql, lifetimeRowsSql, completionDecrementSql, querySessionsSql, resultPagePruneArgs, resultPagePruneSql, retentionSql,
  PG_VARIANT_OF_KEY, ROLLUP_CONFLICT_SQL, ROLLUP_KEY_COLUMNS, experimentSumsSql, rollupTotalsSql,
} from './analytics-sql.js';

/** Default schema of the PostgreSQL store. */
export const DEFAULT_PG_SCHEMA = 'aisle';
/** Default interval at which a replica reads back the others' writes (ms). */
export const DEFAULT_POLL_INTERVAL_MS = 1000;

/** Options of {@link PostgresStore.open}. */
export interface PostgresStoreOptions {
  /** Connection string, e.g. `postgres://user@host:5432/db`. */
  url: string;
  /** Schema holding the tables (created when missing); letters, digits and `_`. Default `aisle`. */
  schema?: string;
  /** Connections in the pool (default 4). */
  poolSize?: number;
  /** How often a replica reads back the others' writes (ms, default {@link DEFAULT_POLL_INTERVAL_MS}). */
  pollIntervalMs?: number | undefined;
  /** How often a replica tries to store a new catalog snapshot (ms; see `replication/catalog-replication.ts`). */
  catalogSnapshotIntervalMs?: number | undefined;
}

/** Longest wait for a PostgreSQL connection before the call fails. */
const PG_CONNECT_TIMEOUT_MS = 5_000;

/** Schema migrations; `{s}` is the quoted schema. Version = index + 1. Append only. */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE {s}.events (
     seq BIGSERIAL PRIMARY KEY,
     website_id TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('purchase', 'view')),
     order_id TEXT,
     transaction_id TEXT NOT NULL,
     customer_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     event_time BIGINT NOT NULL,
     origin TEXT NOT NULL,
     received_at BIGINT NOT NULL,
     payload TEXT NOT NULL,
     CONSTRAINT events_order UNIQUE (website_id, order_id)
   );
   CREATE INDEX events_website_kind ON {s}.events (website_id, kind, seq);
   CREATE TABLE {s}.coupons (
     website_id TEXT NOT NULL,
     code TEXT NOT NULL,
     customer_id TEXT,
     discount DOUBLE PRECISION,
     state TEXT NOT NULL CHECK (state IN ('issued', 'used')),
     source TEXT NOT NULL,
     issued_at BIGINT NOT NULL,
     used_at BIGINT,
     PRIMARY KEY (website_id, code)
   );`,
  // Website settings (settings API): the object as set, and a store-wide increasing version.
  `CREATE SEQUENCE {s}.settings_version;
   CREATE TABLE {s}.website_settings (
     website_id TEXT PRIMARY KEY,
     settings TEXT NOT NULL,
     version BIGINT NOT NULL,
     updated_at BIGINT NOT NULL
   );
   CREATE INDEX website_settings_version ON {s}.website_settings (version);`,
  // The search log, one row per website, hour and normalised query (moved into analytics_rollups by the analytics migration).
  `CREATE TABLE {s}.search_log (
     website_id TEXT NOT NULL,
     hour BIGINT NOT NULL,
     query TEXT NOT NULL,
     searches BIGINT NOT NULL,
     results BIGINT NOT NULL,
     no_results BIGINT NOT NULL,
     PRIMARY KEY (website_id, hour, query)
   );
   CREATE INDEX search_log_hour ON {s}.search_log (hour);`,
  // Browser search keys: the SHA-256 digest only, never the key.
  `CREATE TABLE {s}.search_keys (
     website_id TEXT NOT NULL,
     id TEXT PRIMARY KEY,
     key_hash TEXT NOT NULL UNIQUE,
     key_prefix TEXT NOT NULL,
     actions TEXT NOT NULL,
     scope TEXT,
     expires_at BIGINT,
     created_at BIGINT NOT NULL
   );
   CREATE INDEX search_keys_website ON {s}.search_keys (website_id, created_at);`,
  // Search analytics: hourly and daily roll-ups, logged responses, query sessions; the search log's
  // hourly rows become roll-up rows (hour and day) and its table goes.
  analyticsTablesSql('{s}.', 'BIGINT', 'DOUBLE PRECISION', ''),
  // Clicks on results (idempotent per clickId) and the result lists they name (docs/events-and-stores.md).
  `CREATE TABLE {s}.clicks (
     seq BIGSERIAL PRIMARY KEY,
     website_id TEXT NOT NULL,
     click_id TEXT,
     transaction_id TEXT NOT NULL,
     customer_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     ref_id TEXT NOT NULL,
     event_time BIGINT NOT NULL,
     origin TEXT NOT NULL,
     received_at BIGINT NOT NULL,
     payload TEXT NOT NULL,
     CONSTRAINT clicks_click_id UNIQUE (website_id, click_id)
   );
   CREATE INDEX clicks_session_ref ON {s}.clicks (website_id, session_id, ref_id, event_time);
   CREATE INDEX clicks_website_seq ON {s}.clicks (website_id, seq);
   CREATE TABLE {s}.result_pages (
     seq BIGSERIAL PRIMARY KEY,
     website_id TEXT NOT NULL,
     query_id TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('search', 'recommendation')),
     source TEXT NOT NULL,
     customer_id TEXT,
     session_id TEXT,
     variant TEXT,
     first_position BIGINT NOT NULL,
     ref_ids TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     CONSTRAINT result_pages_query UNIQUE (website_id, query_id)
   );
   CREATE INDEX result_pages_website_seq ON {s}.result_pages (website_id, seq);
   CREATE INDEX result_pages_website_created ON {s}.result_pages (website_id, created_at);`,
  // Experiments (docs/experiments.md), and the experiment each result list was served under.
  experimentTablesSql('{s}.', 'BIGINT'),
  // Checkpoints every replica reads (the models' state and the last event it holds): a head per name
  // naming its generation, whose bytes are split in parts (see SHARED_CHECKPOINT_PART_BYTES).
  `CREATE TABLE {s}.checkpoint_heads (
     name TEXT PRIMARY KEY,
     generation BIGINT NOT NULL,
     seq BIGINT NOT NULL,
     parts INTEGER NOT NULL,
     bytes BIGINT NOT NULL,
     written_at BIGINT NOT NULL
   );
   CREATE TABLE {s}.checkpoint_parts (
     name TEXT NOT NULL,
     generation BIGINT NOT NULL,
     part INTEGER NOT NULL,
     bytes BYTEA NOT NULL,
     PRIMARY KEY (name, generation, part)
   );`,
  // Each experiment customer's lifetime row, for the experiments logged before they were kept (decision 0050).
  lifetimeRowsSql('{s}.'),
  // A stored result list stands for a span of answers (decision 0091).
  resultPageSpanSql('{s}.'),
];

/**
 * Bytes per row of a stored checkpoint: a statement's parameter and a row stay small (a bytea is sent as
 * hex text, twice its size; one value may not exceed 1 GB), while a 45 MB checkpoint is 6 rows.
 */
export const SHARED_CHECKPOINT_PART_BYTES = 8 * 1024 * 1024;
/** The advisory lock (second key) of checkpoint writes: one replica writes checkpoints at a time. */
export const CHECKPOINT_LOCK = 5;

/** The advisory lock (second key) of analytics writes: replicas' batches set response flags one after another. */
const ANALYTICS_LOCK = 4;
/** The advisory lock (second key) of search key creation: replicas count a website's keys and insert one after another. */
const SEARCH_KEYS_LOCK = 6;

/** The unnest column types of a click row, in the order of {@link CLICK_COLUMNS}. */
const CLICK_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'text', 'bigint', 'text'] as const;
/** The unnest column types of a result page, in the order of {@link RESULT_PAGE_COLUMNS}. */
const RESULT_PAGE_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint', 'text', 'bigint', 'text', 'integer'] as const;

/**
 * `INSERT … SELECT * FROM unnest(…)` of many rows in one statement: the SQL and its parameters, one
 * array per column (`values` gives each row's column values in the order of `columns`).
 */
function unnestInsert<T>(table: string, columns: string, types: readonly string[], rows: readonly T[], values: (row: T) => unknown[]): [string, unknown[][]] {
  const arrays: unknown[][] = types.map(() => []);
  for (const row of rows) values(row).forEach((v, i) => arrays[i]!.push(v));
  return [`INSERT INTO ${table} (${columns}) SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`, arrays];
}


/** The PostgreSQL {@link Store}. */
export class PostgresStore extends GroupCommitStore implements Store {
  readonly kind = 'postgres' as const;
  readonly durable = true;
  /** Replicas share this store: the catalogs live in the schema's change log, opened on demand. */
  readonly sharing: StoreSharing;

  private constructor(private readonly pool: pg.Pool, private readonly schema: string, options: PostgresStoreOptions) {
    // Two batches in flight: the round trips of the next one overlap the commit of the previous one
    // (the advisory lock still makes write transactions commit one after another).
    super(2);
    const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.sharing = {
      pollIntervalMs,
      openSharedCatalogs: async (onError) => {
        // Imported here: a process that never shares catalogs never loads the replication code.
        const { CatalogReplication } = await import('../replication/catalog-replication.js');
        return CatalogReplication.open({ url: options.url, schema, pollIntervalMs, snapshotIntervalMs: options.catalogSnapshotIntervalMs, onError });
      },
      checkpoints: {
        read: (name) => this.readCheckpoint(name),
        write: (name, seq, bytes) => this.writeCheckpoint(name, seq, bytes),
      },
    };
  }

  private get s(): string {
    return `"${this.schema}"`;
  }

  /** Connects, creates the schema when missing and applies pending migrations. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const schema = options.schema ?? DEFAULT_PG_SCHEMA;
    // The config check refuses such a name (CONFIG_INVALID); a store opened directly is checked here too.
    if (!PG_SCHEMA_NAME.test(schema)) throw new Error(`postgres schema "${schema}" must be letters, digits and _ (at most 63)`);
    // A connection that cannot be made within the timeout fails the call (503, nothing written) instead
    // of hanging it; a statement already sent is never timed out here, since the client cannot know
    // whether the server committed it (the answer would not tell the truth).
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 4, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
    pool.on('error', () => { /* an idle client died; the pool replaces it on next use */ });
    // A client checked out of the pool has no error listener of the pool's: a connection the server
    // ends while it is checked out (pg_terminate_backend, a network cut) would emit an unhandled
    // 'error' and crash the process. The call using the client fails with that error itself (and is
    // answered 503), and the client is released as broken.
    pool.on('connect', (client) => client.on('error', () => { /* reported through the failing call */ }));
    try {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), 1)', [schema]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        await client.query(`CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
        const { rows } = await client.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM "${schema}".schema_migrations`);
        for (let v = rows[0]?.v ?? 0; v < PG_MIGRATIONS.length; v++) {
          await client.query(PG_MIGRATIONS[v]!.replaceAll('{s}', `"${schema}"`));
          await client.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES ($1)`, [v + 1]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return new PostgresStore(pool, schema, options);
  }

  /**
   * Runs `work` in one transaction on one pooled connection (after taking the schema's advisory lock
   * `lock` when given): committed when it resolves, rolled back when it throws. A connection whose
   * rollback fails is discarded rather than returned to the pool.
   */
  private async inTransaction<T>(lock: number | undefined, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const begin = lock === undefined ? 'BEGIN' : `BEGIN; SELECT pg_advisory_xact_lock(hashtext('${this.schema}'), ${lock})`;
    return runPgTransaction(client, begin, work, (broken) => client.release(broken));
  }


  protected async commitBatch(ops: AppendOp[]): Promise<AppendOpResult[]> {
    const s = this.s;
    return this.inTransaction(2, async (client) => {
      const keys = batchLookupKeys(ops);
      const existingOrders = new Map<string, StoredOrder>();
      if (keys.orders.length > 0) {
        const { rows } = await client.query<{ website_id: string; order_id: string; transaction_id: string; customer_id: string; payload: string }>(
          `SELECT e.website_id, e.order_id, e.transaction_id, e.customer_id, e.payload FROM ${s}.events e
           JOIN unnest($1::text[], $2::text[]) AS k(website_id, order_id) ON e.website_id = k.website_id AND e.order_id = k.order_id`,
          [keys.orders.map((k) => k.websiteId), keys.orders.map((k) => k.orderId)]);
        for (const r of rows) existingOrders.set(orderKey(r.website_id, r.order_id), { transactionId: r.transaction_id, customerId: r.customer_id, payload: r.payload });
      }
      const existingCoupons = new Map<string, CouponRecord>();
      if (keys.coupons.length > 0) {
        const { rows } = await client.query<CouponRow>(
          `SELECT c.* FROM ${s}.coupons c
           JOIN unnest($1::text[], $2::text[]) AS k(website_id, code) ON c.website_id = k.website_id AND c.code = k.code
           FOR UPDATE OF c`,
          [keys.coupons.map((k) => k.websiteId), keys.coupons.map((k) => k.code)]);
        for (const r of rows) existingCoupons.set(couponKey(r.website_id, r.code), couponFromRow(r));
      }
      const existingClicks = new Map<string, StoredClickRef>();
      if (keys.clicks.length > 0) {
        const { rows } = await client.query<{ website_id: string; click_id: string; transaction_id: string; customer_id: string; session_id: string; payload: string }>(
          `SELECT c.website_id, c.click_id, c.transaction_id, c.customer_id, c.session_id, c.payload FROM ${s}.clicks c
           JOIN unnest($1::text[], $2::text[]) AS k(website_id, click_id) ON c.website_id = k.website_id AND c.click_id = k.click_id`,
          [keys.clicks.map((k) => k.websiteId), keys.clicks.map((k) => k.clickId)]);
        for (const r of rows) {
          existingClicks.set(clickKey(r.website_id, r.click_id), { transactionId: r.transaction_id, customerId: r.customer_id, sessionId: r.session_id, payload: r.payload });
        }
      }
      const plan = planBatch(ops, existingOrders, existingCoupons, existingClicks);
      if (plan.clickRows.length > 0) await client.query(...unnestInsert(`${s}.clicks`, CLICK_COLUMNS, CLICK_TYPES, plan.clickRows, clickValues));
      if (plan.rows.length > 0) {
        const r = plan.rows;
        await client.query(
          `INSERT INTO ${s}.events (website_id, kind, order_id, transaction_id, customer_id, session_id, event_time, origin, received_at, payload)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::text[])`,
          [r.map((x) => x.websiteId), r.map((x) => x.kind), r.map((x) => x.orderId), r.map((x) => x.transactionId), r.map((x) => x.customerId),
            r.map((x) => x.sessionId), r.map((x) => x.eventTime), r.map((x) => x.origin), r.map((x) => x.receivedAt), r.map((x) => x.payload)]);
      }
      const fresh = plan.couponWrites.filter((w) => w.isNew).map((w) => w.record);
      if (fresh.length > 0) {
        await client.query(
          `INSERT INTO ${s}.coupons (website_id, code, customer_id, discount, state, source, issued_at, used_at)
           SELECT w, c, cu, d, st, so, ia, NULL FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::text[], $7::bigint[]) AS t(w, c, cu, d, st, so, ia)
           ON CONFLICT (website_id, code) DO UPDATE SET customer_id = COALESCE(${s}.coupons.customer_id, EXCLUDED.customer_id)`,
          [fresh.map((c) => c.websiteId), fresh.map((c) => c.code), fresh.map((c) => c.customerId), fresh.map((c) => c.discount),
            fresh.map((c) => c.state), fresh.map((c) => c.source), fresh.map((c) => c.issuedAt)]);
      }
      const bound = plan.couponWrites.filter((w) => !w.isNew).map((w) => w.record);
      if (bound.length > 0) {
        await client.query(
          `UPDATE ${s}.coupons c SET customer_id = t.cu FROM unnest($1::text[], $2::text[], $3::text[]) AS t(w, co, cu)
           WHERE c.website_id = t.w AND c.code = t.co AND c.customer_id IS NULL`,
          [bound.map((c) => c.websiteId), bound.map((c) => c.code), bound.map((c) => c.customerId)]);
      }
      return plan.results;
    });
  }

  async issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): Promise<CouponIssueResult> {
    this.checkOpen();
    await this.committer.flush();
    if (coupons.length === 0) return { issued: 0 };
    // Under the batches' advisory lock (2), which every other insert of a coupon takes: no code becomes
    // known between the look-up and the insert, so two replicas issuing one code agree on its content.
    return this.inTransaction(2, async (client) => {
      const { rows } = await client.query<CouponRow>(
        `SELECT * FROM ${this.s}.coupons WHERE website_id = $1 AND code = ANY($2::text[])`, [websiteId, coupons.map((c) => c.code)]);
      const { fresh, conflicts } = planCouponIssue(coupons, new Map(rows.map((r) => [r.code, couponFromRow(r)])));
      if (conflicts.length > 0) return { issued: 0, conflicts };
      if (fresh.length === 0) return { issued: 0 };
      const r = await client.query(
        `INSERT INTO ${this.s}.coupons (website_id, code, customer_id, discount, state, source, issued_at, used_at)
         SELECT $1, c, cu, d, 'issued', 'admin', $2, NULL FROM unnest($3::text[], $4::text[], $5::float8[]) AS t(c, cu, d)
         ON CONFLICT (website_id, code) DO NOTHING`,
        [websiteId, issuedAt, fresh.map((c) => c.code), fresh.map((c) => c.customerId ?? null), fresh.map((c) => c.discount ?? null)]);
      return { issued: r.rowCount ?? 0 };
    });
  }

  async markCouponUsed(websiteId: string, code: string, usedAt: number): Promise<MarkUsedOutcome> {
    this.checkOpen();
    await this.committer.flush();
    // One statement: the row lock makes a concurrent second UPDATE re-check `state` and match nothing.
    const r = await this.pool.query(
      `UPDATE ${this.s}.coupons SET state = 'used', used_at = $1 WHERE website_id = $2 AND code = $3 AND state = 'issued'`,
      [usedAt, websiteId, code]);
    if (r.rowCount === 1) return { status: 'used', usedAt };
    const coupon = await this.getCoupon(websiteId, code);
    return coupon === undefined ? { status: 'not_found' } : { status: 'already_used', usedAt: coupon.usedAt ?? usedAt };
  }

  async getCoupon(websiteId: string, code: string): Promise<CouponRecord | undefined> {
    const { rows } = await this.pool.query<CouponRow>(`SELECT * FROM ${this.s}.coupons WHERE website_id = $1 AND code = $2`, [websiteId, code]);
    return rows[0] === undefined ? undefined : couponFromRow(rows[0]);
  }

  async counts(websiteId: string): Promise<StoreCounts> {
    const [e, c] = await Promise.all([
      this.pool.query<{ views: string; orders: string; purchases: string }>(
        `SELECT COUNT(*) FILTER (WHERE kind = 'view') AS views, COUNT(*) FILTER (WHERE kind = 'purchase') AS orders,
           COUNT(DISTINCT transaction_id) FILTER (WHERE kind = 'purchase') AS purchases
         FROM ${this.s}.events WHERE website_id = $1`, [websiteId]),
      this.pool.query<{ issued: string; used: string }>(
        `SELECT COUNT(*) AS issued, COUNT(*) FILTER (WHERE state = 'used') AS used FROM ${this.s}.coupons WHERE website_id = $1`, [websiteId]),
    ]);
    const er = e.rows[0]!;
    const cr = c.rows[0]!;
    return { views: Number(er.views), purchases: Number(er.purchases), orders: Number(er.orders), coupons: { issued: Number(cr.issued), used: Number(cr.used) } };
  }

  async readEvents(query: EventQuery): Promise<StoredEvent[]> {
    const limit = Math.min(Math.max(1, Math.floor(query.limit)), MAX_READ_PAGE);
    const where = ['seq > $1'];
    const params: (string | number)[] = [query.afterSeq];
    if (query.websiteId !== undefined) { params.push(query.websiteId); where.push(`website_id = $${params.length}`); }
    if (query.kind !== undefined) { params.push(query.kind); where.push(`kind = $${params.length}`); }
    params.push(limit);
    const { rows } = await this.pool.query<{
      seq: string; website_id: string; kind: 'purchase' | 'view'; order_id: string | null; transaction_id: string; customer_id: string;
      session_id: string; event_time: string; origin: string; received_at: string; payload: string;
    }>(`SELECT * FROM ${this.s}.events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${params.length}`, params);
    return rows.map((r) => rowToStoredEvent({
      seq: Number(r.seq), websiteId: r.website_id, kind: r.kind, orderId: r.order_id, transactionId: r.transaction_id,
      customerId: r.customer_id, sessionId: r.session_id, eventTime: Number(r.event_time), origin: r.origin,
      receivedAt: Number(r.received_at), payload: r.payload,
    }));
  }

  async lastSequence(): Promise<number> {
    const { rows } = await this.pool.query<{ seq: string | null }>(`SELECT MAX(seq) AS seq FROM ${this.s}.events`);
    return rows[0]?.seq == null ? 0 : Number(rows[0].seq);
  }

  async getSettings(websiteId: string): Promise<StoredSettings | undefined> {
    const { rows } = await this.pool.query<{ settings: string; version: string }>(
      `SELECT settings, version FROM ${this.s}.website_settings WHERE website_id = $1`, [websiteId]);
    const row = rows[0];
    return row === undefined ? undefined : { websiteId, settings: JSON.parse(row.settings) as Record<string, unknown>, version: Number(row.version) };
  }

  async putSettings(websiteId: string, settings: Record<string, unknown>, ifVersion: number): Promise<StoredSettings | undefined> {
    this.checkOpen();
    // The advisory lock orders settings writes of all replicas, so versions become visible in
    // increasing order and a poller reading "after my cursor" never skips one.
    // The compare-and-set is the write statement itself (a first write inserts only where no row is, a
    // later one updates only the row still at `ifVersion`), so it holds whatever else takes the lock.
    return this.inTransaction(3, async (client) => {
      const { rows: written } = await client.query<{ version: string }>(ifVersion === 0
        ? `INSERT INTO ${this.s}.website_settings (website_id, settings, version, updated_at) VALUES ($1, $2, nextval('${this.s}.settings_version'), $3)
           ON CONFLICT (website_id) DO NOTHING RETURNING version`
        : `UPDATE ${this.s}.website_settings SET settings = $2, version = nextval('${this.s}.settings_version'), updated_at = $3
           WHERE website_id = $1 AND version = $4 RETURNING version`,
      ifVersion === 0 ? [websiteId, JSON.stringify(settings), Date.now()] : [websiteId, JSON.stringify(settings), Date.now(), ifVersion]);
      return written[0] === undefined ? undefined : { websiteId, settings, version: Number(written[0].version) };
    });
  }

  async writeAnalytics(batch: AnalyticsBatch): Promise<number[]> {
    this.checkOpen();
    const s = this.s;
    return this.inTransaction(ANALYTICS_LOCK, async (client) => {
      const { responses, outcomes, sessions } = batch;
      if (responses.length > 0) {
        await client.query(
          `INSERT INTO ${s}.logged_responses (query_id, website_id, kind, at, key, counted_as, clicked, converted)
           SELECT q, w, k, a, y, c, 0, 0 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) AS t(q, w, k, a, y, c)
           ON CONFLICT (query_id) DO NOTHING`,
          [responses.map((r) => r.queryId), responses.map((r) => r.websiteId), responses.map((r) => r.kind), responses.map((r) => r.at),
            responses.map((r) => r.key), responses.map((r) => r.countedAs)]);
      }
      const found = new Map<string, CountedResponse>();
      const asked = outcomes.filter((o) => o.queryId !== undefined);
      if (asked.length > 0) {
        const { rows } = await client.query<{ asked: string; query_id: string; at: string; key: string; clicked: string; converted: string }>(
          `SELECT r.query_id AS asked, c.query_id, c.at, c.key, c.clicked, c.converted
           FROM unnest($1::text[], $2::text[]) AS t(q, w) JOIN ${s}.logged_responses r ON r.query_id = t.q AND r.website_id = t.w
           JOIN ${s}.logged_responses c ON c.query_id = COALESCE(r.counted_as, r.query_id)`,
          [asked.map((o) => o.queryId), asked.map((o) => o.websiteId)]);
        for (const r of rows) found.set(r.asked, { queryId: r.query_id, at: Number(r.at), key: r.key, clicked: Number(r.clicked) === 1, converted: Number(r.converted) === 1 });
      }
      const plan = planOutcomes(outcomes, found);
      for (const flag of ['clicked', 'converted'] as const) {
        const ids = plan.flags.filter((f) => f.flag === flag).map((f) => f.queryId);
        if (ids.length > 0) await client.query(`UPDATE ${s}.logged_responses SET ${flag} = 1 WHERE query_id = ANY($1::text[])`, [ids]);
      }
      const rows = rollupRowsOf([...batch.rollups, ...plan.deltas]);
      if (rows.length > 0) {
        const columns = [...ROLLUP_KEY_COLUMNS, ...ROLLUP_COLUMNS];
        const types = ['text', 'text', 'text', 'bigint', 'text', 'text', ...ROLLUP_COLUMNS.map((c) => (c === 'revenue' ? 'float8' : 'bigint'))];
        const values = rows.map((r) => [r.websiteId, r.kind, r.grain, r.start, r.key, r.tactic, ...counterValues(r.counters)]);
        await client.query(
          `INSERT INTO ${s}.analytics_rollups AS r (${columns.join(', ')})
           SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) ${ROLLUP_CONFLICT_SQL}`,
          columns.map((_, i) => values.map((v) => v[i])));
      }
      if (sessions.length > 0) {
        // A session new for its query adds one to the query's count.
        await client.query(
          `WITH added AS (INSERT INTO ${s}.query_sessions (website_id, query, session, hour)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) ON CONFLICT DO NOTHING RETURNING website_id, query)
           INSERT INTO ${s}.completion_queries AS c (website_id, query, sessions) SELECT website_id, query, COUNT(*) FROM added GROUP BY website_id, query
           ON CONFLICT (website_id, query) DO UPDATE SET sessions = c.sessions + excluded.sessions`,
          [sessions.map((e) => e.websiteId), sessions.map((e) => e.query), sessions.map((e) => e.session), sessions.map((e) => e.hour)]);
      }
      return plan.waiting;
    });
  }

  async rollupTotals(websiteId: string, kind: AnalyticsKind, window: RollupWindow): Promise<RollupTotal[]> {
    const { sql, params } = rollupTotalsSql(`${this.s}.`, websiteId, kind, windowRanges(window), (i) => `$${i}`);
    const { rows } = await this.pool.query<Record<string, unknown>>(sql, params);
    return rows.map((r) => ({ key: r.key as string, tactic: r.tactic as string, counters: countersFromRow(r) }));
  }

  async experimentSums(websiteId: string, kind: AnalyticsKind): Promise<ExperimentSums[]> {
    const { rows } = await this.pool.query<Record<string, unknown>>(experimentSumsSql(`${this.s}.`, (i) => `$${i}`, PG_VARIANT_OF_KEY), [websiteId, kind]);
    return rows.map(experimentSumsFromRow);
  }

  async querySessions(websiteId: string, limit: number): Promise<QuerySessions[]> {
    const { rows } = await this.pool.query<{ query: string; session: string }>(querySessionsSql(`${this.s}.`, (i) => `$${i}`), [websiteId, limit]);
    return groupSessions(rows);
  }

  async deleteExpired(websiteId: string, kind: RetentionKind, before: number, limit: number): Promise<number> {
    this.checkOpen();
    return this.inTransaction(undefined, async (client) => {
      let deleted = 0;
      for (const statement of retentionSql(`${this.s}.`, kind, (i) => `$${i}`)) {
        const result = await client.query<{ query: string }>(statement.sql, statement.bind(websiteId, before, limit));
        deleted += result.rowCount ?? 0;
        if (!statement.sessionsGone || result.rows.length === 0) continue;
        const lost = countBy(result.rows.map((r) => r.query));
        await client.query(
          `UPDATE ${this.s}.completion_queries AS c SET sessions = c.sessions - g.n FROM unnest($2::text[], $3::bigint[]) AS g(q, n)
           WHERE c.website_id = $1 AND c.query = g.q`, [websiteId, [...lost.keys()], [...lost.values()]]);
        await client.query(completionDecrementSql(`${this.s}.`, (i) => `$${i}`)[1], [websiteId]);
      }
      return deleted;
    });
  }

  async settingsSince(version: number): Promise<StoredSettings[]> {
    const { rows } = await this.pool.query<{ website_id: string; settings: string; version: string }>(
      `SELECT website_id, settings, version FROM ${this.s}.website_settings WHERE version > $1 ORDER BY version`, [version]);
    return rows.map((r) => ({ websiteId: r.website_id, settings: JSON.parse(r.settings) as Record<string, unknown>, version: Number(r.version) }));
  }

  async insertSearchKey(record: SearchKeyRecord, limit: number): Promise<boolean> {
    this.checkOpen();
    // Under the schema's key lock, so creates through every replica count and insert one after another
    // (READ COMMITTED alone let two transactions each count 999 and both insert).
    return this.inTransaction(SEARCH_KEYS_LOCK, async (client) => {
      const { rows: [held] } = await client.query<{ live: string; total: string }>(
        `SELECT ${SEARCH_KEY_COUNTS_SQL('$2')} FROM ${this.s}.search_keys WHERE website_id = $1`, [record.websiteId, record.createdAt]);
      if (Number(held!.live) >= limit) return false;
      if (Number(held!.total) >= limit) await client.query(`DELETE FROM ${this.s}.search_keys WHERE website_id = $1 AND expires_at <= $2`, [record.websiteId, record.createdAt]);
      await client.query(`INSERT INTO ${this.s}.search_keys (${SEARCH_KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, searchKeyValues(record));
      return true;
    });
  }

  async listSearchKeys(websiteId: string): Promise<SearchKeyRecord[]> {
    const { rows } = await this.pool.query<SearchKeyRow>(`SELECT * FROM ${this.s}.search_keys WHERE website_id = $1 ORDER BY created_at, id`, [websiteId]);
    return rows.map(searchKeyFromRow);
  }

  async findSearchKey(keyHash: string): Promise<SearchKeyRecord | undefined> {
    const { rows } = await this.pool.query<SearchKeyRow>(`SELECT * FROM ${this.s}.search_keys WHERE key_hash = $1`, [keyHash]);
    return rows[0] === undefined ? undefined : searchKeyFromRow(rows[0]);
  }

  async deleteSearchKey(websiteId: string, id: string): Promise<boolean> {
    this.checkOpen();
    const r = await this.pool.query(`DELETE FROM ${this.s}.search_keys WHERE website_id = $1 AND id = $2`, [websiteId, id]);
    return r.rowCount === 1;
  }

  async createExperiment(record: ExperimentRecord, now: number): Promise<boolean> {
    this.checkOpen();
    return this.inTransaction(undefined, async (client) => {
      await client.query(`UPDATE ${this.s}.experiments SET stopped_at = (definition::jsonb->>'until')::bigint
        WHERE website_id = $1 AND kind = $2 AND stopped_at IS NULL AND (definition::jsonb->>'until')::bigint <= $3`, [record.websiteId, record.kind, now]);
      // The partial unique index refuses a second experiment of the kind not stopped, whichever replica inserts it.
      const r = await client.query(`INSERT INTO ${this.s}.experiments (${EXPERIMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        experimentValues(record));
      return r.rowCount === 1;
    });
  }

  async listExperiments(websiteId: string): Promise<ExperimentRecord[]> {
    const { rows } = await this.pool.query<ExperimentRow>(`SELECT * FROM ${this.s}.experiments WHERE website_id = $1 ORDER BY created_at, id`, [websiteId]);
    return rows.map(experimentFromRow);
  }

  async activeExperiments(): Promise<ExperimentRecord[]> {
    const { rows } = await this.pool.query<ExperimentRow>(`SELECT * FROM ${this.s}.experiments WHERE stopped_at IS NULL`);
    return rows.map(experimentFromRow);
  }

  async stopExperiment(websiteId: string, id: string, at: number): Promise<ExperimentRecord | undefined> {
    this.checkOpen();
    await this.pool.query(`UPDATE ${this.s}.experiments SET stopped_at = $3 WHERE website_id = $1 AND id = $2 AND stopped_at IS NULL`, [websiteId, id, at]);
    const { rows } = await this.pool.query<ExperimentRow>(`SELECT * FROM ${this.s}.experiments WHERE website_id = $1 AND id = $2`, [websiteId, id]);
    return rows[0] === undefined ? undefined : experimentFromRow(rows[0]);
  }

  async deleteExperiment(websiteId: string, id: string): Promise<boolean> {
    this.checkOpen();
    const r = await this.pool.query(`DELETE FROM ${this.s}.experiments WHERE website_id = $1 AND id = $2 AND stopped_at IS NOT NULL`, [websiteId, id]);
    return r.rowCount === 1;
  }

  async readClicks(websiteId: string, afterSeq: number, limit: number): Promise<StoredClick[]> {
    const { rows } = await this.pool.query<StoredClickRow>(`SELECT * FROM ${this.s}.clicks WHERE website_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [websiteId, afterSeq, Math.min(Math.max(1, Math.floor(limit)), MAX_READ_PAGE)]);
    return rows.map(clickFromRow);
  }

  async clickCandidates(websiteId: string, query: ClickCandidatesQuery): Promise<StoredClick[]> {
    const { rows } = await this.pool.query<StoredClickRow>(
      `SELECT * FROM ${this.s}.clicks WHERE website_id = $1 AND (click_id = ANY($2::text[])
         OR (session_id = $3 AND ref_id = ANY($4::text[]) AND event_time BETWEEN $5 AND $6)) ORDER BY seq`,
      [websiteId, query.clickIds, query.sessionId, query.refIds, query.since, query.until]);
    return rows.map(clickFromRow);
  }

  async addResultPages(pages: readonly ResultPageRecord[]): Promise<void> {
    this.checkOpen();
    if (pages.length === 0) return;
    const [sql, params] = unnestInsert(`${this.s}.result_pages`, RESULT_PAGE_COLUMNS, RESULT_PAGE_TYPES, pages, resultPageValues);
    await this.pool.query(`${sql} ON CONFLICT (website_id, query_id) DO NOTHING`, params);
  }

  async findResultPages(websiteId: string, queryIds: readonly string[]): Promise<ResultPageRecord[]> {
    const { rows } = await this.pool.query<ResultPageRow>(
      `SELECT * FROM ${this.s}.result_pages WHERE website_id = $1 AND query_id = ANY($2::text[])`, [websiteId, queryIds]);
    return rows.map(resultPageFromRow);
  }

  async pruneResultPages(retention: readonly ResultPageRetention[], limit: number): Promise<number> {
    this.checkOpen();
    const [expire, cap] = resultPagePruneSql(`${this.s}.`, (i) => `$${i}`);
    return this.inTransaction(undefined, async (client) => {
      let deleted = 0;
      for (const r of retention) {
        const [expireArgs, capArgs] = resultPagePruneArgs(r, limit);
        deleted += (await client.query(expire, expireArgs)).rowCount ?? 0;
        deleted += (await client.query(cap, capArgs)).rowCount ?? 0;
      }
      return deleted;
    });
  }

  private async readCheckpoint(name: string): Promise<StoredCheckpoint | undefined> {
    // In one transaction: the head and its parts as of one snapshot (a writer replacing them meanwhile is not seen half way).
    return this.inTransaction(undefined, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const { rows: heads } = await client.query<{ generation: string; seq: string; parts: number; bytes: string; written_at: string }>(
        `SELECT generation, seq, parts, bytes, written_at FROM ${this.s}.checkpoint_heads WHERE name = $1`, [name]);
      const head = heads[0];
      if (head === undefined) return undefined;
      const { rows } = await client.query<{ part: number; bytes: Buffer }>(
        `SELECT part, bytes FROM ${this.s}.checkpoint_parts WHERE name = $1 AND generation = $2 ORDER BY part`, [name, head.generation]);
      if (rows.length !== head.parts || rows.some((r, i) => r.part !== i)) throw new Error(`checkpoint "${name}" has ${rows.length} of its ${head.parts} parts`);
      const bytes = Buffer.concat(rows.map((r) => r.bytes));
      if (bytes.length !== Number(head.bytes)) throw new Error(`checkpoint "${name}" has ${bytes.length} of its ${head.bytes} bytes`);
      return { seq: Number(head.seq), bytes, writtenAt: Number(head.written_at) };
    });
  }

  private async writeCheckpoint(name: string, seq: number, bytes: Uint8Array): Promise<CheckpointWriteOutcome> {
    this.checkOpen();
    const s = this.s;
    const client = await this.pool.connect();
    return runPgTransaction(client, 'BEGIN', async (c) => {
      // Not waited for: a replica finding another one writing leaves the checkpoint to it.
      const { rows: locked } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext($1), ${CHECKPOINT_LOCK}) AS ok`, [this.schema]);
      if (locked[0]?.ok !== true) return 'busy';
      const { rows } = await c.query<{ generation: string; seq: string }>(`SELECT generation, seq FROM ${s}.checkpoint_heads WHERE name = $1`, [name]);
      const head = rows[0];
      if (head !== undefined && Number(head.seq) >= seq) return 'superseded';
      const generation = head === undefined ? 1 : Number(head.generation) + 1;
      let part = 0;
      for (let at = 0; at < bytes.length || part === 0; at += SHARED_CHECKPOINT_PART_BYTES, part++) {
        const slice = Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(SHARED_CHECKPOINT_PART_BYTES, bytes.length - at));
        await c.query(`INSERT INTO ${s}.checkpoint_parts (name, generation, part, bytes) VALUES ($1, $2, $3, $4)`, [name, generation, part, slice]);
      }
      await c.query(
        `INSERT INTO ${s}.checkpoint_heads (name, generation, seq, parts, bytes, written_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (name) DO UPDATE SET generation = excluded.generation, seq = excluded.seq, parts = excluded.parts, bytes = excluded.bytes, written_at = excluded.written_at`,
        [name, generation, seq, part, bytes.length, Date.now()]);
      await c.query(`DELETE FROM ${s}.checkpoint_parts WHERE name = $1 AND generation < $2`, [name, generation]);
      return 'written';
    }, (broken) => client.release(broken));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.committer.flush();
    this.closed = true;
    await this.pool.end();
  }
}
