/**
 * The one store interface of aisle, and the shapes of what it keeps: purchase events (one row per
 * order), view events, and the coupon ledger. Implementations: {@link MemoryStore} (tests, embedding),
 * `SqliteStore` (embedded, the default) and `PostgresStore` (several replicas sharing one state). All of
 * them pass the same contract suite (`store-contract.ts`). The engine takes a store instance (or a
 * configuration, turned into one by `open-store.ts`) and never asks which implementation it is: what
 * differs is answered by capabilities ({@link Store.sharing}).
 *
 * Every write is durable when its promise resolves. Concurrent writes are group-committed: the writes
 * queued while a transaction is being written go into the next single transaction, and none of them
 * resolves before that transaction has committed.
 * @module
 */

import type { SharedCatalogs, SharedCatalogsErrorHandler } from './shared-catalogs.js';
import type { OutcomeExperiment, ClickType, PurchaseEventBody, PurchaseLineFields, ResultListKind, RetailMediaSlotData } from '../types.js';

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
  /** `eventTime` in ms since the epoch (UTC; a time without a zone is refused). `eventTime` is kept as sent. */
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

export type { ResultListKind } from '../types.js';

/**
 * The experiment a result list was served under: the experiment, the variant (`"interleaved"` for an
 * interleaving experiment's list) and the customer assigned. A click's list names the variant credited:
 * for an interleaved list, the variant whose ranking placed the clicked item (its team).
 */
export interface ListExperiment extends OutcomeExperiment {
  /** Interleaved lists: per position of `refIds`, the variant whose ranking placed the item. */
  teams?: string[];
}

