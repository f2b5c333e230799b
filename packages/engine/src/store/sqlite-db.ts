/**
 * The synchronous database work of the embedded store: one better-sqlite3 connection, in WAL mode with
 * `synchronous = FULL`, schema migrations tracked in `PRAGMA user_version`, the group-commit batch
 * transaction and the coupon, count and read statements. {@link SqliteStore} runs it on its own worker
 * thread (`sqlite-worker.ts`), so a commit's fsync never blocks the service's event loop.
 * @module
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { makeDirectorySync } from '../util/make-directory.js';
import type { ClickAppendResult, CouponIssueResult, OrderOutcome } from './store.js';
import { loggedResponsesOfRuns, resultPagesOfRuns, type ResultPageRun, type WorkerAnalyticsBatch } from './worker-rows.js';
import { batchLookupKeys, clickKey, couponKey, orderKey, planBatch, planCouponIssue, type AppendOp, type AppendOpResult, type StoredClickRef, type StoredOrder } from './plan.js';
import {
  CLICK_COLUMNS, clickFromRow, EXPERIMENT_COLUMNS, experimentFromRow, experimentTablesSql, experimentValues, type ExperimentRow, clickValues, couponFromRow, RESULT_PAGE_COLUMNS, resultPageFromRow, resultPageSpanSql, resultPageValues, SEARCH_KEY_COLUMNS, SEARCH_KEY_COUNTS_SQL,
  searchKeyFromRow, searchKeyValues, type CouponRow, type ResultPageRow, type SearchKeyRow, type StoredClickRow, type StoredRow,
} from './rows.js';
import {
  MAX_READ_PAGE, type ClickCandidatesQuery, type ResultPageRecord, type ResultPageRetention, type StoredClick, type CouponIssueData, type CouponRecord, type EventQuery, type MarkUsedOutcome, type StoreCounts, type StoredSettings,
  type AnalyticsBatch, type AnalyticsKind, type ExperimentSums, type QuerySessions, type RetentionKind, type RollupTotal, type RollupWindow,
  type SearchKeyRecord, type ExperimentRecord,
} from './store.js';
import { counterValues, countBy, countersFromRow, experimentSumsFromRow, groupSessions, planOutcomes, ROLLUP_COLUMNS, rollupRowsOf, windowRanges, type CountedResponse } from './analytics-rows.js';
import {
  analyticsTablesSql, lifetimeRowsSql, completionDecrementSql, completionIncrementSql, querySessionsSql, resultPagePruneArgs, resultPagePruneSql, retentionSql,
  ROLLUP_CONFLICT_SQL, ROLLUP_KEY_COLUMNS, SQLITE_VARIANT_OF_KEY, experimentSumsSql, rollupTotalsSql,
} from './analytics-sql.js';

interface SettingsRow { websiteId: string; settings: string; version: number }

function settingsFromRow(row: SettingsRow): StoredSettings {
  return { websiteId: row.websiteId, settings: JSON.parse(row.settings) as Record<string, unknown>, version: row.version };
}

/** Schema migrations; index + 1 is the version recorded in `user_version`. Append only. */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     website_id TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('purchase', 'view')),
     order_id TEXT,
     transaction_id TEXT NOT NULL,
     customer_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     event_time INTEGER NOT NULL,
     origin TEXT NOT NULL,
     received_at INTEGER NOT NULL,
     payload TEXT NOT NULL
   );
   CREATE UNIQUE INDEX events_order ON events (website_id, order_id);
   CREATE INDEX events_website_kind ON events (website_id, kind, seq);
   CREATE TABLE coupons (
     website_id TEXT NOT NULL,
     code TEXT NOT NULL,
     customer_id TEXT,
     discount REAL,
     state TEXT NOT NULL CHECK (state IN ('issued', 'used')),
     source TEXT NOT NULL,
     issued_at INTEGER NOT NULL,
     used_at INTEGER,
     PRIMARY KEY (website_id, code)
   );`,
  // Website settings (settings API): the object as set, and a store-wide increasing version.
  `CREATE TABLE website_settings (
     website_id TEXT PRIMARY KEY,
     settings TEXT NOT NULL,
     version INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX website_settings_version ON website_settings (version);`,
  // The search log, one row per website, hour and normalised query (moved into analytics_rollups by the analytics migration).
  `CREATE TABLE search_log (
     website_id TEXT NOT NULL,
     hour INTEGER NOT NULL,
     query TEXT NOT NULL,
     searches INTEGER NOT NULL,
     results INTEGER NOT NULL,
     no_results INTEGER NOT NULL,
     PRIMARY KEY (website_id, hour, query)
   );
   CREATE INDEX search_log_hour ON search_log (hour);`,
  // Browser search keys: the SHA-256 digest only, never the key.
  `CREATE TABLE search_keys (
     website_id TEXT NOT NULL,
     id TEXT PRIMARY KEY,
     key_hash TEXT NOT NULL UNIQUE,
     key_prefix TEXT NOT NULL,
     actions TEXT NOT NULL,
     scope TEXT,
     expires_at INTEGER,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX search_keys_website ON search_keys (website_id, created_at);`,
  // Search analytics: hourly and daily roll-ups, logged responses, query sessions; the search log's
  // hourly rows become roll-up rows (hour and day) and its table goes.
  analyticsTablesSql('', 'INTEGER', 'REAL', ' WITHOUT ROWID'),
  // Clicks on results (idempotent per clickId) and the result lists they name (docs/events-and-stores.md).
  `CREATE TABLE clicks (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     website_id TEXT NOT NULL,
     click_id TEXT,
     transaction_id TEXT NOT NULL,
     customer_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     ref_id TEXT NOT NULL,
     event_time INTEGER NOT NULL,
     origin TEXT NOT NULL,
     received_at INTEGER NOT NULL,
     payload TEXT NOT NULL
   );
   CREATE UNIQUE INDEX clicks_click_id ON clicks (website_id, click_id);
   CREATE INDEX clicks_session_ref ON clicks (website_id, session_id, ref_id, event_time);
   CREATE INDEX clicks_website_seq ON clicks (website_id, seq);
   CREATE TABLE result_pages (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     website_id TEXT NOT NULL,
     query_id TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('search', 'recommendation')),
     source TEXT NOT NULL,
     customer_id TEXT,
     session_id TEXT,
     variant TEXT,
     first_position INTEGER NOT NULL,
     ref_ids TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE UNIQUE INDEX result_pages_query ON result_pages (website_id, query_id);
   CREATE INDEX result_pages_website_seq ON result_pages (website_id, seq);
   CREATE INDEX result_pages_website_created ON result_pages (website_id, created_at);`,
  // Experiments (docs/experiments.md), and the experiment each result list was served under.
  experimentTablesSql('', 'INTEGER'),
  // Each experiment customer's lifetime row, for the experiments logged before they were kept (decision 0050).
  lifetimeRowsSql(''),
  // A stored result list stands for a span of answers (decision 0091).
  resultPageSpanSql(''),
];


const EVENT_COLUMNS = `seq, website_id AS websiteId, kind, order_id AS orderId, transaction_id AS transactionId,
  customer_id AS customerId, session_id AS sessionId, event_time AS eventTime, origin, received_at AS receivedAt, payload`;

/** Opens (creating when missing) the database file and applies pending migrations. */
function openDatabase(file: string): Database.Database {
  makeDirectorySync(path.dirname(path.resolve(file)));
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 10000');
    const migrate = db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      for (let v = version; v < SQLITE_MIGRATIONS.length; v++) {
        db.exec(SQLITE_MIGRATIONS[v]!);
        db.pragma(`user_version = ${v + 1}`);
      }
    });
    migrate.immediate();
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The operations the worker runs, by name; see {@link SqliteDb}. */
export type SqliteMethod = 'commitJson' | 'issueCoupons' | 'markCouponUsed' | 'getCoupon' | 'counts' | 'readRows' | 'lastSequence'
  | 'getSettings' | 'putSettings' | 'settingsSince' | 'writeAnalyticsRuns' | 'rollupTotals' | 'experimentSums' | 'querySessions' | 'deleteExpired'
  | 'insertSearchKey' | 'listSearchKeys' | 'findSearchKey' | 'deleteSearchKey' | 'readClicks' | 'clickCandidates'
  | 'addResultPageRuns' | 'findResultPages' | 'pruneResultPages' | 'createExperiment' | 'listExperiments' | 'activeExperiments'
  | 'stopExperiment' | 'deleteExperiment' | 'close';

/** One order of a purchase answer as it crosses threads: `reused` (indexes of the promotions flagged) replaces the stored event. */
export interface WireOrder {
  orderId: string;
  status: OrderOutcome['status'];
  transactionId: string;
  /** Present for recorded orders (their event is rebuilt by the caller from its own op). */
  reused?: number[];
}

/**
 * An {@link AppendOpResult} as it crosses threads (see {@link WireOrder}). `null`, the common case, is
 * the answer of a write stored in full: every order of a purchase recorded under the op's own
 * transactionId with no promotion flagged reused, or every view of a view op recorded; the caller
 * rebuilds it from its op. Cloning a full answer per op cost the worker more than its statements did.
 */
export type WireResult = null | { recorded: number } | { transactionId: string; orders: WireOrder[] } | ClickAppendResult;

/** Drops the stored events of a batch's answers (the caller rebuilds them with its own ops); see {@link WireResult}. */
function toWireResult(result: AppendOpResult, op: AppendOp): WireResult {
  if ('stored' in result) return result;
  if ('recorded' in result) return op.kind === 'view' && result.recorded === op.append.views.length ? null : result;
  if (op.kind === 'purchase' && result.transactionId === op.append.transactionId && result.orders.length === op.append.events.length
    && result.orders.every((o) => o.status === 'recorded' && o.transactionId === result.transactionId
      && o.event !== undefined && o.event.priceBeatPromotions.every((promo) => promo.reused !== true))) return null;
  return {
    transactionId: result.transactionId,
    orders: result.orders.map((o): WireOrder => {
      if (o.event === undefined) return { orderId: o.orderId, status: o.status, transactionId: o.transactionId };
      const reused: number[] = [];
      o.event.priceBeatPromotions.forEach((promo, i) => { if (promo.reused === true) reused.push(i); });
      return { orderId: o.orderId, status: o.status, transactionId: o.transactionId, reused };
    }),
  };
}

/** One synchronous connection to the embedded store's file and everything done through it. */
export class SqliteDb {
  private readonly stmts;
  private readonly commitTx: Database.Transaction<(ops: AppendOp[]) => AppendOpResult[]>;

  private constructor(private readonly db: Database.Database) {
    this.stmts = {
      findOrder: db.prepare<[string, string], { transaction_id: string; customer_id: string; payload: string }>('SELECT transaction_id, customer_id, payload FROM events WHERE website_id = ? AND order_id = ?'),
      findCoupon: db.prepare<[string, string], CouponRow>('SELECT * FROM coupons WHERE website_id = ? AND code = ?'),
      insertEvent: db.prepare(`INSERT INTO events (website_id, kind, order_id, transaction_id, customer_id, session_id, event_time, origin, received_at, payload)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertCoupon: db.prepare(`INSERT INTO coupons (website_id, code, customer_id, discount, state, source, issued_at, used_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (website_id, code) DO UPDATE SET customer_id = COALESCE(customer_id, excluded.customer_id)`),
      issueCoupon: db.prepare(`INSERT INTO coupons (website_id, code, customer_id, discount, state, source, issued_at, used_at)
        VALUES (?, ?, ?, ?, 'issued', 'admin', ?, NULL) ON CONFLICT (website_id, code) DO NOTHING`),
      bindCoupon: db.prepare('UPDATE coupons SET customer_id = ? WHERE website_id = ? AND code = ? AND customer_id IS NULL'),
      markUsed: db.prepare<[number, string, string]>("UPDATE coupons SET state = 'used', used_at = ? WHERE website_id = ? AND code = ? AND state = 'issued'"),
      counts: db.prepare<[string], { views: number; orders: number; purchases: number }>(`SELECT
          COALESCE(SUM(kind = 'view'), 0) AS views, COALESCE(SUM(kind = 'purchase'), 0) AS orders,
          COUNT(DISTINCT CASE WHEN kind = 'purchase' THEN transaction_id END) AS purchases
        FROM events WHERE website_id = ?`),
      couponCounts: db.prepare<[string], { issued: number; used: number }>(
        "SELECT COUNT(*) AS issued, COALESCE(SUM(state = 'used'), 0) AS used FROM coupons WHERE website_id = ?"),
      // The AUTOINCREMENT high-water mark, not MAX(seq): retention may have deleted the newest events,
      // and a checkpoint holding them still fits this store (their numbers are never given again).
      lastSeq: db.prepare<[], { seq: number | null }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'"),
      findClick: db.prepare<[string, string], { transaction_id: string; customer_id: string; session_id: string; payload: string }>(
        'SELECT transaction_id, customer_id, session_id, payload FROM clicks WHERE website_id = ? AND click_id = ?'),
      insertClick: db.prepare(`INSERT INTO clicks (${CLICK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    };
    this.commitTx = db.transaction((ops: AppendOp[]) => this.commitInTransaction(ops));
  }

  /** Opens (creating when missing) the database file and applies pending migrations. */
  static open(file: string): SqliteDb {
    return new SqliteDb(openDatabase(file));
  }

  /** Creates the file and applies pending migrations, then closes it (errors are thrown here). */
  static prepareFile(file: string): void {
    openDatabase(file).close();
  }

  /** Writes one group-commit batch in one `BEGIN IMMEDIATE … COMMIT`; one result per op, in order. */
  commit(ops: AppendOp[]): AppendOpResult[] {
    return this.commitTx.immediate(ops);
  }

  /**
   * {@link commit} for the worker: the batch comes as JSON text and the answers go back without their
   * stored events (cloning both ways would cost the main thread more than the commit it hands off).
   */
  commitJson(opsJson: string): WireResult[] {
    const ops = JSON.parse(opsJson) as AppendOp[];
    return this.commit(ops).map((result, i) => toWireResult(result, ops[i]!));
  }

  private commitInTransaction(ops: AppendOp[]): AppendOpResult[] {
    const keys = batchLookupKeys(ops);
    const existingOrders = new Map<string, StoredOrder>();
    for (const k of keys.orders) {
      const row = this.stmts.findOrder.get(k.websiteId, k.orderId);
      if (row !== undefined) existingOrders.set(orderKey(k.websiteId, k.orderId), { transactionId: row.transaction_id, customerId: row.customer_id, payload: row.payload });
    }
    const existingCoupons = new Map<string, CouponRecord>();
    for (const k of keys.coupons) {
      const row = this.stmts.findCoupon.get(k.websiteId, k.code);
      if (row !== undefined) existingCoupons.set(couponKey(k.websiteId, k.code), couponFromRow(row));
    }
    const existingClicks = new Map<string, StoredClickRef>();
    for (const k of keys.clicks) {
      const row = this.stmts.findClick.get(k.websiteId, k.clickId);
      if (row !== undefined) {
        existingClicks.set(clickKey(k.websiteId, k.clickId), { transactionId: row.transaction_id, customerId: row.customer_id, sessionId: row.session_id, payload: row.payload });
      }
    }
    const plan = planBatch(ops, existingOrders, existingCoupons, existingClicks);
    for (const r of plan.clickRows) this.stmts.insertClick.run(...clickValues(r));
    for (const r of plan.rows) {
      this.stmts.insertEvent.run(r.websiteId, r.kind, r.orderId, r.transactionId, r.customerId, r.sessionId, r.eventTime, r.origin, r.receivedAt, r.payload);
    }
    for (const { record: c, isNew } of plan.couponWrites) {
      if (isNew) this.stmts.insertCoupon.run(c.websiteId, c.code, c.customerId, c.discount, c.state, c.source, c.issuedAt, c.usedAt);
      else this.stmts.bindCoupon.run(c.customerId, c.websiteId, c.code);
    }
    return plan.results;
  }

  issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): CouponIssueResult {
    const tx = this.db.transaction((): CouponIssueResult => {
      const existing = new Map<string, CouponRecord>();
      for (const c of coupons) {
        const row = this.stmts.findCoupon.get(websiteId, c.code);
        if (row !== undefined) existing.set(c.code, couponFromRow(row));
      }
      const { fresh, conflicts } = planCouponIssue(coupons, existing);
      if (conflicts.length > 0) return { issued: 0, conflicts };
      let issued = 0;
      for (const c of fresh) issued += this.stmts.issueCoupon.run(websiteId, c.code, c.customerId ?? null, c.discount ?? null, issuedAt).changes;
      return { issued };
    });
    return tx.immediate();
  }

  markCouponUsed(websiteId: string, code: string, usedAt: number): MarkUsedOutcome {
    const tx = this.db.transaction((): MarkUsedOutcome => {
      if (this.stmts.markUsed.run(usedAt, websiteId, code).changes === 1) return { status: 'used', usedAt };
      const row = this.stmts.findCoupon.get(websiteId, code);
      return row === undefined ? { status: 'not_found' } : { status: 'already_used', usedAt: couponFromRow(row).usedAt ?? usedAt };
    });
    return tx.immediate();
  }

  getCoupon(websiteId: string, code: string): CouponRecord | undefined {
    const row = this.stmts.findCoupon.get(websiteId, code);
    return row === undefined ? undefined : couponFromRow(row);
  }

  counts(websiteId: string): StoreCounts {
    const e = this.stmts.counts.get(websiteId)!;
    const c = this.stmts.couponCounts.get(websiteId)!;
    return { views: e.views, purchases: e.purchases, orders: e.orders, coupons: { issued: c.issued, used: c.used } };
  }

  /** The rows of a {@link EventQuery} page (payload still JSON text; the caller parses it). */
  readRows(query: EventQuery): StoredRow[] {
    const limit = Math.min(Math.max(1, Math.floor(query.limit)), MAX_READ_PAGE);
    const where = ['seq > ?'];
    const params: (string | number)[] = [query.afterSeq];
    if (query.websiteId !== undefined) { where.push('website_id = ?'); params.push(query.websiteId); }
    if (query.kind !== undefined) { where.push('kind = ?'); params.push(query.kind); }
    params.push(limit);
    return this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).all(...params) as StoredRow[];
  }

  lastSequence(): number {
    return this.stmts.lastSeq.get()?.seq ?? 0;
  }

  getSettings(websiteId: string): StoredSettings | undefined {
    const row = this.db.prepare<[string], SettingsRow>('SELECT website_id AS websiteId, settings, version FROM website_settings WHERE website_id = ?').get(websiteId);
    return row === undefined ? undefined : settingsFromRow(row);
  }

  putSettings(websiteId: string, settings: Record<string, unknown>, ifVersion: number): StoredSettings | undefined {
    const tx = this.db.transaction((): StoredSettings | undefined => {
      const current = this.db.prepare<[string], { version: number }>('SELECT version FROM website_settings WHERE website_id = ?').get(websiteId);
      if ((current?.version ?? 0) !== ifVersion) return undefined;
      const version = (this.db.prepare<[], { v: number | null }>('SELECT MAX(version) AS v FROM website_settings').get()?.v ?? 0) + 1;
      this.db.prepare(`INSERT INTO website_settings (website_id, settings, version, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (website_id) DO UPDATE SET settings = excluded.settings, version = excluded.version, updated_at = excluded.updated_at`)
        .run(websiteId, JSON.stringify(settings), version, Date.now());
      return { websiteId, settings, version };
    });
    return tx.immediate();
  }

  settingsSince(version: number): StoredSettings[] {
    return this.db.prepare<[number], SettingsRow>('SELECT website_id AS websiteId, settings, version FROM website_settings WHERE version > ? ORDER BY version')
      .all(version).map(settingsFromRow);
  }

  writeAnalytics(batch: AnalyticsBatch): number[] {
    const insertResponse = this.db.prepare(`INSERT INTO logged_responses (query_id, website_id, kind, at, key, counted_as, clicked, converted)
      VALUES (?, ?, ?, ?, ?, ?, 0, 0) ON CONFLICT (query_id) DO NOTHING`);
    const findCounted = this.db.prepare<[string, string], { queryId: string; at: number; key: string; clicked: number; converted: number }>(
      `SELECT c.query_id AS queryId, c.at, c.key, c.clicked, c.converted FROM logged_responses r
       JOIN logged_responses c ON c.query_id = COALESCE(r.counted_as, r.query_id) WHERE r.query_id = ? AND r.website_id = ?`);
    const upsert = this.db.prepare(`INSERT INTO analytics_rollups AS r (${[...ROLLUP_KEY_COLUMNS, ...ROLLUP_COLUMNS].join(', ')})
      VALUES (${[...ROLLUP_KEY_COLUMNS, ...ROLLUP_COLUMNS].map(() => '?').join(', ')}) ${ROLLUP_CONFLICT_SQL}`);
    const insertSession = this.db.prepare('INSERT INTO query_sessions (website_id, query, session, hour) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
    return this.db.transaction(() => {
      for (const r of batch.responses) insertResponse.run(r.queryId, r.websiteId, r.kind, r.at, r.key, r.countedAs);
      const found = new Map<string, CountedResponse>();
      for (const o of batch.outcomes) {
        const c = o.queryId === undefined ? undefined : findCounted.get(o.queryId, o.websiteId);
        if (c) found.set(o.queryId!, { queryId: c.queryId, at: c.at, key: c.key, clicked: c.clicked === 1, converted: c.converted === 1 });
      }
      const plan = planOutcomes(batch.outcomes, found);
      const setFlag = { clicked: this.db.prepare('UPDATE logged_responses SET clicked = 1 WHERE query_id = ?'), converted: this.db.prepare('UPDATE logged_responses SET converted = 1 WHERE query_id = ?') };
      for (const f of plan.flags) setFlag[f.flag].run(f.queryId);
      for (const row of rollupRowsOf([...batch.rollups, ...plan.deltas])) {
        upsert.run(row.websiteId, row.kind, row.grain, row.start, row.key, row.tactic, ...counterValues(row.counters));
      }
      const countSession = this.db.prepare(completionIncrementSql('', () => '?'));
      for (const e of batch.sessions) if (insertSession.run(e.websiteId, e.query, e.session, e.hour).changes === 1) countSession.run(e.websiteId, e.query, 1);
      return plan.waiting;
    }).immediate();
  }

  rollupTotals(websiteId: string, kind: AnalyticsKind, window: RollupWindow): RollupTotal[] {
    const { sql, params } = rollupTotalsSql('', websiteId, kind, windowRanges(window), () => '?');
    return (this.db.prepare(sql).all(...params) as Record<string, unknown>[])
      .map((r) => ({ key: r.key as string, tactic: r.tactic as string, counters: countersFromRow(r) }));
  }

  experimentSums(websiteId: string, kind: AnalyticsKind): ExperimentSums[] {
    return (this.db.prepare(experimentSumsSql('', () => '?', SQLITE_VARIANT_OF_KEY)).all(websiteId, kind) as Record<string, unknown>[]).map(experimentSumsFromRow);
  }

  querySessions(websiteId: string, limit: number): QuerySessions[] {
    const rows = this.db.prepare<[string, number, string], { query: string; session: string }>(querySessionsSql('', () => '?')).all(websiteId, limit, websiteId);
    return groupSessions(rows);
  }

  deleteExpired(websiteId: string, kind: RetentionKind, before: number, limit: number): number {
    const [decrement, dropEmpty] = completionDecrementSql('', () => '?').map((sql) => this.db.prepare(sql));
    return this.db.transaction(() => {
      let deleted = 0;
      for (const statement of retentionSql('', kind, () => '?')) {
        const args = statement.bind(websiteId, before, limit);
        if (!statement.sessionsGone) {
          deleted += this.db.prepare(statement.sql).run(...args).changes;
          continue;
        }
        const gone = this.db.prepare<unknown[], { query: string }>(statement.sql).all(...args);
        // Parameters in the order the statement writes them: n, website, query.
        for (const [query, n] of countBy(gone.map((r) => r.query))) decrement!.run(n, websiteId, query);
        dropEmpty!.run(websiteId);
        deleted += gone.length;
      }
      return deleted;
    }).immediate();
  }

  createExperiment(record: ExperimentRecord, now: number): boolean {
    return this.db.transaction(() => {
      this.db.prepare('UPDATE experiments SET stopped_at = CAST(json_extract(definition, \'$.until\') AS INTEGER) WHERE website_id = ? AND kind = ? AND stopped_at IS NULL AND json_extract(definition, \'$.until\') <= ?')
        .run(record.websiteId, record.kind, now);
      return this.db.prepare(`INSERT INTO experiments (${EXPERIMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
        .run(...experimentValues(record)).changes === 1;
    }).immediate();
  }

  listExperiments(websiteId: string): ExperimentRecord[] {
    return (this.db.prepare('SELECT * FROM experiments WHERE website_id = ? ORDER BY created_at, id').all(websiteId) as ExperimentRow[]).map(experimentFromRow);
  }

  activeExperiments(): ExperimentRecord[] {
    return (this.db.prepare('SELECT * FROM experiments WHERE stopped_at IS NULL').all() as ExperimentRow[]).map(experimentFromRow);
  }

  stopExperiment(websiteId: string, id: string, at: number): ExperimentRecord | undefined {
    this.db.prepare('UPDATE experiments SET stopped_at = ? WHERE website_id = ? AND id = ? AND stopped_at IS NULL').run(at, websiteId, id);
    const row = this.db.prepare('SELECT * FROM experiments WHERE website_id = ? AND id = ?').get(websiteId, id) as ExperimentRow | undefined;
    return row === undefined ? undefined : experimentFromRow(row);
  }

  deleteExperiment(websiteId: string, id: string): boolean {
    return this.db.prepare('DELETE FROM experiments WHERE website_id = ? AND id = ? AND stopped_at IS NOT NULL').run(websiteId, id).changes === 1;
  }

  insertSearchKey(record: SearchKeyRecord, limit: number): boolean {
    // One transaction counts, makes room and inserts: SQLite runs it alone (one writer), so concurrent creates cannot both see room for one more.
    return this.db.transaction((): boolean => {
      const held = this.db.prepare(`SELECT ${SEARCH_KEY_COUNTS_SQL('?')} FROM search_keys WHERE website_id = ?`).get(record.createdAt, record.websiteId) as { live: number; total: number };
      if (held.live >= limit) return false;
      if (held.total >= limit) this.db.prepare('DELETE FROM search_keys WHERE website_id = ? AND expires_at <= ?').run(record.websiteId, record.createdAt);
      this.db.prepare(`INSERT INTO search_keys (${SEARCH_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(...searchKeyValues(record));
      return true;
    })();
  }

  listSearchKeys(websiteId: string): SearchKeyRecord[] {
    return (this.db.prepare('SELECT * FROM search_keys WHERE website_id = ? ORDER BY created_at, id').all(websiteId) as SearchKeyRow[]).map(searchKeyFromRow);
  }

  findSearchKey(keyHash: string): SearchKeyRecord | undefined {
    const row = this.db.prepare('SELECT * FROM search_keys WHERE key_hash = ?').get(keyHash) as SearchKeyRow | undefined;
    return row === undefined ? undefined : searchKeyFromRow(row);
  }

  deleteSearchKey(websiteId: string, id: string): boolean {
    return this.db.prepare('DELETE FROM search_keys WHERE website_id = ? AND id = ?').run(websiteId, id).changes === 1;
  }

  readClicks(websiteId: string, afterSeq: number, limit: number): StoredClick[] {
    return (this.db.prepare('SELECT * FROM clicks WHERE website_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(websiteId, afterSeq, Math.min(Math.max(1, Math.floor(limit)), MAX_READ_PAGE)) as StoredClickRow[]).map(clickFromRow);
  }

  clickCandidates(websiteId: string, query: ClickCandidatesQuery): StoredClick[] {
    return (this.db.prepare(`SELECT * FROM clicks WHERE website_id = ? AND (click_id IN (SELECT value FROM json_each(?))
        OR (session_id = ? AND ref_id IN (SELECT value FROM json_each(?)) AND event_time BETWEEN ? AND ?)) ORDER BY seq`)
      .all(websiteId, JSON.stringify(query.clickIds), query.sessionId, JSON.stringify(query.refIds), query.since, query.until) as StoredClickRow[])
      .map(clickFromRow);
  }

  /** {@link writeAnalytics} of a batch whose responses came from the main thread in runs (worker-rows.ts). */
  writeAnalyticsRuns(batch: WorkerAnalyticsBatch): number[] {
    return this.writeAnalytics({ ...batch, responses: loggedResponsesOfRuns(batch.responses) });
  }

  /** {@link addResultPages} of lists that came from the main thread in runs (worker-rows.ts). */
  addResultPageRuns(runs: readonly ResultPageRun[]): void {
    this.addResultPages(resultPagesOfRuns(runs));
  }

  addResultPages(pages: Iterable<ResultPageRecord>): void {
    const insert = this.db.prepare(`INSERT INTO result_pages (${RESULT_PAGE_COLUMNS}) VALUES (${RESULT_PAGE_COLUMNS.split(',').map(() => '?').join(', ')})
      ON CONFLICT (website_id, query_id) DO NOTHING`);
    this.db.transaction(() => {
      for (const p of pages) insert.run(resultPageValues(p));
    }).immediate();
  }

  findResultPages(websiteId: string, queryIds: readonly string[]): ResultPageRecord[] {
    return (this.db.prepare('SELECT * FROM result_pages WHERE website_id = ? AND query_id IN (SELECT value FROM json_each(?))')
      .all(websiteId, JSON.stringify(queryIds)) as ResultPageRow[]).map(resultPageFromRow);
  }

  pruneResultPages(retention: readonly ResultPageRetention[], limit: number): number {
    const [expire, cap] = resultPagePruneSql('', () => '?').map((sql) => this.db.prepare(sql));
    return this.db.transaction(() => {
      let deleted = 0;
      for (const r of retention) {
        const [expireArgs, capArgs] = resultPagePruneArgs(r, limit);
        deleted += expire!.run(...expireArgs).changes + cap!.run(...capArgs).changes;
      }
      return deleted;
    }).immediate();
  }

  close(): void {
    this.db.close();
  }
}
