/**
 * `createEngine`: the engine as a composition of its parts — per website a catalog and its
 * recommendation models; one search pool; one event service over the store (an instance handed in, or
 * one opened from its configuration) and the services over it — routing each public operation to the
 * part that owns it. The start's wiring is engine/start.ts, the shutdown engine/shutdown.ts; the logic
 * lives in the parts. Where the engine's parts differ by store, the store's capabilities answer
 * ({@link Store.sharing}); the engine never asks which store it is.
 * @module
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  validateEngineOptions, type EngineOptions, type StoreConfig, type WebsiteConfig, type WebsiteSettings,
} from './config.js';
import type {
  AttributionReport, CouponIssue, CouponUseResult, Engine, LoadOptions, LoadSummary, ProductSource, RecommendationIndexStatus, RecommendationReport, SearchReport,
  RecommendOptions, SearchOptions, VersionedSettings, WebsiteStats,
} from './engine-api.js';
import { backgroundIdle, backgroundRunning } from './catalog/build/time-slices.js';
import { FailureReporter, type BackgroundTask, type EngineHooks } from './background-failures.js';
import { AisleError } from './errors.js';
import { checkDiskWritable, combineChecks, runCheck, type Readiness } from './readiness.js';
import type { Embedder } from './semantic/embedder.js';
import { isStore } from './store/open-store.js';
import { storeCall } from './store/store-call.js';
import type { Store } from './store/store.js';
import { checkKeyScopeFits } from './keys/key-scope.js';
import { SearchKeyService, searchKeyInfo, type CreatedSearchKey, type PresentedSearchKey, type SearchKeyInfo } from './keys/search-key-service.js';
import { SearchPool, validateSearchRequest } from './search/index.js';
import { settingsWithDefaults } from './settings/website-settings.js';
import { parsePreviewRequest, previewOf } from './settings/settings-preview.js';
import { readExperimentReport } from './experiments/read-experiment-report.js';
import type { AttributionReportParams, RecommendationReportParams, SearchReportParams } from './contract/query-schemas.js';
import type { Experiment, ExperimentReport } from './contract/schemas.js';
import type {
  BundleRequest, BundleResponse, ClickRequest, EventAck, Product, PurchaseRequest, RecommendParams, RecommendResponse,
  SearchRequest, SearchResponse, ViewRequest, BulkDeleteResult,
} from './types.js';
import type { SettingsPreview } from './contract/schemas.js';
import * as catalogWrites from './engine/catalog-writes.js';
import { writeSnapshot } from './engine/catalog-files.js';
import { shutDown } from './engine/shutdown.js';
import { startEngine, type StartedEngine } from './engine/start.js';
import { bundles, recommend } from './engine/recommend-operation.js';
import { rankSearch, search, type SearchParts } from './engine/search-operation.js';
import { addWebsite } from './engine/websites.js';
import type { WebsiteState } from './engine/website-state.js';

/**
 * The options of {@link createEngine}: the config file's shape ({@link EngineOptions}), the hooks, and
 * the store as a configuration or as an instance the host made.
 */
export type CreateEngineOptions = Omit<EngineOptions, 'store'> & EngineHooks & {
  /**
   * Where durable state lives: a configuration (without one: memory, or SQLite in `dataDir`), or a
   * {@link Store} instance (e.g. a `MemoryStore`, or a store of the host's own that passes the store
   * contract). The engine owns an instance handed in: it closes it when it closes (or fails to start).
   */
  store?: StoreConfig | Store;
};

class AisleEngine implements Engine {
  private readonly sites = new Map<string, WebsiteState>();
  private closed = false;
  /** The shutdown under way or done: every close() call waits for the same one. */
  private closing: Promise<void> | undefined;
  private readonly embedders: ReadonlyMap<string, Embedder>;
  private readonly reporter: FailureReporter;
  private readonly hooks: EngineHooks;
  /** What the start opened (engine/start.ts), set by {@link open}. */
  private parts!: StartedEngine;
  private searchKeys: SearchKeyService | undefined;
  private searchPartsMade: SearchParts | undefined;

  constructor(
    private readonly options: Omit<EngineOptions, 'store'>,
    /** The store's configuration or instance, opened by {@link open}. */
    private readonly storeSource: StoreConfig | Store | undefined,
    private readonly pool: SearchPool | undefined,
    hooks: EngineHooks,
  ) {
    this.reporter = new FailureReporter(hooks);
    this.hooks = hooks;
    this.embedders = new Map((options.embedders ?? []).map((e) => [e.id, e]));
  }

