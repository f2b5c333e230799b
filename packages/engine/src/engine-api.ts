/**
 * The public shape of an engine, as services, the HTTP adapter and the benchmarks use it.
 * @module
 */
import type { BackgroundTask } from './background-failures.js';
import type { Readiness } from './readiness.js';
import type { Readable } from 'node:stream';
import type { WebsiteConfig, WebsiteSettings } from './config.js';
import type { CreatedSearchKey, PresentedSearchKey, SearchKeyInfo } from './keys/search-key-service.js';
import type { Experiment, ExperimentReport } from './contract/schemas.js';
import type {
  BulkDeleteResult, BundleRequest, BundleResponse, ClickRequest, EventAck, Product, PurchaseRequest, RecommendParams, RecommendResponse, SearchRequest,
  ScopeConditions, SearchResponse, ViewRequest,
} from './types.js';

/**
 * Website settings with the version they are at: an opaque token that changes whenever the settings
 * change (the settings API's `ETag`; see `Engine.getVersionedSettings`).
 */
export interface VersionedSettings {
  /** Every key, defaults filled in (as `Engine.getSettings` answers). */
  settings: WebsiteSettings;
  version: string;
}

/**
 * A product line the loader could not take. A value that does not fit its field's pinned type
 * (`settings.fields`) also names the product, the field and the value.
 */
export interface SkippedLine {
  /** 1-based line number in an NDJSON feed; 1-based element index in a JSON array or batch. */
  line: number;
  message: string;
  refId?: string;
  field?: string;
  value?: unknown;
}

/** Most skipped records a {@link LoadSummary} lists (the rest are only counted). */
export const MAX_REPORTED_SKIPS = 100;

/** Non-numeric values of one numeric field in a load (see {@link LoadSummary.strayValues}). */
export interface StrayValues {
  field: string;
  count: number;
  /** The first {@link MAX_REPORTED_SKIPS} refIds at most. */
  refIds: string[];
}

/** What a catalog load or upsert did. */
export interface LoadSummary {
  /** Products inserted or updated. */
  loaded: number;
  /**
   * The first {@link MAX_REPORTED_SKIPS} lines or elements skipped (only with `onError: 'skip'`), so a
   * feed of a million bad records answers a short summary; `skippedCount` counts them all.
   */
  skipped: SkippedLine[];
  /** How many records were skipped in all. */
  skippedCount: number;
  /**
   * Values of the loaded products that are not numbers in a numeric field (e.g. a price of "N/A"):
   * kept as given, missing for ranges, numeric scopes and number sorts. Per field: how many, and the
   * refIds of the first few. Absent when there are none.
   */
  strayValues?: StrayValues[];
  /** Live products in the catalog afterwards. */
  catalogSize: number;
}

/** Options of catalog loads. */
export interface LoadOptions {
  /** `'reject'` (default for the library) aborts the whole load on the first bad record and changes nothing; `'skip'` reports and skips it; any other value is refused (`CATALOG_BAD_INPUT`). */
  onError?: 'skip' | 'reject';
  /** Called now and then with the number of records read so far (and bytes when reading a stream). */
  onProgress?: (progress: { records: number; bytes?: number }) => void;
  /**
   * Most bytes a gzipped file or byte stream may unzip to (`LIMIT_EXCEEDED`, 413, once past it; nothing
   * changes). Absent: no bound. The HTTP adapter passes its upload limit, which counts the bytes sent.
   */
  maxUnzippedBytes?: number;
}

/** A product feed: a file path, a byte stream (NDJSON or a JSON array), or product objects. */
export type ProductSource = string | Readable | Iterable<Product> | AsyncIterable<Product>;

/** Outcome of the coupon call. */
export interface CouponUseResult {
  code: string;
  websiteId: string;
  usedAt: string;
}

/** A coupon issued through the admin API (bound customer: when absent, the first purchase carrying the code binds it). */
export type { CouponIssue } from './contract/schemas.js';
import type { CouponIssue, SettingsPreview } from './contract/schemas.js';
import type { AttributionReportParams, RecommendationReportParams, SearchReportParams } from './contract/query-schemas.js';

