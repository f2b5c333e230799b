/**
 * The embedded store: one SQLite file (better-sqlite3) in the data directory, in WAL mode with
 * `synchronous = FULL`, so a committed transaction survives a crash of the process and of the machine.
 * Concurrent writes are group-committed (one `BEGIN IMMEDIATE … COMMIT`, one fsync, per batch).
 * Schema versions are tracked in `PRAGMA user_version` and applied at open.
 *
 * better-sqlite3 is synchronous, so the connection lives on a dedicated worker thread
 * (`sqlite-worker.ts`, running {@link SqliteDb}): this thread keeps the group committer and sends each
 * batch as one message (its ops as JSON text); the worker runs the messages one at a time, in order, and
 * replies with the results (purchase answers without their stored events, rebuilt here from the ops) or
 * the error (rebuilt here with its class, message and `code`). Coupon calls, counts and reads go the same
 * way. The event loop of the service never waits for a transaction or its fsync.
 * @module
 */
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { startWorker } from '../util/worker-file.js';
import { GroupCommitStore } from './group-commit-store.js';
import { resultPageRuns, workerAnalyticsBatch } from './worker-rows.js';
import type { AppendOp, AppendOpResult } from './plan.js';
import { rowToStoredEvent } from './rows.js';
import { SqliteDb, type SqliteMethod, type WireResult } from './sqlite-db.js';
import type { SqliteReply, SqliteRequest, SqliteWorkerData, WireError } from './sqlite-worker.js';
import type {
  ClickAppendResult, ClickCandidatesQuery, ResultPageRecord, ResultPageRetention, StoredClick, CouponIssueData, CouponIssueResult, CouponRecord, EventQuery, MarkUsedOutcome, OrderOutcome, PurchaseEventData, Store, StoreCounts, StoredEvent,
  StoredSettings, AnalyticsBatch, AnalyticsKind, ExperimentSums, QuerySessions, RetentionKind, RollupTotal, RollupWindow,
  SearchKeyRecord, ExperimentRecord,
} from './store.js';

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions {
  /** The database file; its directory is created when missing. */
  file: string;
}

const ERROR_TYPES: Record<string, new (message: string) => Error> = {
  Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError,
};

/** Rebuilds an error of the worker with its class (SqliteError, TypeError, …), message, code and stack. */
function reviveError(e: WireError): Error {
  const err = e.name === 'SqliteError' && typeof e.code === 'string'
    ? new Database.SqliteError(e.message, e.code)
    : new (ERROR_TYPES[e.name] ?? Error)(e.message);
  if (err.name !== e.name) err.name = e.name;
  if (e.code !== undefined) (err as { code?: unknown }).code = e.code;
  if (e.stack !== undefined) err.stack = e.stack;
  return err;
}

/** What better-sqlite3 throws when a closed connection is used (so calls after close fail as before). */
function notOpen(): TypeError {
  return new TypeError('The database connection is not open');
}

/**
 * The answer of one op from its {@link WireResult} (`null`: stored in full, see there): a recorded order's stored event is the op's event
 * with its promotions rewritten as `planBatch` stores them (`{code, discount}`, plus `reused: true` where
 * flagged). The test "answers as the memory store does" keeps the two in step.
 */
function fromWireResult(op: AppendOp, result: WireResult): AppendOpResult {
  if (op.kind === 'click') return result as ClickAppendResult;
  if (op.kind === 'view') return result ?? { recorded: op.append.views.length };
  const events = op.append.events;
  if (result === null) {
    const transactionId = op.append.transactionId;
    return {
      transactionId,
      orders: events.map((event): OrderOutcome => ({
        orderId: event.orderId, status: 'recorded', transactionId,
        event: { ...event, priceBeatPromotions: event.priceBeatPromotions.map((promo) => ({ code: promo.code, discount: promo.discount })) },
      })),
    };
  }
  if ('recorded' in result || 'stored' in result) return result;
  return {
    transactionId: result.transactionId,
    orders: result.orders.map((o, i): OrderOutcome => {
      if (o.reused === undefined) return { orderId: o.orderId, status: o.status, transactionId: o.transactionId };
      const event: PurchaseEventData = events[i]!;
      const reused = new Set(o.reused);
      const stored: PurchaseEventData = { ...event, priceBeatPromotions: event.priceBeatPromotions.map((promo, j) => (reused.has(j)
        ? { code: promo.code, discount: promo.discount, reused: true }
        : { code: promo.code, discount: promo.discount })) };
      return { orderId: o.orderId, status: o.status, transactionId: o.transactionId, event: stored };
    }),
  };
}

