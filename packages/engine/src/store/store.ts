/**
 * The one store interface of aisle, and the shapes of what it keeps: purchase events (one row per
 * order), view events, and the coupon ledger. Implementations: {@link MemoryStore} (tests, embedding),
 * `SqliteStore` (embedded, the default) and `PostgresStore` (several replicas sharing one state). All of
 * them pass the same contract suite (`store-contract.ts`).
 *
 * Every write is durable when its promise resolves. Concurrent writes are group-committed: the writes
 * queued while a transaction is being written go into the next single transaction, and none of them
 * resolves before that transaction has committed.
 * @module
 */

import type { ClickType, PurchaseEventBody, PurchaseLineFields, RetailMediaSlotData } from '../types.js';

/** Why a product's retail-media data was not honoured (it is stored, but excluded from spend). */
export type RetailMediaFlag = 'hmac_invalid' | 'timestamp_in_future' | 'timestamp_too_old';

/** Retail-media slot data carried by a purchased product, as validated: the slot's fields plus a flag. */
export interface RetailMediaData extends RetailMediaSlotData {
  /** Set by the event service when the data does not verify or lies outside the attribution window. */
  flag?: RetailMediaFlag;
}

/**
 * One purchased product line, as validated (GUIDs lower-cased, decimals as numbers): the wire line's
 * attribution fields (derived from the contract, so a field added to the wire reaches the store type),
 * a numeric price, and the retail-media data in one object whether it was sent flat or nested.
 */
export interface PurchaseProductData extends PurchaseLineFields {
  price: number;
  retailMedia?: RetailMediaData;
}

/** One price-beat promotion code carried by a purchase. */
export interface PriceBeatPromotionData {
  code: string;
  discount: number;
  /** Set by the store: the code was already used and this purchase's customer carries it again. */
  reused?: boolean;
}

/**
 * One purchase event (one order), as validated: the wire event's fields (derived from the contract),
 * with its products and promotion codes as validated and the event time also in ms.
 */
export interface PurchaseEventData extends Omit<PurchaseEventBody, 'products' | 'priceBeatPromotions'> {
  /** `eventTime` in ms since the epoch (UTC; a time without offset is read as UTC). `eventTime` is kept as sent. */
  eventTimeMs: number;
  /** Upper-cased. */
  currencyCode?: string;
  products: PurchaseProductData[];
  priceBeatPromotions: PriceBeatPromotionData[];
}

/** One view event (extension), as validated. */
export interface ViewEventData {
  refId: string;
  currentUrl: string;
  eventTime: string;
  eventTimeMs: number;
  referralUrl?: string;
  recommenderId?: string;
  tacticId?: string;
  clickId?: string;
  /** The result list the product page was reached from (checked against the remembered list). */
  queryId?: string;
  position?: number;
}

/** Where a result list came from: a search page, or a recommendation or bundle response. */
export type ResultListKind = 'search' | 'recommendation';

/** What a result list's clicks are attributed to: its kind, its normalised query or method, its variant. */
export interface ResultListSource {
  kind: ResultListKind;
  /** The normalised query (search) or the method in its canonical spelling (recommendation; `bundle`). */
  source: string;
  /** The A/B variant that served the list; null until experiments exist. */
  variant: string | null;
}

/**
 * A result list the engine answered, as remembered for click validation and attribution (the
 * `result_pages` table): which products it showed at which 1-based positions, to whom.
 */
export interface ResultPageRecord extends ResultListSource {
  websiteId: string;
  /** The list's id as answered (`query_id` of a search, `queryId` of a recommendation or bundle). */
  queryId: string;
  customerId: string | null;
  sessionId: string | null;
  /** Position of `refIds[0]` in the whole result list (1-based: `start + 1` for a search page). */
  firstPosition: number;
  /** The products of the list, in order. */
  refIds: string[];
  /** When it was answered (ms since the epoch). */
  createdAt: number;
}

/** How long, and how many, result lists of one website the store keeps (see `pruneResultPages`). */
export interface ResultPageRetention {
  websiteId: string;
  /** Lists answered before this time (ms) are deleted. */
  before: number;
  /** Most lists kept; the oldest beyond are deleted. */
  keep: number;
}

/** One click event (extension), as validated, with the result list its `queryId` named. */
export interface ClickEventData {
  refId: string;
  type: ClickType;
  eventTime: string;
  eventTimeMs: number;
  queryId?: string;
  position?: number;
  clickId?: string;
  recommenderId?: string;
  tacticId?: string;
  /** The result list of `queryId`, resolved when the click was recorded (lists expire; clicks stay). */
  list?: ResultListSource;
}

/** Fields common to both kinds of append. */
interface AppendBase {
  websiteId: string;
  /** The GUID answered to this request (unless every order is a replay). */
  transactionId: string;
  customerId: string;
  sessionId: string;
  /** The writing replica (an `EventService` instance); pollers skip their own events. */
  origin: string;
  /** Arrival time, ms since the epoch. */
  receivedAt: number;
}

