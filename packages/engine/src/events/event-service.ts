/**
 * The event service: validates purchase and view bodies, checks retail-media slot data, stores events
 * durably (group commit), acknowledges, then feeds the recommendation models through an
 * {@link EventSink}. It also runs the coupon ledger and the attribution report, and — on a store
 * other processes write to as well ({@link Store.sharing}) — polls the store for events written by them.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { FailureReporter } from '../background-failures.js';
import type { StoreConfig, WebsiteConfig } from '../config.js';
import type { AttributionReport, CouponIssue, CouponUseResult } from '../engine-api.js';
import { AttributionReportQuerySchema, readReportTimes, type AttributionReportParams } from '../contract/query-schemas.js';
import { storeCall } from '../store/store-call.js';
import { isStorableText } from '../contract/formats.js';
import { AisleError, ValidationError, isAisleError } from '../errors.js';
import { customerKey } from '../contract/formats.js';
import { attributionWindowDays, checkRetailMedia } from '../retail-media/index.js';
import { openStore } from '../store/open-store.js';
import type { ClickConflict, ClickEventData, CouponIssueConflict, CouponIssueData, CouponIssueResult, OrderOutcome, PurchaseEventData, ResultPageRecord, Store, StoredClick, StoredEvent } from '../store/store.js';
import { MAX_EVENTS_PER_REQUEST, MAX_VIEWS_PER_REQUEST } from '../contract/limits.js';
import type { EventAck, PurchaseRecord, ViewRecord } from '../types.js';
import { randomGuid } from '../util/ids.js';
import { buildAttributionReport, inWebsiteCurrency, websiteCurrencyOf, type PurchaseArrival } from './attribution.js';
import { ClickIndex, clickOutcome, conversionOutcome, convertedClick, type ClickOutcome } from './click-attribution.js';
import { MAX_EVENT_TIME_SKEW_MS, modelEventTime } from './event-time.js';
import { listIdsOf } from './result-list-refs.js';
import { validateClickRequest } from './validate-clicks.js';
import { checkEventBody, normaliseValues } from './event-body.js';
import { problemDetails, unknownReportParameters } from './validate-common.js';
import { problemDetails as statusProblem, problemPath } from '../contract/errors.js';
import { validatePurchaseRequest } from './validate-purchases.js';
import { validateViewRequest } from './validate-views.js';

/** Receives every event once it is durable (and, on replay, every stored event in order). */
export interface EventSink {
  onPurchase(purchase: PurchaseRecord): void;
  onView(view: ViewRecord): void;
  /**
   * The analytics hook: a click on a result list once it is durable, and a purchased line once it is
   * attributed to such a click (events recorded by this instance, not replayed ones).
   */
  onClickOutcome?(outcome: ClickOutcome): void;
}

/**
 * Looks up the result lists of a website by id (the engine's `ResultPages.find`): those not found are
 * missing from the answer.
 */
export type ResultListLookup = (websiteId: string, queryIds: readonly string[]) => Promise<ReadonlyMap<string, ResultPageRecord>>;

/** A look-up that finds nothing (every queryId is then reported unknown). */
const NO_RESULT_LISTS: ResultListLookup = async () => new Map();

const DAY_MS = 86_400_000;

/** Options of {@link EventService.open}. */
export interface EventServiceOptions {
  /** Where events live: a store instance, or a configuration (see {@link openStore}, also for the choice when absent). */
  store?: StoreConfig | Store;
  dataDir?: string;
  websites: readonly WebsiteConfig[];
  sink: EventSink;
  /** Clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /** Called when the sink throws (the event stays stored and acknowledged). Default: a process warning. */
  onSinkError?: (err: unknown) => void;
  /** Where background failures go (replica polls, the sink, closing after a failed start). */
  reporter?: FailureReporter;
}

/** Events read per page by replay, polling and reports. */
const PAGE = 5000;

export { MAX_EVENT_TIME_SKEW_MS, modelEventTime } from './event-time.js';

function purchaseRecord(websiteId: string, customerId: string, sessionId: string, e: PurchaseEventData, receivedAt: number): PurchaseRecord {
  return {
    websiteId, customerId, sessionId, orderId: e.orderId, eventTime: modelEventTime(e.eventTimeMs, receivedAt),
    items: e.products.map((p) => ({ refId: p.refId, quantity: p.quantity, price: p.price })),
  };
}