/** Counters of one website. */
export interface WebsiteStats {
  websiteId: string;
  products: number;
  views: number;
  purchases: number;
  orders: number;
  coupons: { issued: number; used: number };
}

/** One line of an attribution report. */
export interface AttributionLine {
  key: string;
  revenue: number;
  orders: number;
  units: number;
}

/** Attribution figures of one website (see docs/recommendations.md for how they reconcile). */
export interface AttributionReport {
  websiteId: string;
  from?: string;
  to?: string;
  /**
   * The currency of every revenue figure: the website's `settings.currency` (upper-cased), or null while it
   * has none (then only purchases stating no `currencyCode` are added).
   */
  currency: string | null;
  /** `clickAttributedRevenue`: revenue of the lines converted from a click on a search or recommendation result. */
  totals: { revenue: number; orders: number; units: number; attributedRevenue: number; clickAttributedRevenue: number };
  /**
   * Purchases in another currency than `currency`, per currency: their orders and units are in the counts
   * above, their money in no figure but these (a report never adds two currencies).
   */
  otherCurrencies: { currency: string; orders: number; units: number; revenue: number; attributedRevenue: number }[];
  byRecommender: AttributionLine[];
  byWidget: AttributionLine[];
  byCampaign: AttributionLine[];
  byTactic: AttributionLine[];
  byAtsModel: AttributionLine[];
  /** Lines converted from a click on a search result, by normalised query. */
  bySearchQuery: AttributionLine[];
  /** Lines converted from a click on a recommendation or bundle, by method. */
  byRecommendationMethod: AttributionLine[];
  /** Converted lines by the kind of list and the 1-based position of the click. */
  byClickPosition: { kind: 'search' | 'recommendation'; position: number; revenue: number; orders: number; units: number }[];
  retailMedia: { adSetId: string; units: number; revenue: number; spend: number; clicksCost: number; milleCost: number; flagged: number }[];
  priceBeat: { code: string; discount: number; orders: number; reused: number }[];
  flagged: { orderId: string; refId: string; reason: string }[];
}

/** One query of the searches report (see docs/http-api.md). */
export interface SearchReportQuery {
  query: string;
  /** Searches (a search-as-you-type chain counts once). */
  count: number;
  /** Mean `total_results` of those searches. */
  avgResults: number;
  /** Click events on their results. */
  clicks: number;
  /** Searches with at least one click / searches. */
  ctr: number;
  /** Mean 1-based position of the clicks; null without clicks. */
  avgClickPosition: number | null;
  /** Purchase lines attributed to them. */
  conversions: number;
  /** Searches with at least one attributed purchase line / searches. */
  conversionRate: number;
  /** Attributed revenue. */
  revenue: number;
}

/** The lists of the searches report. */
export interface SearchReportLists {
  /** Most searched normalised queries. */
  top: SearchReportQuery[];
  /** Queries whose searches found nothing, by how many did. */
  noResults: { query: string; count: number }[];
  /** Queries whose searches found something and got no click, by how many did. */
  noClicks: { query: string; count: number }[];
}

/** The searches report of one website (see docs/http-api.md). */
export interface SearchReport extends SearchReportLists {
  websiteId: string;
  from?: string;
  to?: string;
}

/** The recommendations report of one website (see docs/http-api.md). */
export interface RecommendationReport {
  websiteId: string;
  from?: string;
  to?: string;
  methods: {
    method: string;
    /** Responses with at least one item. */
    served: number;
    /** RefIds served. */
    items: number;
    clicks: number;
    /** Served responses with at least one click / served; null when none was served in the window. */
    ctr: number | null;
    conversions: number;
    revenue: number;
    /** Per tactic (its `tacticLabel`): `ctr` is clicks / items, null when no item was served in the window. */
    tactics: { tactic: string; items: number; clicks: number; ctr: number | null; conversions: number; revenue: number }[];
  }[];
}

/**
 * Readiness of the recommendation indexes (Similar Attributes, Visually Similar) of every website:
 * `ready` when each website's indexes are built for its loaded catalog. They are built when a catalog
 * is loaded or changed (never at a first look-up); during a rebuild after a change the previous index
 * keeps serving, so readiness stays true. `reason` names the first website and index that is not ready.
 */