/** A purchase request to append: its events are stored in order, one row per new order. */
export interface PurchaseAppend extends AppendBase {
  events: readonly PurchaseEventData[];
}

/** A views request to append. */
export interface ViewAppend extends AppendBase {
  views: readonly ViewEventData[];
}

/** A clicks request to append: its clicks are stored in order; a click whose clickId the website already has is not. */
export interface ClickAppend extends AppendBase {
  clicks: readonly ClickEventData[];
}

/** The result of a click append. */
export interface ClickAppendResult {
  /** The request's own transactionId when a click was stored now, otherwise the first click's original one. */
  transactionId: string;
  /** Indexes (in the append's `clicks`) of the clicks stored now. */
  stored: number[];
}

/** A stored click, as read back. */
export interface StoredClick {
  seq: number;
  websiteId: string;
  transactionId: string;
  customerId: string;
  sessionId: string;
  receivedAt: number;
  click: ClickEventData;
}

/**
 * The clicks that may convert the products of one purchase: those named by `clickIds`, and those of
 * `sessionId` on one of `refIds` with an event time in [since, until].
 */
export interface ClickCandidatesQuery {
  clickIds: readonly string[];
  sessionId: string;
  refIds: readonly string[];
  since: number;
  until: number;
}

/** What happened to one order of a purchase append. */
export interface OrderOutcome {
  orderId: string;
  /** `recorded`: stored now; `duplicate`: the website already had this orderId (nothing stored). */
  status: 'recorded' | 'duplicate';
  /** The transaction id under which the order is stored (the first one, for duplicates). */
  transactionId: string;
  /** The event as stored (with `reused` flags on its promotions); absent for duplicates. */
  event?: PurchaseEventData;
}

/** The result of a purchase append. */
export interface PurchaseAppendResult {
  /**
   * The id to acknowledge: the request's own transactionId when at least one order was recorded now,
   * otherwise the first event's original transactionId (a pure replay answers its first id).
   */
  transactionId: string;
  orders: OrderOutcome[];
}

/** The state of one coupon code. Codes become `issued` (known) and move once to `used`. */
export interface CouponRecord {
  websiteId: string;
  code: string;
  /** Bound customer (admin issue, or the first purchase carrying the code). */
  customerId: string | null;
  discount: number | null;
  state: 'issued' | 'used';
  source: 'admin' | 'purchase';
  issuedAt: number;
  usedAt: number | null;
}

/** A coupon to issue (admin). */
export interface CouponIssueData {
  code: string;
  customerId?: string;
  discount?: number;
}

/** Outcome of the atomic "mark as used" transition. */
export type MarkUsedOutcome =
  | { status: 'used'; usedAt: number }
  | { status: 'already_used'; usedAt: number }
  | { status: 'not_found' };

/** Counters of one website, as the store sees them. */
export interface StoreCounts {
  views: number;
  /** Accepted purchase requests that recorded at least one new order (distinct transaction ids). */
  purchases: number;
  /** Distinct orders recorded. */
  orders: number;
  coupons: { issued: number; used: number };
}

/** Fields every stored event has. */
interface StoredEventBase {
  /** Store-wide sequence number, increasing in commit order. */
  seq: number;
  websiteId: string;
  transactionId: string;
  customerId: string;
  sessionId: string;
  origin: string;
  receivedAt: number;
}

/** A stored event, as read back in sequence order. */
export type StoredEvent =
  | (StoredEventBase & { kind: 'purchase'; purchase: PurchaseEventData })
  | (StoredEventBase & { kind: 'view'; view: ViewEventData });

/** A page query over stored events. */
export interface EventQuery {
  /** Events with `seq` greater than this (0 = from the start). */
  afterSeq: number;
  /** Page size (at most 10,000). */
  limit: number;
  websiteId?: string;
  kind?: 'purchase' | 'view';
}

/** A website's settings as stored (as set: keys at their default are absent), with their version. */
export interface StoredSettings {
  websiteId: string;
  settings: Record<string, unknown>;
  /** Store-wide, increasing with every settings write (of any website), visible in increasing order. */
  version: number;
}

/** Searches of one normalised query on one website within one hour, as the search log stores them. */
export interface SearchLogRow {
  websiteId: string;
  /** Start of the hour (ms since the epoch, a multiple of 3 600 000). */
  hour: number;
  /** The normalised query (words joined by one space). */
  query: string;
  /** Searches made. */
  searches: number;
  /** Sum of their result counts (`total_results`). */
  results: number;
  /** Searches that found nothing. */
  noResults: number;
}

/** A time window over the search log: hours whose start is within [fromHour, toHour]. */
export interface SearchLogWindow {
  fromHour: number;
  toHour: number;
  limit: number;
}

/** Per-query totals of a window of the search log. */
export interface SearchLogTotals {
  /** Most searched queries: searches, and the mean result count. */
  top: { query: string; count: number; avgResults: number }[];
  /** Queries with searches that found nothing, by how many did. */
  noResults: { query: string; count: number }[];
}