  async open(): Promise<void> {
    this.parts = await startEngine({
      options: this.options, storeSource: this.storeSource, embedders: this.embedders, reporter: this.reporter,
      logger: this.hooks.logger, onClickOutcome: this.hooks.onClickOutcome,
      sites: this.sites, site: (websiteId) => this.site(websiteId), closed: () => this.closed,
      searchPoolFrom: this.pool?.threshold ?? Infinity,
    });
  }

  /** What the search operation uses (engine/search-operation.ts): the start's parts, the pool, the reporter. */
  private get searchParts(): SearchParts {
    this.searchPartsMade ??= { ...this.parts, pool: this.pool, reporter: this.reporter };
    return this.searchPartsMade;
  }

  // The parts the report and experiment operations read.
  private get experiments(): StartedEngine['experiments'] { return this.parts.experiments; }
  private get learner(): StartedEngine['learner'] { return this.parts.learner; }
  private get searchLog(): StartedEngine['searchLog'] { return this.parts.searchLog; }
  private get resultPages(): StartedEngine['resultPages'] { return this.parts.resultPages; }

  private site(websiteId: string): WebsiteState {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const state = typeof websiteId === 'string' ? this.sites.get(websiteId) : undefined;
    if (!state) throw new AisleError('WEBSITE_NOT_FOUND', `unknown website_id "${String(websiteId)}"`);
    return state;
  }

  /** The website's catalog as the catalog writes take it (engine/catalog-writes.ts). */
  private catalogOf(websiteId: string): catalogWrites.CatalogWriteTarget {
    return { state: this.site(websiteId), shared: this.parts.sharedCatalogs, reporter: this.reporter };
  }

  async upsertProducts(websiteId: string, products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    return catalogWrites.upsertProducts(this.catalogOf(websiteId), products, options);
  }

  async replaceProducts(websiteId: string, products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    return catalogWrites.replaceProducts(this.catalogOf(websiteId), products, options);
  }

  async patchProducts(websiteId: string, patches: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    return catalogWrites.patchProducts(this.catalogOf(websiteId), patches, options);
  }

  async getProduct(websiteId: string, refId: string): Promise<Product | undefined> {
    const state = this.site(websiteId);
    if (typeof refId !== 'string') throw new AisleError('CATALOG_BAD_INPUT', 'catalog: refId must be a string');
    return state.catalog.getProduct(refId);
  }

  async deleteProducts(websiteId: string, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }> {
    return catalogWrites.deleteProducts(this.catalogOf(websiteId), refIds);
  }

  async bulkDeleteProducts(websiteId: string, body: unknown): Promise<BulkDeleteResult> {
    return catalogWrites.bulkDeleteProducts(this.catalogOf(websiteId), body);
  }

  async search(body: SearchRequest, options: SearchOptions = {}): Promise<SearchResponse> {
    const request = validateSearchRequest(body);
    // `null` from a JavaScript caller means no options, as undefined does.
    return search(this.searchParts, this.site(request.website_id), request, options ?? {});
  }

  async previewSettings(websiteId: string, body: unknown): Promise<SettingsPreview> {
    const state = this.site(websiteId);
    const { search, settings: patch } = parsePreviewRequest(body, websiteId, state.config.client);
    // Validated and merged exactly as a PATCH of the settings (its errors, its 409), nothing written.
    const { current, next } = await this.parts.settings.preview(websiteId, patch);
    // Ranked only: a preview is not a shopper's search (no result page for clicks, no search log, no completions).
    const [before, after] = await Promise.all([rankSearch(this.searchParts, state, search, current, {}), rankSearch(this.searchParts, state, search, next, {})]);
    return previewOf(search.start, before.payload, after.payload);
  }

  async getSettings(websiteId: string): Promise<WebsiteSettings> {
    return settingsWithDefaults(this.site(websiteId).config.settings);
  }

  async updateSettings(websiteId: string, settings: unknown, options: { merge?: boolean } = {}): Promise<WebsiteSettings> {
    return (await this.updateVersionedSettings(websiteId, settings, options)).settings;
  }

  async getVersionedSettings(websiteId: string): Promise<VersionedSettings> {
    this.site(websiteId);
    return this.parts.settings.current(websiteId);
  }

  async updateVersionedSettings(websiteId: string, settings: unknown, options: { merge?: boolean; ifVersion?: readonly string[] } = {}): Promise<VersionedSettings> {
    this.site(websiteId);
    return this.parts.settings.update(websiteId, settings, options.merge === true, options.ifVersion);
  }

  async recommend(websiteId: string, method: string, params: RecommendParams, options?: RecommendOptions): Promise<RecommendResponse> {
    return recommend(this.parts, websiteId, this.site(websiteId).models, method, params, options);
  }

  async bundles(websiteId: string, body: BundleRequest): Promise<BundleResponse> {
    return bundles(this.parts, websiteId, this.site(websiteId).models, body);
  }

