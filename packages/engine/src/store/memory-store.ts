/**
 * The in-memory store: the same semantics as the durable stores, kept in this process only (tests,
 * benchmarks, embedding in a service that persists elsewhere).
 * @module
 */
import { GroupCommitStore } from './group-commit-store.js';
import { batchLookupKeys, clickKey, couponKey, orderKey, planBatch, planCouponIssue, type AppendOp, type AppendOpResult, type ClickRow, type EventRow, type StoredClickRef, type StoredOrder } from './plan.js';
import {
  MAX_READ_PAGE, type ClickCandidatesQuery, type CouponIssueData, type CouponIssueResult, type CouponRecord, type EventQuery, type MarkUsedOutcome,
  type ResultPageRecord, type ResultPageRetention, type StoredClick,
  type AnalyticsBatch, type AnalyticsKind, type ExperimentSums, type LoggedResponse, type QuerySessions, type RetentionKind, type RollupTotal, type RollupWindow,
  type Store, type StoreCounts, type StoredEvent, type StoredSettings,
  type SearchKeyRecord, type ExperimentRecord,
} from './store.js';
import { addCounters, experimentSumsOf, inWindow, LIFETIME_GRAIN, planOutcomes, rollupRowKey, rollupRowsOf, sumRollups, windowRanges, type CountedResponse, type RollupRow } from './analytics-rows.js';
import { isExpiredKey, rowToStoredEvent, searchKeyCounts } from './rows.js';