/** The one store interface; see the module comment for the durability guarantee. */
export interface Store {
  /** `memory`, `embedded` or `postgres`. */
  readonly kind: 'memory' | 'embedded' | 'postgres';
  /** Stores the new orders of a request (idempotent per (websiteId, orderId)) and binds/flags coupons. */
  appendPurchases(append: PurchaseAppend): Promise<PurchaseAppendResult>;
  /** Stores views in order. */
  appendViews(append: ViewAppend): Promise<{ recorded: number }>;
  /** Makes codes known (state `issued`); codes already known are left as they are. Returns how many were new. */
  issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): Promise<number>;
  /** The atomic `issued` → `used` move: of concurrent calls for one code, exactly one gets `used`. */
  markCouponUsed(websiteId: string, code: string, usedAt: number): Promise<MarkUsedOutcome>;
  /** One coupon, or undefined. */
  getCoupon(websiteId: string, code: string): Promise<CouponRecord | undefined>;
  counts(websiteId: string): Promise<StoreCounts>;
  /** Events in sequence order after a cursor (for replay, replica polling and reports). */
  readEvents(query: EventQuery): Promise<StoredEvent[]>;
  /** The highest sequence number committed so far (0 when empty). */
  lastSequence(): Promise<number>;
  /** The stored settings of a website, or undefined when none were ever written. */
  getSettings(websiteId: string): Promise<StoredSettings | undefined>;
  /**
   * Writes a website's settings when its stored version is still `ifVersion` (0: nothing stored yet)
   * and returns them with their new version; undefined (nothing written) when another write came first.
   */
  putSettings(websiteId: string, settings: Record<string, unknown>, ifVersion: number): Promise<StoredSettings | undefined>;
  /** Every website's settings written after `version`, in version order (replicas poll this). */
  settingsSince(version: number): Promise<StoredSettings[]>;
  /**
   * Adds search counts (rows with the same key add up) and deletes the rows of hours before
   * `deleteBefore` (retention), in one transaction.
   */
  addSearchLog(rows: readonly SearchLogRow[], deleteBefore: number): Promise<void>;
  /** Per-query totals of a website over a window, most first (ties: query in code-unit order). */
  searchLogTotals(websiteId: string, window: SearchLogWindow): Promise<SearchLogTotals>;
  /** The queries of a website's searches that found something since `sinceHour`, most such searches first. */
  successfulQueries(websiteId: string, sinceHour: number, limit: number): Promise<{ query: string; count: number }[]>;
  /** Stores a new search key (its hash, never the key itself); `id` and `keyHash` are unique. */
  insertSearchKey(record: SearchKeyRecord): Promise<void>;
  /** The search keys of one website, oldest first. */
  listSearchKeys(websiteId: string): Promise<SearchKeyRecord[]>;
  /** The search key with this SHA-256 digest (hex), of any website, or undefined. */
  findSearchKey(keyHash: string): Promise<SearchKeyRecord | undefined>;
  /** Deletes a website's search key by id; true when one was deleted. */
  deleteSearchKey(websiteId: string, id: string): Promise<boolean>;
  /** Stores the clicks of a request (idempotent per (websiteId, clickId)), group-committed like purchases. */
  appendClicks(append: ClickAppend): Promise<ClickAppendResult>;
  /** A website's clicks in sequence order after a cursor (reports). */
  readClicks(websiteId: string, afterSeq: number, limit: number): Promise<StoredClick[]>;
  /** The clicks of a website that may convert a purchase (see {@link ClickCandidatesQuery}), in sequence order. */
  clickCandidates(websiteId: string, query: ClickCandidatesQuery): Promise<StoredClick[]>;
  /** Stores result lists (a `queryId` already stored is left as it is). */
  addResultPages(pages: readonly ResultPageRecord[]): Promise<void>;
  /** The stored result lists of a website among `queryIds`. */
  findResultPages(websiteId: string, queryIds: readonly string[]): Promise<ResultPageRecord[]>;
  /** Deletes the result lists past each website's retention (age, then count). */
  pruneResultPages(retention: readonly ResultPageRetention[]): Promise<void>;
  /** Resolves once every write submitted so far has committed. */
  flush(): Promise<void>;
  /** Flushes, then releases files and connections. */
  close(): Promise<void>;
}

/** Largest page {@link Store.readEvents} returns. */
export const MAX_READ_PAGE = 10_000;

/**
 * A browser key as stored: only the SHA-256 digest of the key is kept (the key is shown once, when
 * created). `scope` is the forced search scope, kept as validated JSON.
 */
export interface SearchKeyRecord {
  websiteId: string;
  /** Public id of the key (listed, and accepted by the revoke call). */
  id: string;
  /** SHA-256 of the key, lower-case hex. */
  keyHash: string;
  /** The key's first characters (e.g. `sk_AbC1`), so a listed key can be recognised. */
  keyPrefix: string;
  /** What the key opens (`["search"]`). */
  actions: string[];
  /** Forced scope added to every search made with the key, or null. */
  scope: Record<string, unknown> | null;
  /** Expiry in ms since the epoch, or null (never expires). */
  expiresAt: number | null;
  createdAt: number;
}