/** An id (orderId, clickId) a request sent again with other content: where it is in the body, and its first transactionId. */
interface Replayed {
  /** The property path of the id in the body (`events[2].orderId`). */
  path: string;
  id: string;
  transactionId: string;
}

/**
 * Throws `ORDER_CONFLICT` / `CLICK_CONFLICT` (409) when the store refused a request because an id it
 * already holds came with other content (store/plan.ts: then nothing of the request was stored). A replay
 * with the same content is not a conflict: it answers the first transactionId, as the spec's idempotency wants.
 */
function refuseReplays(code: 'ORDER_CONFLICT' | 'CLICK_CONFLICT', noun: 'order' | 'click', conflicts: readonly Replayed[]): void {
  if (conflicts.length === 0) return;
  const errors: Record<string, string[]> = {};
  for (const c of conflicts) {
    errors[problemPath(c.path)] = [`The ${noun} ${JSON.stringify(c.id)} was already recorded (transactionId ${c.transactionId}) with other content; a replay must repeat it exactly. Nothing of this request was stored.`];
  }
  throw new AisleError(code, `${conflicts.length} ${noun}(s) already recorded with other content: ${conflicts.slice(0, 5).map((c) => c.id).join(', ')}; nothing was stored`, {
    problem: statusProblem(409, errors),
  });
}

/** {@link refuseReplays} for the orders of a purchase append. */
function refuseConflicts(events: readonly { orderId: string }[], orders: readonly OrderOutcome[]): void {
  refuseReplays('ORDER_CONFLICT', 'order', orders.filter((o) => o.status === 'conflict').map((c) => ({
    path: `events[${events.findIndex((e) => e.orderId === c.orderId)}].orderId`, id: c.orderId, transactionId: c.transactionId,
  })));
}

/** {@link refuseReplays} for the clicks of a click append. */
function refuseClickConflicts(conflicts: readonly ClickConflict[] | undefined): void {
  refuseReplays('CLICK_CONFLICT', 'click', (conflicts ?? []).map((c) => ({ path: `events[${c.index}].clickId`, id: c.clickId, transactionId: c.transactionId })));
}

/**
 * Throws `COUPON_CONFLICT` (409) when the store refused an issue because a code it already holds came
 * with another customer or discount (nothing of the issue was stored), naming each under `coupons[i].Code`.
 * The stored customer is not quoted: an error message may reach a log.
 */
function refuseCouponConflicts(conflicts: readonly CouponIssueConflict[]): void {
  if (conflicts.length === 0) return;
  const errors: Record<string, string[]> = {};
  for (const c of conflicts) {
    const stored = c.fields.map((f) => {
      if (f === 'discount') return `discount ${c.storedDiscount ?? 'none'}`;
      // Unbound, the first purchase carrying the code binds it: "another customer" would be untrue.
      return c.storedBound ? 'another customerId' : 'no customerId';
    }).join(' and ');
    errors[problemPath(`coupons[${c.index}].code`)] = [
      `The code ${JSON.stringify(c.code)} was already issued with ${stored}; an issue sent again must repeat it (or leave the field out). Nothing of this request was issued.`,
    ];
  }
  throw new AisleError('COUPON_CONFLICT', `${conflicts.length} code(s) already issued with other content: ${conflicts.slice(0, 5).map((c) => c.code).join(', ')}; nothing was issued`, {
    problem: statusProblem(409, errors),
  });
}