/** The index of the first of `rows` (in increasing `seq` order) whose `seq` is greater than `seq`. */
function indexAfter(rows: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A {@link Store} held in memory. */
export class MemoryStore extends GroupCommitStore implements Store {
  readonly kind = 'memory' as const;
  readonly durable = false;
  private readonly events: (EventRow & { seq: number })[] = [];
  /** The last sequence number given to an event, and to a click (retention deletes rows: never reused). */
  private lastEventSeq = 0;
  private lastClickSeq = 0;
  private readonly orders = new Map<string, StoredOrder>();
  private readonly coupons = new Map<string, CouponRecord>();
  /** Search keys by id. */
  private readonly searchKeys = new Map<string, SearchKeyRecord>();
  /** Experiments, oldest first. */
  private readonly experiments: ExperimentRecord[] = [];
  private readonly clicks: StoredClick[] = [];
  /** {@link clickKey} → the click first stored under it. */
  private readonly clickIds = new Map<string, StoredClickRef>();
  /** Result pages by website, then queryId, in insertion order. */
  private readonly resultPages = new Map<string, Map<string, ResultPageRecord>>();

  /** An empty store; hand it to `createEngine({ store })`, which closes it when the engine closes. */
  constructor() {
    // One batch at a time: a memory batch commits synchronously, so there is nothing to overlap.
    super();
  }

  protected commitBatch(ops: AppendOp[]): AppendOpResult[] {
    const keys = batchLookupKeys(ops);
    const existingOrders = new Map<string, StoredOrder>();
    for (const k of keys.orders) {
      const key = orderKey(k.websiteId, k.orderId);
      const order = this.orders.get(key);
      if (order !== undefined) existingOrders.set(key, order);
    }
    const existingCoupons = new Map<string, CouponRecord>();
    for (const k of keys.coupons) {
      const key = couponKey(k.websiteId, k.code);
      const c = this.coupons.get(key);
      if (c !== undefined) existingCoupons.set(key, c);
    }
    const existingClicks = new Map<string, StoredClickRef>();
    for (const k of keys.clicks) {
      const key = clickKey(k.websiteId, k.clickId);
      const first = this.clickIds.get(key);
      if (first !== undefined) existingClicks.set(key, first);
    }
    const plan = planBatch(ops, existingOrders, existingCoupons, existingClicks);
    for (const row of plan.clickRows) this.storeClick(row);
    for (const row of plan.rows) {
      this.events.push({ ...row, seq: ++this.lastEventSeq });
      if (row.orderId !== null) this.orders.set(orderKey(row.websiteId, row.orderId), { transactionId: row.transactionId, customerId: row.customerId, payload: row.payload });
    }
    for (const w of plan.couponWrites) {
      const key = couponKey(w.record.websiteId, w.record.code);
      const current = this.coupons.get(key);
      if (current === undefined) this.coupons.set(key, { ...w.record });
      else if (current.customerId === null) current.customerId = w.record.customerId;
    }
    return plan.results;
  }

  private storeClick(row: ClickRow): void {
    this.clicks.push({
      seq: ++this.lastClickSeq, websiteId: row.websiteId, transactionId: row.transactionId, customerId: row.customerId,
      sessionId: row.sessionId, receivedAt: row.receivedAt, click: JSON.parse(row.payload) as StoredClick['click'],
    });
    if (row.clickId !== null) {
      this.clickIds.set(clickKey(row.websiteId, row.clickId), { transactionId: row.transactionId, customerId: row.customerId, sessionId: row.sessionId, payload: row.payload });
    }
  }

  async readClicks(websiteId: string, afterSeq: number, limit: number): Promise<StoredClick[]> {
    const out: StoredClick[] = [];
    for (let i = indexAfter(this.clicks, afterSeq); i < this.clicks.length && out.length < Math.min(Math.max(1, limit), MAX_READ_PAGE); i++) {
      if (this.clicks[i]!.websiteId === websiteId) out.push(structuredClone(this.clicks[i]!));
    }
    return out;
  }

  async clickCandidates(websiteId: string, query: ClickCandidatesQuery): Promise<StoredClick[]> {
    const ids = new Set(query.clickIds);
    const refIds = new Set(query.refIds);
    return this.clicks.filter((c) => c.websiteId === websiteId && ((c.click.clickId !== undefined && ids.has(c.click.clickId))
      || (c.sessionId === query.sessionId && refIds.has(c.click.refId) && c.click.eventTimeMs >= query.since && c.click.eventTimeMs <= query.until)))
      .map((c) => structuredClone(c));
  }

  async addResultPages(pages: readonly ResultPageRecord[]): Promise<void> {
    this.checkOpen();
    for (const page of pages) {
      let byId = this.resultPages.get(page.websiteId);
      if (byId === undefined) this.resultPages.set(page.websiteId, (byId = new Map()));
      if (!byId.has(page.queryId)) byId.set(page.queryId, structuredClone(page));
    }
  }

  async findResultPages(websiteId: string, queryIds: readonly string[]): Promise<ResultPageRecord[]> {
    const byId = this.resultPages.get(websiteId);
    const found: ResultPageRecord[] = [];
    for (const id of queryIds) {
      const page = byId?.get(id);
      if (page !== undefined) found.push(structuredClone(page));
    }
    return found;
  }

  async pruneResultPages(retention: readonly ResultPageRetention[], limit: number): Promise<number> {
    this.checkOpen();
    let deleted = 0;
    for (const r of retention) {
      const byId = this.resultPages.get(r.websiteId);
      if (byId === undefined) continue;
      let expired = 0;
      for (const [id, page] of byId) if (page.createdAt < r.before && expired < limit) { byId.delete(id); expired++; }
      // Insertion order is answer order: the first entries are the oldest.
      let capped = 0;
      for (const id of byId.keys()) {
        if (byId.size <= r.keep || capped >= limit) break;
        byId.delete(id);
        capped++;
      }
      deleted += expired + capped;
    }
    return deleted;
  }

  async issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): Promise<CouponIssueResult> {
    this.checkOpen();
    await this.committer.flush();
    const existing = new Map<string, CouponRecord>();
    for (const c of coupons) {
      const stored = this.coupons.get(couponKey(websiteId, c.code));
      if (stored !== undefined) existing.set(c.code, stored);
    }
    const { fresh, conflicts } = planCouponIssue(coupons, existing);
    if (conflicts.length > 0) return { issued: 0, conflicts };
    for (const c of fresh) {
      this.coupons.set(couponKey(websiteId, c.code), {
        websiteId, code: c.code, customerId: c.customerId ?? null, discount: c.discount ?? null,
        state: 'issued', source: 'admin', issuedAt, usedAt: null,
      });
    }
    return { issued: fresh.length };
  }

  async markCouponUsed(websiteId: string, code: string, usedAt: number): Promise<MarkUsedOutcome> {
    this.checkOpen();
    await this.committer.flush();
    const coupon = this.coupons.get(couponKey(websiteId, code));
    if (coupon === undefined) return { status: 'not_found' };
    if (coupon.state === 'used') return { status: 'already_used', usedAt: coupon.usedAt ?? usedAt };
    coupon.state = 'used';
    coupon.usedAt = usedAt;
    return { status: 'used', usedAt };
  }

  async getCoupon(websiteId: string, code: string): Promise<CouponRecord | undefined> {
    const c = this.coupons.get(couponKey(websiteId, code));
    return c === undefined ? undefined : { ...c };
  }

  async counts(websiteId: string): Promise<StoreCounts> {
    let views = 0;
    let orders = 0;
    const transactions = new Set<string>();
    for (const e of this.events) {
      if (e.websiteId !== websiteId) continue;
      if (e.kind === 'view') views++;
      else {
        orders++;
        transactions.add(e.transactionId);
      }
    }
    let issued = 0;
    let used = 0;
    for (const c of this.coupons.values()) {
      if (c.websiteId !== websiteId) continue;
      issued++;
      if (c.state === 'used') used++;
    }
    return { views, purchases: transactions.size, orders, coupons: { issued, used } };
  }

  async readEvents(query: EventQuery): Promise<StoredEvent[]> {
    const limit = Math.min(Math.max(1, query.limit), MAX_READ_PAGE);
    const out: StoredEvent[] = [];
    for (let i = indexAfter(this.events, query.afterSeq); i < this.events.length && out.length < limit; i++) {
      const row = this.events[i]!;
      if (query.websiteId !== undefined && row.websiteId !== query.websiteId) continue;
      if (query.kind !== undefined && row.kind !== query.kind) continue;
      out.push(rowToStoredEvent(row));
    }
    return out;
  }

  async lastSequence(): Promise<number> {
    return this.lastEventSeq;
  }

  private readonly settings = new Map<string, StoredSettings>();
  private settingsVersion = 0;

  async getSettings(websiteId: string): Promise<StoredSettings | undefined> {
    const row = this.settings.get(websiteId);
    return row === undefined ? undefined : structuredClone(row);
  }

  async putSettings(websiteId: string, settings: Record<string, unknown>, ifVersion: number): Promise<StoredSettings | undefined> {
    this.checkOpen();
    if ((this.settings.get(websiteId)?.version ?? 0) !== ifVersion) return undefined;
    const row: StoredSettings = { websiteId, settings: structuredClone(settings), version: ++this.settingsVersion };
    this.settings.set(websiteId, row);
    return structuredClone(row);
  }

  private readonly rollups = new Map<string, RollupRow>();
  private readonly responses = new Map<string, LoggedResponse & { clicked: boolean; converted: boolean }>();
  /** Session hashes by website and query. */
  private readonly sessions = new Map<string, { websiteId: string; query: string; hours: Map<string, number> }>();

  async writeAnalytics(batch: AnalyticsBatch): Promise<number[]> {
    this.checkOpen();
    for (const r of batch.responses) if (!this.responses.has(r.queryId)) this.responses.set(r.queryId, { ...r, clicked: false, converted: false });
    const found = new Map<string, CountedResponse>();
    for (const o of batch.outcomes) {
      const own = o.queryId === undefined ? undefined : this.responses.get(o.queryId);
      const counted = own && own.websiteId === o.websiteId ? this.responses.get(own.countedAs ?? own.queryId) : undefined;
      if (counted) found.set(o.queryId!, { queryId: counted.queryId, at: counted.at, key: counted.key, clicked: counted.clicked, converted: counted.converted });
    }
    const plan = planOutcomes(batch.outcomes, found);
    for (const f of plan.flags) this.responses.get(f.queryId)![f.flag] = true;
    for (const row of rollupRowsOf([...batch.rollups, ...plan.deltas])) {
      const k = rollupRowKey(row);
      const had = this.rollups.get(k);
      if (had) addCounters(had.counters, row.counters);
      else this.rollups.set(k, row);
    }
    for (const e of batch.sessions) {
      const k = JSON.stringify([e.websiteId, e.query]);
      let q = this.sessions.get(k);
      if (q === undefined) this.sessions.set(k, (q = { websiteId: e.websiteId, query: e.query, hours: new Map() }));
      if (!q.hours.has(e.session)) q.hours.set(e.session, e.hour);
    }
    return plan.waiting;
  }

  async rollupTotals(websiteId: string, kind: AnalyticsKind, window: RollupWindow): Promise<RollupTotal[]> {
    const ranges = windowRanges(window);
    return sumRollups([...this.rollups.values()].filter((r) => r.websiteId === websiteId && r.kind === kind && inWindow(ranges, r.grain, r.start)));
  }

  async experimentSums(websiteId: string, kind: AnalyticsKind): Promise<ExperimentSums[]> {
    return experimentSumsOf(sumRollups([...this.rollups.values()].filter((r) => r.websiteId === websiteId && r.kind === kind && r.grain === LIFETIME_GRAIN)));
  }

  async querySessions(websiteId: string, limit: number): Promise<QuerySessions[]> {
    return [...this.sessions.values()].filter((q) => q.websiteId === websiteId && q.hours.size > 0)
      .map((q) => ({ query: q.query, sessions: [...q.hours.keys()] }))
      .sort((a, b) => b.sessions.length - a.sessions.length || (a.query < b.query ? -1 : 1)).slice(0, limit);
  }

  async deleteExpired(websiteId: string, kind: RetentionKind, before: number, limit: number): Promise<number> {
    this.checkOpen();
    let deleted = 0;
    if (kind === 'views' || kind === 'purchases') {
      const eventKind = kind === 'views' ? 'view' : 'purchase';
      for (let i = 0; i < this.events.length && deleted < limit; i++) {
        const e = this.events[i]!;
        if (e.websiteId !== websiteId || e.kind !== eventKind || e.receivedAt >= before) continue;
        this.events.splice(i--, 1);
        deleted++;
      }
      return deleted;
    }
    if (kind === 'clicks') {
      for (let i = 0; i < this.clicks.length && deleted < limit; i++) {
        const c = this.clicks[i]!;
        if (c.websiteId !== websiteId || c.receivedAt >= before) continue;
        this.clicks.splice(i--, 1);
        deleted++;
      }
      return deleted;
    }
    const responseKind = kind === 'searches' ? 'search' : 'recommendation';
    for (const [id, r] of this.responses) {
      if (deleted >= limit) break;
      if (r.websiteId === websiteId && r.kind === responseKind && r.at < before) { this.responses.delete(id); deleted++; }
    }
    if (kind === 'searches') {
      // Their own batch, as the SQL stores delete them with a statement of their own.
      let sessions = 0;
      for (const q of this.sessions.values()) {
        if (q.websiteId === websiteId) for (const [session, hour] of q.hours) if (hour < before && sessions < limit) { q.hours.delete(session); sessions++; }
      }
      deleted += sessions;
    }
    return deleted;
  }

  async settingsSince(version: number): Promise<StoredSettings[]> {
    return [...this.settings.values()].filter((r) => r.version > version).sort((a, b) => a.version - b.version).map((r) => structuredClone(r));
  }

  async insertSearchKey(record: SearchKeyRecord, limit: number): Promise<boolean> {
    this.checkOpen();
    // Counted and inserted in one turn of the loop: no other create runs in between.
    const held = searchKeyCounts([...this.searchKeys.values()].filter((k) => k.websiteId === record.websiteId), record.createdAt);
    for (const k of this.searchKeys.values()) {
      if (k.id === record.id || k.keyHash === record.keyHash) throw new Error(`search key ${record.id} already exists`);
    }
    if (held.live >= limit) return false;
    if (held.total >= limit) {
      for (const [id, k] of this.searchKeys) if (k.websiteId === record.websiteId && isExpiredKey(k.expiresAt, record.createdAt)) this.searchKeys.delete(id);
    }
    this.searchKeys.set(record.id, structuredClone(record));
    return true;
  }

  async listSearchKeys(websiteId: string): Promise<SearchKeyRecord[]> {
    return [...this.searchKeys.values()].filter((k) => k.websiteId === websiteId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map((k) => structuredClone(k));
  }

  async findSearchKey(keyHash: string): Promise<SearchKeyRecord | undefined> {
    for (const k of this.searchKeys.values()) if (k.keyHash === keyHash) return structuredClone(k);
    return undefined;
  }

  async deleteSearchKey(websiteId: string, id: string): Promise<boolean> {
    this.checkOpen();
    const k = this.searchKeys.get(id);
    if (k === undefined || k.websiteId !== websiteId) return false;
    return this.searchKeys.delete(id);
  }

  async createExperiment(record: ExperimentRecord, now: number): Promise<boolean> {
    this.checkOpen();
    const same = (e: ExperimentRecord) => e.websiteId === record.websiteId && e.kind === record.kind && e.stoppedAt === null;
    for (const e of this.experiments) if (same(e) && e.until !== null && e.until <= now) e.stoppedAt = e.until;
    if (this.experiments.some((e) => same(e) || (e.websiteId === record.websiteId && e.id === record.id))) return false;
    this.experiments.push(structuredClone(record));
    return true;
  }

  async listExperiments(websiteId: string): Promise<ExperimentRecord[]> {
    return this.experiments.filter((e) => e.websiteId === websiteId).map((e) => structuredClone(e));
  }

  async activeExperiments(): Promise<ExperimentRecord[]> {
    return this.experiments.filter((e) => e.stoppedAt === null).map((e) => structuredClone(e));
  }

  async stopExperiment(websiteId: string, id: string, at: number): Promise<ExperimentRecord | undefined> {
    this.checkOpen();
    const e = this.experiments.find((x) => x.websiteId === websiteId && x.id === id);
    if (e === undefined) return undefined;
    e.stoppedAt ??= at;
    return structuredClone(e);
  }

  async deleteExperiment(websiteId: string, id: string): Promise<boolean> {
    this.checkOpen();
    const i = this.experiments.findIndex((x) => x.websiteId === websiteId && x.id === id && x.stoppedAt !== null);
    if (i < 0) return false;
    this.experiments.splice(i, 1);
    return true;
  }

  async close(): Promise<void> {
    await this.committer.flush();
    this.closed = true;
  }
}