export interface RecommendationIndexStatus {
  ready: boolean;
  reason?: string;
  websites: { websiteId: string; ready: boolean; reason?: string }[];
}

/** The engine: many websites, each with its catalog, models and events. */
/** How a search was asked for, beyond its body. */
export interface SearchOptions {
  /**
   * The scope a search key forces: every result passes it as well as the body's own scope (both apply,
   * field by field, as conditions of their own), and completions (`payload.suggestions.queries`) are
   * offered only when they have results within it, so a key never reveals words of products it cannot
   * see. Checking costs a search per completion, which is why only a forced scope asks for it: a
   * caller's own scope hides nothing from that caller.
   */
  forcedScope?: ScopeConditions;
}

/** How a recommendation was asked for, beyond its method and parameters. */
export interface RecommendOptions {
  /**
   * Whether the answer counts as served in the recommendations report (default true). `false` for an
   * answer no shopper is shown — an HTTP `HEAD`, a look-up of the host's own — so that `served`, `items`
   * and the click-through rates describe what shoppers saw. The answer is the same either way.
   */
  counted?: boolean;
}

export interface Engine {
  /** Insert or update products by refId. */
  upsertProducts(websiteId: string, products: ProductSource, options?: LoadOptions): Promise<LoadSummary>;
  /** Replace the whole catalog atomically: searches see all of the old or all of the new. */
  replaceProducts(websiteId: string, products: ProductSource, options?: LoadOptions): Promise<LoadSummary>;
  /**
   * Partial updates: each patch (a partial product with `refId`) is merged into the stored product
   * (JSON Merge Patch, RFC 7396: `null` removes a field). A refId not in the catalog is an error for
   * that record: the whole call is refused (`CATALOG_BAD_INPUT`, default `onError: 'reject'`) or the
   * record is listed in `skipped` (`onError: 'skip'`). A patch changing only numbers is applied as a
   * value patch (milliseconds, no rebuild).
   */
  patchProducts(websiteId: string, patches: ProductSource, options?: LoadOptions): Promise<LoadSummary>;
  /** The stored product exactly as given (after patches), or undefined for an unknown refId. */
  getProduct(websiteId: string, refId: string): Promise<Product | undefined>;
  /** Delete products by refId; unknown refIds are ignored. */
  deleteProducts(websiteId: string, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }>;
  /**
   * Bulk delete: `{refIds: [...]}` (1 to `MAX_BULK_DELETE_REFIDS`) or `{scope: {...}}` (not empty; the
   * products a search with that scope selects). All or nothing, as one catalog change (durable in the
   * change log; on PostgreSQL one logged change every replica applies). `notFound`: the refIds asked for
   * that the catalog did not hold. `{}`, both keys, an empty list or scope: `CATALOG_BAD_INPUT`, nothing deleted.
   */
  bulkDeleteProducts(websiteId: string, body: unknown): Promise<BulkDeleteResult>;
  /**
   * The documented search request body → the documented response. The body is validated at run time
   * (throws `AisleError`), so a parsed JSON body may be passed with a cast.
   */
  search(body: SearchRequest, options?: SearchOptions): Promise<SearchResponse>;
  /**
   * The website's settings: every key, those not set at their default (see docs/operations.md). The
   * stored settings when any were written through {@link Engine.updateSettings} (or the settings API),
   * otherwise the config file's.
   */
  getSettings(websiteId: string): Promise<WebsiteSettings>;
  /**
   * Replaces the website's settings (or, with `merge: true`, merges `settings` into them as a JSON Merge
   * Patch, RFC 7396: `null` removes a key, back to its default). Validated as the config file is
   * (`SETTINGS_INVALID` naming the key, nothing changed), written to the store (every replica applies
   * it within ~1 s on PostgreSQL), and used from the next request on: no restart, no re-index.
   * Returns the settings as {@link Engine.getSettings} does.
   */
  updateSettings(websiteId: string, settings: unknown, options?: { merge?: boolean }): Promise<WebsiteSettings>;
  /**
   * The settings as {@link Engine.getSettings} answers them, with the version they are at: an opaque token
   * that changes with every change of them (the settings API's `ETag`), to pass back as `ifVersion`.
   */
  getVersionedSettings(websiteId: string): Promise<VersionedSettings>;
  /**
   * {@link Engine.updateSettings}, answering the new version too; with `ifVersion`, only while the settings
   * are still at one of these versions (optimistic concurrency, HTTP's `If-Match`): a write made after
   * another changed them throws `SETTINGS_VERSION_MISMATCH` (412) and writes nothing, also when the two
   * race on different replicas (the store compares and sets in one write).
   */
  updateVersionedSettings(websiteId: string, settings: unknown, options?: { merge?: boolean; ifVersion?: readonly string[] }): Promise<VersionedSettings>;
  /**
   * A ranking preview: the body's `search` (a search request without website_id and client) ranked under
   * the settings in force and under them with the body's `settings` merged in exactly as
   * {@link Engine.updateSettings} with `merge` would merge them (same checks, same errors), nothing
   * stored, and the search neither logged nor remembered for clicks. Throws `PREVIEW_BAD_REQUEST`
   * naming a bad field of the body outside `settings`.
   */
  previewSettings(websiteId: string, body: unknown): Promise<SettingsPreview>;
  /**
   * A recommendation method (segment as in the spec) with its parsed query parameters. The answer is the
   * caller's own object, but its `payload` and `slots` may be frozen lists shared with the other answers
   * of the same request while nothing they depend on changes (kept answers): copy them to change them.
   */
  recommend(websiteId: string, method: string, params: RecommendParams, options?: RecommendOptions): Promise<RecommendResponse>;
  /** The bundle call; the body is validated at run time (throws `AisleError`). */
  bundles(websiteId: string, body: BundleRequest): Promise<BundleResponse>;
  /** Validates, stores durably, then acknowledges. Throws `ValidationError` with problem details. */
  recordPurchases(websiteId: string, body: PurchaseRequest): Promise<EventAck>;
  /** Same as purchases, for the views extension (a `queryId` must name a result list of the website that held `refId` at `position`). */
  recordViews(websiteId: string, body: ViewRequest): Promise<EventAck>;
  /**
   * Clicks and add-to-carts on results (extension): validated like purchases, each `queryId` checked
   * against the result list it names (issued for this website, holding `refId` at `position`), stored
   * durably (idempotent per `clickId`), then acknowledged. Throws `ValidationError` with problem details.
   */
  recordClicks(websiteId: string, body: ClickRequest): Promise<EventAck>;
  /** Marks a price-beat code used; `client` is the website id or its client shortcode. */
  markCouponUsed(client: string, code: string): Promise<CouponUseResult>;
  /**
   * Issues codes (admin API); a code the website already holds is left as it is, or, when the issue names
   * another `customerId` or `discount` for it, nothing is issued (`COUPON_CONFLICT`, 409).
   */
  issueCoupons(websiteId: string, coupons: readonly CouponIssue[]): Promise<{ issued: number }>;
  stats(websiteId: string): Promise<WebsiteStats>;
  attributionReport(websiteId: string, range?: AttributionReportParams): Promise<AttributionReport>;
  /**
   * Top queries and no-result queries of the website's searches whose hour lies in [from, to] (ISO 8601,
   * both optional; the log counts searches per hour, see docs/operations.md), `limit` (1–1000, default
   * 20) of each. Throws `ValidationError` naming a bad parameter.
   */
  searchReport(websiteId: string, range?: SearchReportParams): Promise<SearchReport>;
  /**
   * The recommendations report: per method, responses served, items, clicks and conversions, and per
   * tactic; `from`/`to` (ISO 8601) as for {@link Engine.searchReport}.
   */
  recommendationReport(websiteId: string, range?: RecommendationReportParams): Promise<RecommendationReport>;
  /** Readiness of the recommendation indexes, with the reason when not ready (for `/readyz`). */
  recommendationIndexStatus(): RecommendationIndexStatus;
  /** `recommendationIndexStatus().ready`. */
  recommendationIndexesReady(): boolean;
  /** Creates a browser search key (`{actions: ["search"], expiresAt?, scope?}`); the answer holds the key, shown this once. */
  createSearchKey(websiteId: string, body: unknown): Promise<CreatedSearchKey>;
  /** The website's search keys (without the keys themselves). */
  listSearchKeys(websiteId: string): Promise<SearchKeyInfo[]>;
  /** Revokes a search key given by its id or by the key; `KEY_NOT_FOUND` when the website has none such. */
  revokeSearchKey(websiteId: string, keyOrId: string): Promise<void>;
  /** The live search key a caller presents (any website; the caller checks which), or undefined. */
  resolveSearchKey(key: string): Promise<SearchKeyInfo | undefined>;
  /**
   * What a presented search key is: `live` (with its info), `expired` (known, its `expiresAt` passed: it
   * opens nothing, and the caller may be told so) or `unknown` (never created, revoked, malformed).
   */
  presentSearchKey(key: string): Promise<PresentedSearchKey>;
  /**
   * Starts an experiment (the contract's `ExperimentRequest`): `EXPERIMENT_BAD_REQUEST` naming the field,
   * `EXPERIMENT_CONFLICT` when one of its kind is not stopped (docs/experiments.md).
   */
  createExperiment(websiteId: string, body: unknown): Promise<Experiment>;
  /** The website's experiments, oldest first. */
  listExperiments(websiteId: string): Promise<Experiment[]>;
  /** An experiment with its report, from the store's roll-ups (`EXPERIMENT_NOT_FOUND`). */
  experimentReport(websiteId: string, id: string): Promise<ExperimentReport>;
  /** Stops an experiment (stopping a stopped one answers it unchanged). */
  stopExperiment(websiteId: string, id: string): Promise<Experiment>;
  /** Deletes a stopped experiment (`EXPERIMENT_RUNNING` while it is not stopped). */
  deleteExperiment(websiteId: string, id: string): Promise<void>;
  /**
   * The website's built-in semantic model (`aisle-ri`) once no training is running or due: its id and
   * version, or undefined when semantic search does not use it. Resolves after the catalog's latest
   * change has been learnt (tests, benchmarks, warm-up).
   */
  semanticModel(websiteId: string): Promise<{ id: string; version: string } | undefined>;
  /** The configuration of a website, or undefined. */
  website(websiteId: string): WebsiteConfig | undefined;
  /** All configured websites. */
  websites(): readonly WebsiteConfig[];
  /**
   * Adds a website at run time (the demo and tests use it), or re-configures one the engine has. Resolves
   * once its catalog is loaded and the hierarchies of its settings are derived, as `createEngine` does.
   */
  addWebsite(config: WebsiteConfig): Promise<void>;
  /**
   * Whether the engine can serve now: the store answers, the data directory is writable, every
   * catalog is loaded, the recommendation indexes reflect the current catalogs and the stored events
   * are replayed into the recommendation models (after a restart both finish in the background once
   * `createEngine` has resolved); each failed check carries its reason. Checking starts index builds
   * that are due.
   */
  readiness(): Promise<Readiness>;
  /** Background failures so far (logged and passed to `onError` as they happen), per task. */
  backgroundFailures(): Record<BackgroundTask, number>;
  /**
   * Resolves once the work the engine runs in the background has ended: the recommendation indexes
   * reflect the current catalogs (builds that are due are started, as {@link readiness} starts them),
   * and the search aids derived ahead of the searches (term blocks and bitsets, the stem index), the
   * semantic model's training and every other background slice on this thread are done. Searches and
   * recommendations are answered meanwhile, but more slowly: at 100,000 products the first ~4 s after a
   * load (docs/benchmarks.md). For tests, benchmarks, and scripts that warm a process before it takes
   * traffic. Rejects with the error of a recommendation index build that fails.
   */
  settled(): Promise<void>;
  /** Writes every catalog's snapshot to the data directory (no-op in memory). */
  saveSnapshots(): Promise<void>;
  /** Flushes the store, stops the workers. */
  close(): Promise<void>;
}