interface PendingCall {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The embedded SQLite {@link Store}. */
export class SqliteStore extends GroupCommitStore implements Store {
  readonly kind = 'embedded' as const;
  readonly durable = true;
  private readonly worker: Worker;
  private readonly calls = new Map<number, PendingCall>();
  private nextCallId = 1;
  /** Set once the worker is gone (terminated by close, or failed): calls then reject at once. */
  private gone: Error | undefined;
  private stopping = false;
  private closing: Promise<void> | undefined;

  private constructor(file: string) {
    // Two batches in flight: the next one is encoded and sent while the worker commits the previous one.
    super(2);
    this.worker = startWorker(import.meta.url, './sqlite-worker', { workerData: { file } satisfies SqliteWorkerData });
    // Like the synchronous connection it replaces, an idle store does not keep the process alive;
    // the worker is referenced only while a call is pending (see call/settle).
    this.worker.unref();
    this.worker.on('message', (reply: SqliteReply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the SQLite worker exited (code ${code})`)));
  }

  /**
   * Opens (creating when missing) the database file and applies pending migrations — here, so that a
   * file that cannot be opened throws now — then starts the worker, which opens its own connection.
   * Calls made before the worker is up are queued.
   */
  static open(options: SqliteStoreOptions): SqliteStore {
    SqliteDb.prepareFile(options.file);
    return new SqliteStore(options.file);
  }

  /** Runs `method` on the worker's connection; calls run one at a time, in call order. */
  private call<M extends SqliteMethod>(method: M, ...args: Parameters<SqliteDb[M]>): Promise<ReturnType<SqliteDb[M]>> {
    return new Promise((resolve, reject) => {
      if (this.gone !== undefined) {
        reject(this.gone);
        return;
      }
      const id = this.nextCallId++;
      try {
        this.worker.postMessage({ id, method, args } satisfies SqliteRequest);
      } catch (err) {
        reject(err);
        return;
      }
      if (this.calls.size === 0) this.worker.ref();
      this.calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private settle(reply: SqliteReply): void {
    const call = this.calls.get(reply.id);
    if (call === undefined) return;
    this.calls.delete(reply.id);
    if (this.calls.size === 0) this.worker.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(reviveError(reply.error));
  }

  /** The worker is gone: every pending and later call rejects. */
  private fail(err: Error): void {
    this.gone ??= this.stopping ? notOpen() : err;
    const pending = [...this.calls.values()];
    this.calls.clear();
    for (const call of pending) call.reject(this.gone);
  }

  protected async commitBatch(ops: AppendOp[]): Promise<AppendOpResult[]> {
    // JSON rather than a structured clone of the ops: cheaper on this thread (see SqliteDb.commitJson).
    const results = await this.call('commitJson', JSON.stringify(ops));
    return results.map((r, i) => fromWireResult(ops[i]!, r));
  }

  async issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): Promise<CouponIssueResult> {
    this.checkOpen();
    await this.committer.flush();
    return this.call('issueCoupons', websiteId, coupons, issuedAt);
  }

  async markCouponUsed(websiteId: string, code: string, usedAt: number): Promise<MarkUsedOutcome> {
    this.checkOpen();
    await this.committer.flush();
    return this.call('markCouponUsed', websiteId, code, usedAt);
  }

  getCoupon(websiteId: string, code: string): Promise<CouponRecord | undefined> {
    return this.call('getCoupon', websiteId, code);
  }

  counts(websiteId: string): Promise<StoreCounts> {
    return this.call('counts', websiteId);
  }

  async readEvents(query: EventQuery): Promise<StoredEvent[]> {
    return (await this.call('readRows', query)).map(rowToStoredEvent);
  }

  lastSequence(): Promise<number> {
    return this.call('lastSequence');
  }

  getSettings(websiteId: string): Promise<StoredSettings | undefined> {
    return this.call('getSettings', websiteId);
  }

  putSettings(websiteId: string, settings: Record<string, unknown>, ifVersion: number): Promise<StoredSettings | undefined> {
    this.checkOpen();
    return this.call('putSettings', websiteId, settings, ifVersion);
  }

  settingsSince(version: number): Promise<StoredSettings[]> {
    return this.call('settingsSince', version);
  }

  async writeAnalytics(batch: AnalyticsBatch): Promise<number[]> {
    this.checkOpen();
    return this.call('writeAnalyticsRuns', workerAnalyticsBatch(batch));
  }

  rollupTotals(websiteId: string, kind: AnalyticsKind, window: RollupWindow): Promise<RollupTotal[]> {
    return this.call('rollupTotals', websiteId, kind, window);
  }

  experimentSums(websiteId: string, kind: AnalyticsKind): Promise<ExperimentSums[]> {
    return this.call('experimentSums', websiteId, kind);
  }

  querySessions(websiteId: string, limit: number): Promise<QuerySessions[]> {
    return this.call('querySessions', websiteId, limit);
  }

  deleteExpired(websiteId: string, kind: RetentionKind, before: number, limit: number): Promise<number> {
    this.checkOpen();
    return this.call('deleteExpired', websiteId, kind, before, limit);
  }

  async insertSearchKey(record: SearchKeyRecord, limit: number): Promise<boolean> {
    this.checkOpen();
    return this.call('insertSearchKey', record, limit);
  }

  listSearchKeys(websiteId: string): Promise<SearchKeyRecord[]> {
    return this.call('listSearchKeys', websiteId);
  }

  findSearchKey(keyHash: string): Promise<SearchKeyRecord | undefined> {
    return this.call('findSearchKey', keyHash);
  }

  async deleteSearchKey(websiteId: string, id: string): Promise<boolean> {
    this.checkOpen();
    return this.call('deleteSearchKey', websiteId, id);
  }

  readClicks(websiteId: string, afterSeq: number, limit: number): Promise<StoredClick[]> {
    return this.call('readClicks', websiteId, afterSeq, limit);
  }

  clickCandidates(websiteId: string, query: ClickCandidatesQuery): Promise<StoredClick[]> {
    return this.call('clickCandidates', websiteId, query);
  }

  addResultPages(pages: readonly ResultPageRecord[]): Promise<void> {
    this.checkOpen();
    return this.call('addResultPageRuns', resultPageRuns(pages));
  }

  findResultPages(websiteId: string, queryIds: readonly string[]): Promise<ResultPageRecord[]> {
    return this.call('findResultPages', websiteId, queryIds);
  }

  pruneResultPages(retention: readonly ResultPageRetention[], limit: number): Promise<number> {
    this.checkOpen();
    return this.call('pruneResultPages', retention, limit);
  }

  async createExperiment(record: ExperimentRecord, now: number): Promise<boolean> {
    this.checkOpen();
    return this.call('createExperiment', record, now);
  }

  listExperiments(websiteId: string): Promise<ExperimentRecord[]> {
    return this.call('listExperiments', websiteId);
  }

  activeExperiments(): Promise<ExperimentRecord[]> {
    return this.call('activeExperiments');
  }

  stopExperiment(websiteId: string, id: string, at: number): Promise<ExperimentRecord | undefined> {
    this.checkOpen();
    return this.call('stopExperiment', websiteId, id, at);
  }

  deleteExperiment(websiteId: string, id: string): Promise<boolean> {
    this.checkOpen();
    return this.call('deleteExperiment', websiteId, id);
  }

  /** Flushes, closes the connection and stops the worker. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    await this.committer.flush();
    this.closed = true;
    try {
      if (this.gone === undefined) await this.call('close');
    } finally {
      this.stopping = true;
      this.gone ??= notOpen();
      await this.worker.terminate();
    }
  }
}