  async recordPurchases(websiteId: string, body: PurchaseRequest): Promise<EventAck> {
    this.site(websiteId);
    return this.parts.events.recordPurchases(websiteId, body);
  }

  async recordViews(websiteId: string, body: ViewRequest): Promise<EventAck> {
    this.site(websiteId);
    return this.parts.events.recordViews(websiteId, body, this.findResultLists);
  }

  async recordClicks(websiteId: string, body: ClickRequest): Promise<EventAck> {
    this.site(websiteId);
    const ack = await this.parts.events.recordClicks(websiteId, body, this.findResultLists);
    // Read back from the store (as other replicas' are): the learned state follows the store's order.
    this.learner.poke(websiteId);
    return ack;
  }

  /** The result lists that click and view events name, as the event service looks them up. */
  private readonly findResultLists = (websiteId: string, queryIds: readonly string[]) => (queryIds.length === 0
    ? Promise.resolve(new Map())
    : storeCall(() => this.resultPages.find(websiteId, queryIds)));

  async markCouponUsed(client: string, code: string): Promise<CouponUseResult> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    return this.parts.events.markCouponUsed(client, code);
  }

  async issueCoupons(websiteId: string, coupons: readonly CouponIssue[]): Promise<{ issued: number }> {
    this.site(websiteId);
    return this.parts.events.issueCoupons(websiteId, coupons);
  }

  async stats(websiteId: string): Promise<WebsiteStats> {
    const state = this.site(websiteId);
    const counts = await this.parts.events.counts(websiteId);
    return { websiteId, products: state.catalog.liveCount, ...counts };
  }

  async attributionReport(websiteId: string, range?: AttributionReportParams): Promise<AttributionReport> {
    this.site(websiteId);
    // `null` from a JavaScript caller means no range, as undefined does (the default window).
    return this.parts.events.attributionReport(websiteId, range ?? undefined);
  }

  async semanticModel(websiteId: string): Promise<{ id: string; version: string } | undefined> {
    const semantics = this.site(websiteId).semantics;
    await semantics.settled();
    const model = semantics.textModel;
    return model && { id: model.id, version: model.version };
  }

  async searchReport(websiteId: string, range: SearchReportParams = {}): Promise<SearchReport> {
    this.site(websiteId);
    return this.searchLog.report(websiteId, range ?? {});
  }

  async recommendationReport(websiteId: string, range: RecommendationReportParams = {}): Promise<RecommendationReport> {
    this.site(websiteId);
    return this.searchLog.recommendationReport(websiteId, range ?? {});
  }

  async createExperiment(websiteId: string, body: unknown): Promise<Experiment> {
    this.site(websiteId);
    return storeCall(() => this.experiments.create(websiteId, body));
  }

  async listExperiments(websiteId: string): Promise<Experiment[]> {
    this.site(websiteId);
    return storeCall(() => this.experiments.list(websiteId));
  }

  async experimentReport(websiteId: string, id: string): Promise<ExperimentReport> {
    this.site(websiteId);
    return readExperimentReport({ experiments: this.experiments, searchLog: this.searchLog, store: this.parts.events.store }, websiteId, id);
  }

  async stopExperiment(websiteId: string, id: string): Promise<Experiment> {
    this.site(websiteId);
    return storeCall(() => this.experiments.stop(websiteId, id));
  }

  async deleteExperiment(websiteId: string, id: string): Promise<void> {
    this.site(websiteId);
    return storeCall(() => this.experiments.delete(websiteId, id));
  }

  recommendationIndexStatus(): RecommendationIndexStatus {
    const websites = [...this.sites.values()].map((s) => ({ websiteId: s.config.websiteId, ...s.models.indexReadiness() }));
    const first = websites.find((w) => !w.ready);
    return first ? { ready: false, reason: `website "${first.websiteId}": ${first.reason}`, websites } : { ready: true, websites };
  }

  recommendationIndexesReady(): boolean {
    return this.recommendationIndexStatus().ready;
  }

  private get keys(): SearchKeyService {
    this.searchKeys ??= new SearchKeyService(this.parts.events.store);
    return this.searchKeys;
  }

  async createSearchKey(websiteId: string, body: unknown): Promise<CreatedSearchKey> {
    const site = this.site(websiteId);
    return storeCall(() => this.keys.create(websiteId, body, (scope) => checkKeyScopeFits(site.catalog.state, site.config.settings, scope)));
  }

  async listSearchKeys(websiteId: string): Promise<SearchKeyInfo[]> {
    this.site(websiteId);
    return storeCall(() => this.keys.list(websiteId));
  }

  async revokeSearchKey(websiteId: string, keyOrId: string): Promise<void> {
    this.site(websiteId);
    return storeCall(() => this.keys.revoke(websiteId, keyOrId));
  }

  async resolveSearchKey(key: string): Promise<SearchKeyInfo | undefined> {
    const presented = await this.presentSearchKey(key);
    return presented.status === 'live' ? presented.key : undefined;
  }

  async presentSearchKey(key: string): Promise<PresentedSearchKey> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const presented = await storeCall(() => this.keys.present(key));
    return presented.status === 'unknown' ? presented : { status: presented.status, key: searchKeyInfo(presented.record, Date.now()) };
  }

  website(websiteId: string): WebsiteConfig | undefined {
    return this.sites.get(websiteId)?.config;
  }

  websites(): readonly WebsiteConfig[] {
    return [...this.sites.values()].map((s) => s.config);
  }

  async addWebsite(config: WebsiteConfig): Promise<void> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    if (typeof config !== 'object' || config === null) throw new AisleError('CONFIG_INVALID', 'config: the website must be an object');
    const { opener, events, settings, searchLog } = this.parts;
    return addWebsite({ sites: this.sites, opener, events, settings, searchLog }, config);
  }

  async readiness(): Promise<Readiness> {
    if (this.closed) return combineChecks([{ name: 'engine', ok: false, reason: 'the engine is closed' }]);
    const dataDir = this.options.dataDir;
    const checks = [
      runCheck('store', () => this.parts.events.storeProblem()),
      ...(dataDir ? [runCheck('disk', () => checkDiskWritable(path.join(dataDir, 'catalogs')))] : []),
      // No "catalogs" check: every catalog is loaded (snapshot + change log replayed) before
      // createEngine resolves, and a website added at run time before addWebsite resolves.
      runCheck('recommendations', async () => this.recommendationIndexesProblem()),
      runCheck('events', async () => this.parts.replay.problem),
    ];
    return combineChecks(await Promise.all(checks));
  }

  /**
   * Why the recommendation indexes cannot answer yet (a website's first build after loading its
   * catalog), or undefined. A rebuild after a change is not a problem: the previous index keeps
   * serving until its replacement is built.
   */
  private recommendationIndexesProblem(): string | undefined {
    const status = this.recommendationIndexStatus();
    return status.ready ? undefined : status.reason;
  }

  backgroundFailures(): Record<BackgroundTask, number> {
    return this.reporter.failureCounts();
  }

  async settled(): Promise<void> {
    while (!this.closed) {
      await backgroundIdle();
      // The recommendation indexes' own wait starts the builds that are due, as a readiness probe does.
      await Promise.all([...this.sites.values()].map((s) => Promise.all([s.semantics.settled(), s.termAids.settled(), s.models.whenIndexesReady()])));
      // What the waits' ends started (a rebuild queued behind a build) is waited for too.
      if (!backgroundRunning()) return;
    }
  }

  async saveSnapshots(): Promise<void> {
    await Promise.all([...this.sites.values()].map((s) => writeSnapshot(s)));
  }

  async close(): Promise<void> {
    // A second call waits for the first one's shutdown (it resolved at once, before the checkpoint and the store were done).
    this.closed = true;
    this.closing ??= shutDown(this.parts, this.sites, this.pool, this.reporter);
    await this.closing;
  }
}