/** What a result list's clicks are attributed to: its kind, its normalised query or method, its variant. */
export interface ResultListSource {
  kind: ResultListKind;
  /** The normalised query (search) or the method in its canonical spelling (recommendation; `bundle`). */
  source: string;
  /** The experiment variant that served the list (null outside experiments; see {@link ListExperiment}). */
  variant: string | null;
  /** The experiment the list was served under, when it was. */
  experiment?: ListExperiment;
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
  /**
   * How many answers of this same list it stands for (absent: 1): a website answering the same list to
   * different shoppers in a row, under one signature, stores it once (decision 0091). `queryId` is the
   * first answer's id; the next `span − 1` ids of its signature (counters + 1, + 2, …) name it too.
   */
  span?: number;
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

/** A click of an append whose clickId the website already holds with other content. */
export interface ClickConflict {
  /** Its index in the append's `clicks`. */
  index: number;
  clickId: string;
  /** The transaction id the clickId was first recorded under. */
  transactionId: string;
}

/** The result of a click append. */
export interface ClickAppendResult {
  /** The request's own transactionId when a click was stored now, otherwise the first click's original one. */
  transactionId: string;
  /** Indexes (in the append's `clicks`) of the clicks stored now. */
  stored: number[];
  /** Present when a clickId came again with other content: then nothing of the request was stored. */
  conflicts?: ClickConflict[];
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
  /**
   * `recorded`: stored now; `duplicate`: the website already had this orderId with the same content
   * (nothing stored); `conflict`: it had this orderId with other content (nothing of the request stored).
   */
  status: 'recorded' | 'duplicate' | 'conflict';
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

/**
 * A code of an issue that the website already holds with another customer or discount than the issue
 * names: an issue sent again must repeat what it names, as a replayed orderId must (store/plan.ts).
 */
export interface CouponIssueConflict {
  /** Its index in the issue's coupons. */
  index: number;
  code: string;
  /** Which of the named fields differ from the stored code. */
  fields: ('customerId' | 'discount')[];
  /** The stored code's discount (null: none recorded). */
  storedDiscount: number | null;
  /** Whether the stored code is bound to a customer (by its issue, or by the first purchase carrying it). */
  storedBound: boolean;
}

/** The result of an issue: how many codes were new, or the conflicts (then nothing was issued). */
export interface CouponIssueResult {
  issued: number;
  /** Present when a known code came with another customer or discount: then nothing of the issue was stored. */
  conflicts?: CouponIssueConflict[];
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

/** Fields every stored event has: those of its append, and its place in the store's order. */
interface StoredEventBase extends AppendBase {
  /** Store-wide sequence number, increasing in commit order. */
  seq: number;
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

/** What the analytics log keeps roll-ups of: search responses (by normalised query) and recommendation responses (by method and tactic). */
export type AnalyticsKind = 'search' | 'recommendation' | ExperimentAnalyticsKind;

/**
 * The roll-ups of one experiment (`experiment:<id>`): one row per assigned customer (key
 * `<variant>\u001f<customerId>`) and per tactic or interleaving team (tactic), so an experiment's report
 * reads its own rows only and counts per user (docs/experiments.md).
 */
export type ExperimentAnalyticsKind = `experiment:${string}`;

/**
 * The counters of a roll-up row, declared once: the SQL stores' columns are these names in snake case
 * (see `store/analytics-rows.ts`), the memory store keeps them as object keys.
 */
export const ROLLUP_COUNTERS = [
  /** Searches (chains counted once) or recommendation responses with at least one item. */
  'responses',
  /** Searches: sum of their result counts; recommendations: refIds served. */
  'results',
  /** Searches that found nothing. */
  'noResults',
  /** Click events. */
  'clicks',
  /** Click events that named their position. */
  'positionedClicks',
  /** Sum of those clicks' 1-based positions (their mean is this over `positionedClicks`). */
  'clickPositions',
  /** Responses with at least one click. */
  'clicked',
  /** Attributed purchase lines. */
  'conversions',
  /** Responses with at least one attributed purchase line. */
  'converted',
  /** Attributed revenue. */
  'revenue',
] as const;

/** The name of one roll-up counter. */
export type RollupCounter = typeof ROLLUP_COUNTERS[number];
/** Every counter of a roll-up row. */
export type RollupCounters = Record<RollupCounter, number>;

/**
 * Counters to add to one hour's roll-up row of a website: `key` is the normalised query (searches) or
 * the method (recommendations); `tactic` the tactic label, `''` on the row of the query or method itself.
 * The store adds them to the hour's row and to the day's.
 */
export interface RollupDelta {
  websiteId: string;
  kind: AnalyticsKind;
  /** Start of the hour (ms since the epoch, a multiple of 3 600 000). */
  hour: number;
  key: string;
  tactic: string;
  counters: Partial<RollupCounters>;
}

/**
 * One logged response (a raw row, deleted after the retention period), kept so that a click or a
 * conversion finds the response it belongs to and counts it once in `clicked` / `converted`.
 */
export interface LoggedResponse {
  websiteId: string;
  /** The response's id (opaque, unique per response). */
  queryId: string;
  kind: AnalyticsKind;
  /** When it was served (ms since the epoch). */
  at: number;
  /** Normalised query or method. */
  key: string;
  /** The id of the search this one is counted as (the end of its search-as-you-type chain); null: itself. */
  countedAs: string | null;
}

/**
 * A click or an attributed purchase line. With a `queryId` the store finds that response (through
 * `countedAs`) and adds the counters to its row (its hour and key), setting `flag` on it the first time
 * (which adds 1 to that counter); a `queryId` it does not hold (never logged, or expired) adds the counters
 * under `key` at the hour of `at`, without the flag. With a `tactic`, the counters (never the flag) are
 * also added to that tactic's row.
 */
export interface ResponseOutcome {
  websiteId: string;
  kind: AnalyticsKind;
  queryId?: string;
  at: number;
  key: string;
  tactic?: string;
  counters: Partial<RollupCounters>;
  flag: 'clicked' | 'converted';
  /**
   * With a `queryId` the store does not hold: apply nothing and name the outcome in `writeAnalytics`'s
   * answer (another replica logged the response and its write may be on its way; the caller tries again).
   */
  wait?: boolean;
}

/** One session (its SHA-256, never the id) that searched a normalised query with results. */
export interface QuerySession {
  websiteId: string;
  query: string;
  session: string;
  /** Hour of the search (for retention). */
  hour: number;
}

/** What one analytics write holds; written in one transaction. */
export interface AnalyticsBatch {
  responses: readonly LoggedResponse[];
  rollups: readonly RollupDelta[];
  outcomes: readonly ResponseOutcome[];
  sessions: readonly QuerySession[];
}

/** A report window: hours whose start is within [fromHour, toHour]. */
export interface RollupWindow {
  fromHour: number;
  toHour: number;
}

/** The summed counters of one key (and tactic) over a window. */
export interface RollupTotal {
  key: string;
  tactic: string;
  counters: RollupCounters;
}

/**
 * An A/B experiment's per-customer roll-ups (keys `<variant>\u001f<customer>`, summed over a window as
 * {@link Store.rollupTotals} sums them) summed again per variant and tactic: all a report's statistics
 * need, so a report reads a few rows, not one per customer (decision 0050). Tactic `''`: the customers
 * with a counted response (`responses > 0`); any other tactic: every customer's row of it.
 */
export interface ExperimentSums {
  variant: string;
  tactic: string;
  /** Customers summed. */
  users: number;
  /** Their counters, summed. */
  counters: RollupCounters;
  /** Customers with at least one conversion. */
  converters: number;
  /**
   * The CTR's per-customer sums: of the customer's clicked responses, at most their responses
   * (`min(clicked, responses)`, as a CTR is at most 1), of its square, of `responses²` and of the
   * product of the two — what the ratio of sums and its delta-method variance over users need.
   */
  ctrClicked: number;
  ctrClickedSquares: number;
  responsesSquares: number;
  ctrClickedResponses: number;
  /** Sum over the customers of the square of their revenue. */
  revenueSquares: number;
}

/**
 * What a store shared by several engine processes (replicas) adds: each process reads back what the
 * others wrote, and the catalogs are kept in the store's change log.
 */
export interface StoreSharing {
  /** How often a process reads back the events, settings and search counts the others wrote (ms). */
  readonly pollIntervalMs: number;
  /** Opens the catalogs kept in this store (the process's catalogs then live there, not in a data directory). */
  openSharedCatalogs(onError: SharedCatalogsErrorHandler): Promise<SharedCatalogs>;
  /**
   * Checkpoints kept in the store for every replica (the recommendation models' state with the last
   * stored event it holds), so a starting replica replays only the events stored after one; absent
   * when the store keeps none (every event is then replayed at a start).
   */
  readonly checkpoints?: SharedCheckpoints;
}

/** A checkpoint as a store keeps it: opaque bytes and the last stored event (sequence number) they hold. */
export interface StoredCheckpoint {
  /** The last stored event the checkpoint holds, with every event before it. */
  seq: number;
  bytes: Buffer;
  /** When it was written (ms since the epoch). */
  writtenAt: number;
}

/** What a checkpoint write did: `written`; `superseded` (one holding as many events or more is there); `busy` (another replica is writing one). */
export type CheckpointWriteOutcome = 'written' | 'superseded' | 'busy';

/**
 * Checkpoints of a store shared by replicas, one per name (a website's models). One replica writes a
 * given name at a time; a write is one transaction (a crash leaves the previous checkpoint whole); any
 * replica reads the latest.
 */
export interface SharedCheckpoints {
  /** The latest checkpoint of `name`, or undefined when none was written. */
  read(name: string): Promise<StoredCheckpoint | undefined>;
  /** Replaces the checkpoint of `name` unless another replica is writing it or the stored one holds `seq` or later. */
  write(name: string, seq: number, bytes: Uint8Array): Promise<CheckpointWriteOutcome>;
}

/** A normalised query with the distinct sessions (hashed) that searched it with results. */
export interface QuerySessions {
  query: string;
  sessions: string[];
}

/** Raw rows deleted by retention, by kind: logged responses of each kind, stored view and purchase events. */
export type { RetentionKind } from '../config.js';
import type { RetentionKind } from '../config.js';

/** The one store interface; see the module comment for the durability guarantee. */
export interface Store {
  /** `memory`, `embedded` or `postgres` (for reports and logs; the engine does not branch on it). */
  readonly kind: 'memory' | 'embedded' | 'postgres';
  /**
   * True when what the store holds outlives the process (a file, a server); false for memory. With a
   * data directory and no `sharing`, the engine then checkpoints its models and replays the stored
   * events after a checkpoint's sequence number only.
   */
  readonly durable: boolean;
  /**
   * Present when other processes write to this store too (several replicas of one service): then the
   * engine polls for their writes and keeps its catalogs in the store. Absent for a store of one process.
   */
  readonly sharing?: StoreSharing;
  /** Stores the new orders of a request (idempotent per (websiteId, orderId)) and binds/flags coupons. */
  appendPurchases(append: PurchaseAppend): Promise<PurchaseAppendResult>;
  /** Stores views in order. */
  appendViews(append: ViewAppend): Promise<{ recorded: number }>;
  /**
   * Makes codes known (state `issued`), each code once in `coupons`; a known code is left as it is when
   * the issue names nothing it contradicts (`planCouponIssue`, store/plan.ts), else nothing of the issue is stored
   * and the result lists the conflicts. `issued` counts the codes new to the website.
   */
  issueCoupons(websiteId: string, coupons: readonly CouponIssueData[], issuedAt: number): Promise<CouponIssueResult>;
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
   * Writes one analytics batch in one transaction: the logged responses, the roll-up deltas (each added
   * to its hour's and its day's row), the outcomes (after the responses, so an outcome may name a
   * response of the same batch), the session evidence (a session already recorded for a query is kept once).
   * Returns the indexes (in `batch.outcomes`) of the outcomes with `wait` whose response it does not hold
   * (nothing of them was applied).
   */
  writeAnalytics(batch: AnalyticsBatch): Promise<number[]>;
  /**
   * Summed counters per key and tactic of a website's roll-ups over a window: whole days read from the
   * daily rows, the hours at either end from the hourly rows.
   */
  rollupTotals(websiteId: string, kind: AnalyticsKind, window: RollupWindow): Promise<RollupTotal[]>;
  /**
   * An experiment's roll-ups (kind `experiment:<id>`), all it logged, per customer summed per variant and
   * tactic in the store (see {@link ExperimentSums}) from the customers' lifetime rows; equal to
   * `experimentSumsOf(rollupTotals(…))` over a window holding everything it logged.
   */
  experimentSums(websiteId: string, kind: AnalyticsKind): Promise<ExperimentSums[]>;
  /** The `limit` queries of a website searched in the most distinct sessions, with those sessions. */
  querySessions(websiteId: string, limit: number): Promise<QuerySessions[]>;
  /**
   * Deletes at most `limit` of a website's raw rows of `kind` older than `before` (ms), oldest first, in
   * one short transaction; returns how many. Roll-ups are kept.
   */
  deleteExpired(websiteId: string, kind: RetentionKind, before: number, limit: number): Promise<number>;
  /**
   * Stores a new search key (its hash, never the key itself; `id` and `keyHash` are unique) unless its
   * website already holds `limit` live keys (unexpired at `record.createdAt`): false then, and nothing
   * stored. Expired keys take no live key's room: when the website holds `limit` keys in all, its expired
   * ones are deleted first, so it never holds more than `limit`. The count and the insert are one step, so
   * concurrent creates (through several replicas too) never pass the limit.
   */
  insertSearchKey(record: SearchKeyRecord, limit: number): Promise<boolean>;
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
  /**
   * Deletes result lists past each website's retention (age, then count): at most `limit` of each
   * website per condition, in one short transaction; returns how many (call again while it returns
   * `limit` or more: some may be left).
   */
  pruneResultPages(retention: readonly ResultPageRetention[], limit: number): Promise<number>;
  /**
   * Stores a new experiment unless the website has another of its kind not stopped (false then, nothing
   * stored). An experiment of the kind whose `until` is at or before `now` is stopped first (at its `until`).
   */
  createExperiment(record: ExperimentRecord, now: number): Promise<boolean>;
  /** A website's experiments, oldest first. */
  listExperiments(websiteId: string): Promise<ExperimentRecord[]>;
  /** Every website's experiments not stopped (replicas poll this to assign alike). */
  activeExperiments(): Promise<ExperimentRecord[]>;
  /** Stops an experiment (sets `stoppedAt` when it is null) and returns it; undefined when the website has none such. */
  stopExperiment(websiteId: string, id: string, at: number): Promise<ExperimentRecord | undefined>;
  /** Deletes a stopped experiment; false when the website has no stopped experiment of that id. */
  deleteExperiment(websiteId: string, id: string): Promise<boolean>;
  /** Resolves once every write submitted so far has committed. */
  flush(): Promise<void>;
  /** Flushes, then releases files and connections. */
  close(): Promise<void>;
}

/** The kind of an experiment: what it varies. */
export type ExperimentKind = 'search' | 'recommendations';

/** One variant of a stored experiment, as validated. */
export interface StoredVariant {
  name: string;
  /** Relative weight (share = weight / sum of weights). */
  weight: number;
  /** Search variants: the partial settings merged over the website's (RFC 7396), as sent. */
  settings?: Record<string, unknown>;
  /** Recommendation variants: per method (canonical spelling), the tactic labels of its cascade. */
  recommendations?: Record<string, { tactics: string[] }>;
}

/**
 * An experiment as stored (the `experiments` table). At most one experiment per website and kind has
 * `stoppedAt` null: the store refuses a second one ({@link Store.createExperiment}).
 */
export interface ExperimentRecord {
  websiteId: string;
  id: string;
  kind: ExperimentKind;
  name: string;
  method: 'ab' | 'interleaving';
  /** The first is the control. */
  variants: StoredVariant[];
  /** Assignment starts at (ms), or at creation when null. */
  from: number | null;
  /** Assignment ends at (ms), or when stopped when null. */
  until: number | null;
  createdAt: number;
  /** When it was stopped (ms); null while it is not. */
  stoppedAt: number | null;
}
/**
 * Raw rows one retention transaction deletes ({@link Store.deleteExpired}, {@link Store.pruneResultPages}):
 * small enough that an event write queued behind it waits a few milliseconds, not seconds.
 */
export const RETENTION_BATCH = 1_000;

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