function storeFailure(err: unknown): never {
  if (isAisleError(err)) throw err;
  throw new AisleError('STORE_FAILURE', `The event store failed; nothing was acknowledged: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

/** The event service; see the module comment and docs/events-and-stores.md. */
export class EventService {
  private readonly byId = new Map<string, WebsiteConfig>();
  private readonly byClient = new Map<string, WebsiteConfig>();
  /** This instance's id, stored with every event it writes; pollers skip their own events. */
  private readonly origin = randomGuid();
  private readonly now: () => number;
  private pollCursor = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Serialises polling and replay so the sink sees each stored event in order. */
  private readerChain: Promise<void> = Promise.resolve();
  private closed = false;
  /**
   * While {@link replay} runs: the sink calls of events recorded here meanwhile, fed once the stored
   * events are (so the sink sees every event in order: the stored ones, then the new ones).
   */
  private heldFeeds: (() => void)[] | undefined;
  /** Set by {@link close}: a replay still running stops at its next page. */
  private closing = false;
  /** The last stored event {@link replay} has fed (a failed replay goes on from there). */
  private replayCursor = 0;
  /** Per website, the last stored event its models already hold (a checkpoint): replay skips those. */
  private replayHeld: ReadonlyMap<string, number> = new Map();
  /** Event writes of this instance not yet fed to the sink (see {@link atQuietPoint}). */
  private writesInFlight = 0;
  /** Set while {@link atQuietPoint} waits: new event writes wait for it. */
  private pause: Promise<void> | undefined;
  /** Resolved when {@link writesInFlight} drops to 0. */
  private quietWaiters: (() => void)[] = [];

  private constructor(
    /** The store in use. */
    readonly store: Store,
    private readonly sink: EventSink,
    options: EventServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
    const reporter = options.reporter ?? new FailureReporter();
    this.onSinkError = options.onSinkError ?? ((err) => reporter.report('event-sink', err));
    for (const w of options.websites) this.addWebsite(w);
  }

  private readonly onSinkError: (err: unknown) => void;

  /**
   * Opens the store (memory without `store` and `dataDir`; SQLite in `dataDir` by default; PostgreSQL
   * when configured; an instance as it is) and, when other processes share it, starts polling for
   * their events every `sharing.pollIntervalMs` from the store's current end.
   */
  static async open(options: EventServiceOptions): Promise<EventService> {
    const reporter = options.reporter ?? new FailureReporter();
    const store = await openStore(options.store, options.dataDir);
    const service = new EventService(store, options.sink, options);
    const sharing = store.sharing;
    if (sharing !== undefined) {
      try {
        service.pollCursor = await store.lastSequence();
      } catch (err) {
        // The start fails with the store's error; closing what was opened is best effort.
        await store.close().catch((closeError: unknown) => reporter.report('shutdown', closeError));
        storeFailure(err);
      }
      service.pollTimer = setInterval(() => {
        void service.pollOnce().then(() => reporter.recovered('replica-poll'), (err: unknown) => reporter.reportRetried('replica-poll', err));
      }, sharing.pollIntervalMs);
      service.pollTimer.unref();
    }
    return service;
  }

  /** Adds (or replaces) a website. */
  addWebsite(config: WebsiteConfig): void {
    const previous = this.byId.get(config.websiteId);
    if (previous !== undefined) this.byClient.delete(previous.client);
    this.byId.set(config.websiteId, config);
    this.byClient.set(config.client, config);
  }

  private website(websiteId: string): WebsiteConfig {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'The event service is closed.');
    const w = this.byId.get(websiteId);
    if (w === undefined) throw new AisleError('WEBSITE_NOT_FOUND', `Unknown website "${websiteId}".`, { details: { websiteId } });
    return w;
  }

  /** Feeds the sink an event recorded here: now, or after the replay running. */
  private feed(fn: () => void): void {
    if (this.heldFeeds) this.heldFeeds.push(fn);
    else this.feedNow(fn);
  }

  private feedNow(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onSinkError(err);
    }
  }

  /**
   * Validates a purchase body, stores its new orders durably and acknowledges. Orders already recorded
   * for the website are not stored again; a request whose every order was already recorded answers the
   * first event's original transactionId, otherwise the request's new one.
   * @throws {ValidationError} for an invalid body (nothing is stored).
   */
  async recordPurchases(websiteId: string, body: unknown): Promise<EventAck> {
    const website = this.website(websiteId);
    const request = validatePurchaseRequest(body);
    const events = request.events.map((e) => checkRetailMedia(e, website));
    await this.writable();
    this.writesInFlight++;
    const receivedAt = this.now();
    let result;
    const recorded: PurchaseEventData[] = [];
    try {
      try {
        result = await this.store.appendPurchases({
          websiteId, transactionId: randomGuid(), customerId: request.customerId, sessionId: request.sessionId,
          origin: this.origin, receivedAt, events,
        });
      } catch (err) {
        storeFailure(err);
      }
      refuseConflicts(request.events, result.orders);
      for (const order of result.orders) {
        if (order.status === 'recorded' && order.event !== undefined) {
          const event = order.event;
          recorded.push(event);
          this.feed(() => this.sink.onPurchase(purchaseRecord(websiteId, request.customerId, request.sessionId, event, receivedAt)));
        }
      }
    } finally {
      this.writeDone();
    }
    // After the write window: the conversions feed the analytics hook, not the models, so a checkpoint need not wait for them.
    if (this.sink.onClickOutcome !== undefined && recorded.length > 0) await this.reportConversions(website, request.sessionId, recorded, receivedAt);
    return { transactionId: result.transactionId, status: 'Accepted' };
  }

  /**
   * Tells the analytics hook which lines of purchases just stored convert a click (click-attribution.ts).
   * The purchases are acknowledged whatever happens here: a failed look-up goes to `onSinkError`.
   */
  private async reportConversions(website: WebsiteConfig, sessionId: string, events: readonly PurchaseEventData[], receivedAt: number): Promise<void> {
    const windowMs = attributionWindowDays(website) * DAY_MS;
    const times = events.map((e) => modelEventTime(e.eventTimeMs, receivedAt));
    const lines = events.flatMap((e) => e.products);
    let candidates: StoredClick[];
    try {
      candidates = await this.store.clickCandidates(website.websiteId, {
        clickIds: [...new Set(lines.flatMap((p) => (p.clickId === undefined ? [] : [p.clickId])))], sessionId,
        refIds: [...new Set(lines.map((p) => p.refId))], since: Math.min(...times) - windowMs, until: Math.max(...times) + MAX_EVENT_TIME_SKEW_MS,
      });
    } catch (err) {
      this.onSinkError(err);
      return;
    }
    if (candidates.length === 0) return;
    const clicks = new ClickIndex(candidates);
    const currency = websiteCurrencyOf(website.settings);
    events.forEach((event, i) => {
      // A conversion in another currency than the website's is a conversion without revenue: the reports' roll-ups never add two currencies.
      const counted = inWebsiteCurrency(event.currencyCode, currency);
      for (const p of event.products) {
        const converted = convertedClick(p, { sessionId, eventTimeMs: event.eventTimeMs, receivedAt }, windowMs, clicks);
        if (converted !== undefined) {
          const outcome = conversionOutcome(website.websiteId, times[i]!, converted, counted ? p.price * p.quantity : 0);
          this.feed(() => this.sink.onClickOutcome?.(outcome));
        }
      }
    });
  }

  /**
   * Validates a views body (extension), stores it durably and acknowledges.
   * @throws {ValidationError} for an invalid body (nothing is stored).
   */
  async recordViews(websiteId: string, body: unknown, lists: ResultListLookup = NO_RESULT_LISTS): Promise<EventAck> {
    this.website(websiteId);
    const request = validateViewRequest(body, await lists(websiteId, listIdsOf(body, MAX_VIEWS_PER_REQUEST)));
    const transactionId = randomGuid();
    await this.writable();
    this.writesInFlight++;
    try {
      const receivedAt = this.now();
      try {
        await this.store.appendViews({
          websiteId, transactionId, customerId: request.customerId, sessionId: request.sessionId,
          origin: this.origin, receivedAt, views: request.events,
        });
      } catch (err) {
        storeFailure(err);
      }
      for (const v of request.events) {
        this.feed(() => this.sink.onView({ websiteId, customerId: request.customerId, sessionId: request.sessionId, refId: v.refId, eventTime: modelEventTime(v.eventTimeMs, receivedAt) }));
      }
      return { transactionId, status: 'Accepted' };
    } finally {
      this.writeDone();
    }
  }

  /**
   * Validates a clicks body (extension) against the contract and the result lists its `queryId`s name
   * (looked up with `lists`), stores its new clicks durably (a clickId already recorded for the website
   * is not stored again) and acknowledges; then tells the analytics hook about each stored click.
   * @throws {ValidationError} for an invalid body (nothing is stored).
   */
  async recordClicks(websiteId: string, body: unknown, lists: ResultListLookup): Promise<EventAck> {
    this.website(websiteId);
    const request = validateClickRequest(body, await lists(websiteId, listIdsOf(body, MAX_EVENTS_PER_REQUEST)));
    let result;
    try {
      result = await this.store.appendClicks({
        websiteId, transactionId: randomGuid(), customerId: request.customerId, sessionId: request.sessionId,
        origin: this.origin, receivedAt: this.now(), clicks: request.events,
      });
    } catch (err) {
      storeFailure(err);
    }
    refuseClickConflicts(result.conflicts);
    for (const i of result.stored) {
      const outcome = clickOutcome(websiteId, request.events[i]!);
      if (outcome !== undefined) this.feed(() => this.sink.onClickOutcome?.(outcome));
    }
    return { transactionId: result.transactionId, status: 'Accepted' };
  }

  /**
   * The coupon call: marks a code used. `client` is the website id or its client shortcode.
   * @throws {AisleError} `COUPON_BAD_REQUEST` (missing/empty), `COUPON_NOT_FOUND` (unknown code or client), `COUPON_ALREADY_USED`.
   */
  async markCouponUsed(client: string, code: string): Promise<CouponUseResult> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'The event service is closed.');
    if (typeof code !== 'string' || code.trim() === '') throw new AisleError('COUPON_BAD_REQUEST', 'The code parameter is required.', { details: { field: 'code' } });
    if (typeof client !== 'string' || client.trim() === '') throw new AisleError('COUPON_BAD_REQUEST', 'The client parameter is required.', { details: { field: 'client' } });
    const website = this.byId.get(client) ?? this.byClient.get(client);
    if (website === undefined) throw new AisleError('COUPON_NOT_FOUND', `Unknown client "${client}".`, { details: { field: 'client' } });
    // No code is stored with text a SQL store cannot hold (issues and purchases refuse it): such a code is
    // unknown, not a store failure (PostgreSQL failed on it: 503 on this public call).
    if (!isStorableText(code)) throw new AisleError('COUPON_NOT_FOUND', `Unknown coupon code ${JSON.stringify(code)}.`, { details: { field: 'code' } });
    let outcome;
    try {
      outcome = await this.store.markCouponUsed(website.websiteId, code, this.now());
    } catch (err) {
      storeFailure(err);
    }
    if (outcome.status === 'not_found') throw new AisleError('COUPON_NOT_FOUND', `Unknown coupon code "${code}".`, { details: { field: 'code' } });
    if (outcome.status === 'already_used') {
      throw new AisleError('COUPON_ALREADY_USED', `The coupon code "${code}" was already used at ${new Date(outcome.usedAt).toISOString()}.`, { details: { usedAt: new Date(outcome.usedAt).toISOString() } });
    }
    return { code, websiteId: website.websiteId, usedAt: new Date(outcome.usedAt).toISOString() };
  }

  /**
   * Issues codes (admin API): each becomes known in state `issued`; codes already known are left as
   * they are and not counted, unless the issue names another `customerId` or `discount` for one: then
   * nothing is issued (`COUPON_CONFLICT`, 409). Customer ids in GUID form are lower-cased like those of purchases.
   * @throws {ValidationError} with paths `coupons[0].Code`, … for bad entries (nothing is issued).
   */
  async issueCoupons(websiteId: string, coupons: readonly CouponIssue[]): Promise<{ issued: number }> {
    this.website(websiteId);
    // The contract's CouponIssueRequest is the one check (the adapter runs the same schema on the wire body).
    const { value, errors } = checkEventBody('CouponIssueRequest', { coupons });
    errors.throwIfAny();
    const valid = normaliseValues<{ coupons: CouponIssueData[] }>('CouponIssueRequest', value).coupons.map((c) => {
      // A GUID-shaped customer id is matched as purchases store it (lower case); any other id as given.
      const key = c.customerId === undefined ? undefined : customerKey(c.customerId);
      return key === c.customerId ? c : { ...c, customerId: key };
    });
    // A code twice with two contents: the store would keep one of them and answer `issued: 1` as if the
    // request had been taken as sent. The same content twice is one code, as before.
    const firstOfCode = new Map<string, number>();
    valid.forEach((c, i) => {
      const first = firstOfCode.get(c.code);
      if (first === undefined) firstOfCode.set(c.code, i);
      else if (!isDeepStrictEqual(valid[first], c)) errors.add(problemPath(`coupons[${i}].code`), `coupons[${i}].code ${JSON.stringify(c.code)} is also coupons[${first}], with another customerId or discount: send each code once.`);
    });
    errors.throwIfAny();
    // The store takes each code once; a conflict's index is mapped back to the request's first entry of the code.
    const indexes = [...firstOfCode.values()];
    let result: CouponIssueResult;
    try {
      result = await this.store.issueCoupons(websiteId, indexes.map((i) => valid[i]!), this.now());
    } catch (err) {
      storeFailure(err);
    }
    refuseCouponConflicts((result.conflicts ?? []).map((c) => ({ ...c, index: indexes[c.index]! })));
    return { issued: result.issued };
  }

  /** Counters of a website: views, purchase requests, orders, coupons issued and used. */
  async counts(websiteId: string): Promise<{ views: number; purchases: number; orders: number; coupons: { issued: number; used: number } }> {
    this.website(websiteId);
    // A store out of reach is a 503 to retry, like the writes (it was an untyped error: a 500).
    return storeCall(() => this.store.counts(websiteId));
  }

  /**
   * The attribution report over the website's purchases with event time in [from, to] (ISO 8601, both
   * optional, inclusive).
   * @throws {ValidationError} for an unparseable `from` or `to`.
   */
  async attributionReport(websiteId: string, range: AttributionReportParams = {}): Promise<AttributionReport> {
    const website = this.website(websiteId);
    const { fromMs, toMs, errors } = readReportTimes(range);
    Object.assign(errors, unknownReportParameters(range, AttributionReportQuerySchema));
    if (Object.keys(errors).length > 0) throw new ValidationError(problemDetails(errors));
    const { events, arrivals, clicks } = await storeCall(() => this.attributionInputs(websiteId));
    return buildAttributionReport(websiteId, events, {
      ...(range.from !== undefined && { from: range.from, fromMs }), ...(range.to !== undefined && { to: range.to, toMs }),
    }, { clicks: new ClickIndex(clicks), windowMs: attributionWindowDays(website) * DAY_MS, arrivalOf: (e) => arrivals.get(e)! }, websiteCurrencyOf(website.settings));
  }

  /** The website's stored purchases (with their sessions) and clicks, which the attribution report reads. */
  private async attributionInputs(websiteId: string): Promise<{ events: PurchaseEventData[]; arrivals: Map<PurchaseEventData, PurchaseArrival>; clicks: StoredClick[] }> {
    const events: PurchaseEventData[] = [];
    const arrivals = new Map<PurchaseEventData, PurchaseArrival>();
    for (let after = 0; ;) {
      const page = await this.store.readEvents({ afterSeq: after, limit: PAGE, websiteId, kind: 'purchase' });
      for (const e of page) {
        if (e.kind !== 'purchase') continue;
        events.push(e.purchase);
        arrivals.set(e.purchase, { sessionId: e.sessionId, receivedAt: e.receivedAt });
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    const clicks: StoredClick[] = [];
    for (let after = 0; ;) {
      const page = await this.store.readClicks(websiteId, after, PAGE);
      clicks.push(...page);
      if (page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    return { events, arrivals, clicks };
  }

  /** Waits while {@link atQuietPoint} holds new event writes back. */
  private async writable(): Promise<void> {
    while (this.pause) await this.pause;
  }

  /** An event write is over (stored and fed, or failed). */
  private writeDone(): void {
    if (--this.writesInFlight === 0) for (const wake of this.quietWaiters.splice(0)) wake();
  }

  /**
   * Runs `fn` at a moment when the sink holds exactly the stored events up to the store's last
   * sequence number, passed to it: new event writes wait (until the ones in flight are stored and fed,
   * and `fn` has resolved), the replay and polls are not running, so nothing is fed to the sink until
   * `fn` is over, even when it takes turns of the event loop. For checkpoints of the models (`fn` copies
   * what it needs). Not run (undefined) while the replay of the stored events is not over.
   *
   * On a store other replicas write too ({@link Store.sharing}), their events reach the sink when polled:
   * once this instance's writes are over, the events stored up to now are polled (the store makes
   * sequence numbers visible in increasing order), so the sink holds every stored event up to the poll's
   * last one — the number passed — and none after it (this instance's own events are all before it).
   */
  atQuietPoint<T>(fn: (lastSeq: number) => T | Promise<T>): Promise<T | undefined> {
    return this.exclusive<T | undefined>(async () => {
      if (this.heldFeeds !== undefined || this.closed) return undefined;
      let release!: () => void;
      this.pause = new Promise<void>((resolve) => { release = resolve; });
      try {
        while (this.writesInFlight > 0) await new Promise<void>((resolve) => this.quietWaiters.push(resolve));
        let lastSeq: number;
        if (this.store.sharing === undefined) lastSeq = await this.store.lastSequence();
        else {
          await this.pollPages();
          lastSeq = this.pollCursor;
        }
        // Awaited here: the writes stay paused until `fn` is over.
        return await fn(lastSeq);
      } finally {
        this.pause = undefined;
        release();
      }
    });
  }

  private feedStored(e: StoredEvent): void {
    if (!this.byId.has(e.websiteId)) return;
    // Already in the website's models (loaded from a checkpoint).
    if (e.seq <= (this.replayHeld.get(e.websiteId) ?? 0)) return;
    if (e.kind === 'purchase') this.feedNow(() => this.sink.onPurchase(purchaseRecord(e.websiteId, e.customerId, e.sessionId, e.purchase, e.receivedAt)));
    else this.feedNow(() => this.sink.onView({ websiteId: e.websiteId, customerId: e.customerId, sessionId: e.sessionId, refId: e.view.refId, eventTime: modelEventTime(e.view.eventTimeMs, e.receivedAt) }));
  }

  private exclusive<T = void>(fn: () => Promise<T>): Promise<T> {
    const run = this.readerChain.then(fn);
    // The chain only orders the readers; each run's failure goes to its own caller.
    this.readerChain = run.then(() => undefined, () => undefined);
    return run;
  }

  /**
   * Feeds the sink with every stored event of the configured websites, in store order (model rebuild at
   * start). Events may be recorded while it runs: each is stored and acknowledged at once, and fed to
   * the sink after the stored ones (it is read back from the store too, and skipped there by its origin).
   * A replay that fails (the store went away) can be called again: it goes on after the last event fed,
   * and the events recorded meanwhile keep waiting for it to finish.
   *
   * `held` (first call only): per website, the last stored event its models already hold (loaded from
   * a checkpoint); the replay starts after the smallest of them (0 for a website not listed) and skips
   * each website's events up to its own.
   */
  replay(held?: ReadonlyMap<string, number>): Promise<void> {
    if (held !== undefined && this.replayCursor === 0 && this.heldFeeds === undefined) {
      this.replayHeld = held;
      this.replayCursor = Math.min(...[...this.byId.keys()].map((id) => held.get(id) ?? 0));
      if (!Number.isFinite(this.replayCursor)) this.replayCursor = 0;
    }
    this.heldFeeds ??= [];
    return this.exclusive(async () => {
      while (!this.closing) {
        const page = await this.store.readEvents({ afterSeq: this.replayCursor, limit: PAGE });
        for (const e of page) if (e.origin !== this.origin) this.feedStored(e);
        if (page.length > 0) this.replayCursor = page.at(-1)!.seq;
        if (page.length < PAGE) break;
      }
      this.pollCursor = Math.max(this.pollCursor, this.replayCursor);
      // The events recorded meanwhile, in the order they were recorded.
      const held = this.heldFeeds ?? [];
      this.heldFeeds = undefined;
      for (const fn of held) this.feedNow(fn);
    });
  }

  /**
   * Reads the events other processes stored since the last poll and feeds them to the sink (shared
   * stores; runs every `sharing.pollIntervalMs` on its own, callable directly).
   */
  pollOnce(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) return;
      await this.pollPages();
    });
  }

  /** Feeds the sink the events others stored after the poll cursor, up to the store's end (run exclusively). */
  private async pollPages(): Promise<void> {
    for (;;) {
      const page = await this.store.readEvents({ afterSeq: this.pollCursor, limit: PAGE });
      for (const e of page) if (e.origin !== this.origin) this.feedStored(e);
      if (page.length > 0) this.pollCursor = page.at(-1)!.seq;
      if (page.length < PAGE) break;
    }
  }

  /**
   * Reason the store cannot be used now (a cheap read), or undefined when it answers.
   */
  async storeProblem(): Promise<string | undefined> {
    if (this.closed) return 'the store is closed';
    try {
      await this.store.lastSequence();
      return undefined;
    } catch (err) {
      return `the store is not reachable: ${(err as Error)?.message ?? String(err)}`;
    }
  }

  /** Stops polling, flushes pending batches and closes the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    this.closing = true;
    await this.readerChain;
    this.closed = true;
    await this.store.close();
  }
}