/**
 * Creates an engine from options of the config file's shape (see docs/operations.md). Loads catalog
 * snapshots from `dataDir` (with the changes logged since) and opens the store before resolving, so it
 * serves searches as soon as it resolves; the recommendation models are rebuilt from the stored events
 * and their indexes built in the background after that (`readiness()` says when they are; a
 * recommendation waits for the events' replay). Throws `CONFIG_INVALID` naming the first bad key.
 */
export async function createEngine(options: CreateEngineOptions = {}): Promise<Engine> {
  // Checked before the destructuring below, which would throw a TypeError naming no option.
  if (typeof options !== 'object' || options === null) throw new AisleError('CONFIG_INVALID', 'config: the engine options must be an object');
  const { logger, onError, onClickOutcome, store, ...config } = options;
  // A store instance is not configuration: the configuration's check sees the rest.
  validateEngineOptions(store !== undefined && isStore(store) ? config : { ...config, ...(store !== undefined && { store }) });
  const workers = options.workers ?? Math.min(2, availableParallelism());
  const pool = workers > 0 ? new SearchPool({ workers, threshold: options.poolThreshold }) : undefined;
  const engine = new AisleEngine(config, store, pool, { logger, onError, onClickOutcome });
  try {
    await engine.open();
  } catch (err) {
    await pool?.close();
    throw err;
  }
  return engine;
}
