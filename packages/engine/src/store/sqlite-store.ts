/**
 * The embedded store: one SQLite file (better-sqlite3) in the data directory, in WAL mode with
 * `synchronous = FULL`, so a committed transaction survives a crash of the process and of the machine.
 * Concurrent writes are group-committed (one `BEGIN IMMEDIATE … COMMIT`, one fsync, per batch).
 * Schema versions are tracked in `PRAGMA user_version` and applied at open.
 * @module
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { GroupCommitStore } from './group-commit-store.js';
import { batchLookupKeys, couponKey, orderKey, planBatch, type AppendOp, type AppendOpResult } from './plan.js';
import { rowToStoredEvent, type StoredRow } from './rows.js';
import {
  MAX_READ_PAGE, type CouponIssueData, type CouponRecord, type EventQuery, type MarkUsedOutcome,
  type Store, type StoreCounts, type StoredEvent,
} from './store.js';

/** Schema migrations; index + 1 is the version recorded in `user_version`. Append only. */
const SQLITE_MIGRATIONS: readonly string[] = [
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
];

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions {
  /** The database file; its directory is created when missing. */
  file: string;
}

interface CouponRow {
  website_id: string; code: string; customer_id: string | null; discount: number | null;
  state: 'issued' | 'used'; source: 'admin' | 'purchase'; issued_at: number; used_at: number | null;
}

function couponFromRow(r: CouponRow): CouponRecord {
  return {
    websiteId: r.website_id, code: r.code, customerId: r.customer_id, discount: r.discount, state: r.state,
    source: r.source, issuedAt: r.issued_at, usedAt: r.used_at,
  };
}

const EVENT_COLUMNS = `seq, website_id AS websiteId, kind, order_id AS orderId, transaction_id AS transactionId,
  customer_id AS customerId, session_id AS sessionId, event_time AS eventTime, origin, received_at AS receivedAt, payload`;

/** The embedded SQLite {@link Store}. */
export class SqliteStore extends GroupCommitStore implements Store {
  readonly kind = 'embedded' as const;
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly commitTx: Database.Transaction<(ops: AppendOp[]) => AppendOpResult[]>;

  private constructor(db: Database.Database) {
    super();
    this.db = db;
    this.stmts = {
      findOrder: db.prepare<[string, string], { transaction_id: string }>('SELECT transaction_id FROM events WHERE website_id = ? AND order_id = ?'),
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
      lastSeq: db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM events'),
    };
    this.commitTx = db.transaction((ops: AppendOp[]) => this.commitInTransaction(ops));
  }

  /** Opens (creating when missing) the database file and applies pending migrations. */
  static open(options: SqliteStoreOptions): SqliteStore {
    mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true });
    const db = new Database(options.file);
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
    return new SqliteStore(db);
  }

  protected commitBatch(ops: AppendOp[]): AppendOpResult[] {
    return this.commitTx.immediate(ops);
  }

  private commitInTransaction(ops: AppendOp[]): AppendOpResult[] {
    const keys = batchLookupKeys(ops);
    const existingOrders = new Map<string, string>();
    for (const k of keys.orders) {
      const row = this.stmts.findOrder.get(k.websiteId, k.orderId);
      if (row !== undefined) existingOrders.set(orderKey(k.websiteId, k.orderId), row.transaction_id);
    }
    const existingCoupons = new Map<string, CouponRecord>();
    for (const k of keys.coupons) {
      const row = this.stmts.findCoupon.get(k.websiteId, k.code);
      if (row !== undefined) existingCoupons.set(couponKey(k.websiteId, k.code), couponFromRow(row));
    }
    const plan = planBatch(ops, existingOrders, existingCoupons);
    for (const r of plan.rows) {
      this.stmts.insertEvent.run(r.websiteId, r.kind, r.orderId, r.transactionId, r.customerId, r.sessionId, r.eventTime, r.origin, r.receivedAt, r.payload);
    }
    for (const { record: c, isNew } of plan.couponWrites) {
      if (isNew) this.stmts.insertCoupon.run(c.websiteId, c.code, c.customerId, c.discount, c.state, c.source, c.issuedAt, c.usedAt);
      else this.stmts.bindCoupon.run(c.customerId, c.websiteId, c.code);
    }
    return plan.results;
  }

  async issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): Promise<number> {
    this.checkOpen();
    await this.committer.flush();
    const tx = this.db.transaction(() => {
      let issued = 0;
      for (const c of coupons) issued += this.stmts.issueCoupon.run(websiteId, c.code, c.customerId ?? null, c.discount ?? null, issuedAt).changes;
      return issued;
    });
    return tx.immediate();
  }

  async markCouponUsed(websiteId: string, code: string, usedAt: number): Promise<MarkUsedOutcome> {
    this.checkOpen();
    await this.committer.flush();
    const tx = this.db.transaction((): MarkUsedOutcome => {
      if (this.stmts.markUsed.run(usedAt, websiteId, code).changes === 1) return { status: 'used', usedAt };
      const row = this.stmts.findCoupon.get(websiteId, code);
      return row === undefined ? { status: 'not_found' } : { status: 'already_used', usedAt: row.used_at ?? usedAt };
    });
    return tx.immediate();
  }

  async getCoupon(websiteId: string, code: string): Promise<CouponRecord | undefined> {
    const row = this.stmts.findCoupon.get(websiteId, code);
    return row === undefined ? undefined : couponFromRow(row);
  }

  async counts(websiteId: string): Promise<StoreCounts> {
    const e = this.stmts.counts.get(websiteId)!;
    const c = this.stmts.couponCounts.get(websiteId)!;
    return { views: e.views, purchases: e.purchases, orders: e.orders, coupons: { issued: c.issued, used: c.used } };
  }

  async readEvents(query: EventQuery): Promise<StoredEvent[]> {
    const limit = Math.min(Math.max(1, Math.floor(query.limit)), MAX_READ_PAGE);
    const where = ['seq > ?'];
    const params: (string | number)[] = [query.afterSeq];
    if (query.websiteId !== undefined) { where.push('website_id = ?'); params.push(query.websiteId); }
    if (query.kind !== undefined) { where.push('kind = ?'); params.push(query.kind); }
    params.push(limit);
    const rows = this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).all(...params) as StoredRow[];
    return rows.map(rowToStoredEvent);
  }

  async lastSequence(): Promise<number> {
    return this.stmts.lastSeq.get()?.seq ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.committer.flush();
    this.closed = true;
    this.db.close();
  }
}
