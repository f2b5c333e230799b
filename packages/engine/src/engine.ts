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
  personalizationWeight, semanticSearchOf, validateEngineOptions, type EngineOptions, type StoreConfig, type WebsiteConfig, type WebsiteSettings,
} from './config.js';
import type {
  AttributionReport, CouponIssue, CouponUseResult, Engine, LoadOptions, LoadSummary, ProductSource, RecommendationIndexStatus, RecommendationReport, SearchReport,
  SearchOptions, VersionedSettings, WebsiteStats,
} from './engine-api.js';
import { FailureReporter, type BackgroundTask, type EngineHooks } from './background-failures.js';
import { AisleError } from './errors.js';
import { checkDiskWritable, combineChecks, runCheck, type Readiness } from './readiness.js';
import { affinityOf, affinityProfile, affinityRolesOf } from './search/personalize.js';
import { makeReranker, type RankStage, type RerankInputs } from './search/rerank.js';
import { tokenize } from './catalog/full-text/tokenizer.js';
import { DEFAULT_FIELD_WEIGHTS } from './catalog/field-values.js';
import type { Embedder } from './semantic/embedder.js';
import { isStore } from './store/open-store.js';
import { storeCall } from './store/store-call.js';
import type { ExperimentRecord, ListExperiment, Store } from './store/store.js';
import { SearchKeyService, searchKeyInfo, type CreatedSearchKey, type SearchKeyInfo } from './keys/search-key-service.js';
import { executeRankedSearch, executeSearch, SearchPool, validateSearchRequest, type RankedSearch } from './search/index.js';
import { settingsWithDefaults } from './settings/website-settings.js';
import { parsePreviewRequest, previewOf } from './settings/settings-preview.js';
import { suggestionSettingsOf } from './analytics/analytics-settings.js';
import { logQuery } from './analytics/search-log.js';
import { INTERLEAVED } from './experiments/experiment-service.js';
import { readExperimentReport } from './experiments/read-experiment-report.js';
import { assignmentPoint } from './experiments/assignment.js';
import { teamDraftInterleave } from './experiments/interleaving.js';
import { Random } from './demo/random.js';
import type { AttributionReportParams, RecommendationReportParams, SearchReportParams } from './contract/query-schemas.js';
import type { Experiment, ExperimentReport } from './contract/schemas.js';
import { DEFAULT_SEARCH_SIZE, MAX_SEARCH_SIZE } from './contract/limits.js';
import { clickRankingOf } from './learning/click-ranking-settings.js';
import type {
  BundleRequest, BundleResponse, ClickRequest, EventAck, Product, PurchaseRequest, RecommendParams, RecommendResponse,
  SearchRequest, SearchResponse, ViewRequest, BulkDeleteResult,
} from './types.js';
import type { SearchPayload, SettingsPreview } from './contract/schemas.js';
import * as catalogWrites from './engine/catalog-writes.js';
import { writeSnapshot } from './engine/catalog-files.js';
import { shutDown } from './engine/shutdown.js';
import { startEngine, type StartedEngine } from './engine/start.js';
import { bundles, recommend } from './engine/recommend-operation.js';
import { addWebsite } from './engine/websites.js';
import { NO_SETTINGS, type WebsiteState } from './engine/website-state.js';

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
  private readonly embedders: ReadonlyMap<string, Embedder>;
  private readonly reporter: FailureReporter;
  private readonly hooks: EngineHooks;
  /** What the start opened (engine/start.ts), set by {@link open}. */
  private parts!: StartedEngine;
  private searchKeys: SearchKeyService | undefined;

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
    });
  }

  // The parts the search, report and experiment operations read.
  private get experiments(): StartedEngine['experiments'] { return this.parts.experiments; }
  private get learner(): StartedEngine['learner'] { return this.parts.learner; }
  private get searchLog(): StartedEngine['searchLog'] { return this.parts.searchLog; }
  private get resultPages(): StartedEngine['resultPages'] { return this.parts.resultPages; }
  /**
   * Settles when the first replay of the stored events into the recommendation models is over, failed
   * or not (engine/event-replay.ts): recommendations and personalised searches wait for it.
   */
  private get eventsReplayed(): Promise<void> { return this.parts.replay.firstAttempt; }

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
    return this.site(websiteId).catalog.getProduct(refId);
  }

  async deleteProducts(websiteId: string, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }> {
    return catalogWrites.deleteProducts(this.catalogOf(websiteId), refIds);
  }

  async bulkDeleteProducts(websiteId: string, body: unknown): Promise<BulkDeleteResult> {
    return catalogWrites.bulkDeleteProducts(this.catalogOf(websiteId), body);
  }

  async search(body: SearchRequest, options: SearchOptions = {}): Promise<SearchResponse> {
    const request = validateSearchRequest(body);
    const state = this.site(request.website_id);
    if (request.client !== state.config.client) {
      throw new AisleError('CLIENT_NOT_FOUND', `client "${request.client}" does not belong to website "${request.website_id}"`);
    }
    // One object while a website has none: a variant's merged settings are cached per settings object.
    const settings = state.config.settings ?? NO_SETTINGS;
    // A customer in a running search experiment is served under their variant's settings (docs/experiments.md).
    const assignment = this.experiments.assign(request.website_id, 'search', request.customer_id);
    if (assignment === undefined) return this.searchWith(state, request, settings, options);
    const { experiment, variant } = assignment;
    const customerId = request.customer_id!;
    if (variant === INTERLEAVED) {
      const [a, b] = [0, 1].map((i) => this.experiments.variantSettings(request.website_id, experiment, i, settings));
      if (a === null || b === null) return this.searchWith(state, request, settings, options);
      return this.searchInterleaved(state, request, [a, b], options, experiment, customerId);
    }
    const variantSettings = this.experiments.variantSettings(request.website_id, experiment, variant, settings);
    if (variantSettings === null) return this.searchWith(state, request, settings, options);
    return this.searchWith(state, request, variantSettings, options, { id: experiment.id, variant: experiment.variants[variant]!.name, customerId });
  }

  /**
   * A validated search of a website run under the given effective settings (the website's, an
   * experiment variant's, a preview's): ranked, remembered for clicks, logged, with its completions.
   * `experiment` tags the response and its logged page.
   */
  private async searchWith(
    state: WebsiteState, request: SearchRequest, settings: WebsiteSettings, options: SearchOptions, experiment?: ListExperiment,
  ): Promise<SearchResponse> {
    const { payload, rankedBy, stages } = await this.rankWith(state, request, settings, options);
    return this.answerSearch(state, request, settings, options, payload, rankedBy, experiment, stages);
  }

  /**
   * The ranked page of a validated search under `settings`, nothing remembered or logged: what a
   * shopper's search answers before it is recorded, and all a settings preview is (not a shopper's search).
   */
  private async rankWith(state: WebsiteState, request: SearchRequest, settings: WebsiteSettings, options: SearchOptions): Promise<RankedSearch> {
    const personalization = personalizationWeight(settings.personalization);
    // The spec: customer_id is "required only when personalization is enabled" (the wire contract).
    if (personalization !== undefined && !request.customer_id) {
      throw new AisleError('SEARCH_BAD_REQUEST', 'customer_id is required: personalization is enabled for this website');
    }
    const inputs: RerankInputs = {};
    const semantic = semanticSearchOf(settings.semanticSearch);
    if (semantic && tokenize(request.q).length > 0) {
      inputs.semantic = {
        weight: semantic.weight,
        scores: async (candidates, revisions) => {
          const weights = { ...state.catalog.options.fieldWeights, ...settings.fieldWeights };
          try {
            const scored = await state.semantics.scores(semantic.model, request.q, candidates, revisions, (f) => weights[f] ?? DEFAULT_FIELD_WEIGHTS[f] ?? 1);
            return scored && { label: `${scored.model.id}@${scored.model.version}`, similarities: scored.similarities };
          } catch (err) {
            // A failing embedder (a remote model down, a contract broken) must not take search down: the
            // plain order is served, without `ats_model` (the model did not rank), and the failure is reported.
            this.reporter.report('semantic-embedding', err, state.config.websiteId);
            return undefined;
          }
        },
      };
    }
    if (personalization !== undefined && request.customer_id) {
      // The shopper's history is complete only once the stored events are replayed.
      await this.eventsReplayed;
      const activity = state.models.customerActivity(request.customer_id);
      const catalogState = state.catalog.state;
      const profile = activity && affinityProfile(activity, (refId) => {
        const doc = catalogState.docByRefId.get(refId);
        return doc === undefined ? undefined : catalogState.store.get(doc);
      }, affinityRolesOf(settings.fieldRoles));
      if (profile) inputs.personalization = { weight: personalization, affinity: (p) => affinityOf(profile, p) };
    }
    const clickRanking = clickRankingOf(settings.clickRanking);
    if (clickRanking !== undefined) inputs.clicks = this.learner.clickStage(request.website_id, logQuery(request.q), clickRanking, this.searchLog);
    return executeRankedSearch(state.catalog, request, {
      pool: this.pool, settings, rerank: makeReranker(inputs), forcedScope: options.forcedScope,
      onRuleProblem: (problem) => this.reporter.warn('merchandising-rule', problem, state.config.websiteId),
      popularity: (catalogState) => this.learner.popularityValues(request.website_id, catalogState),
    });
  }

  /**
   * An interleaving experiment's search: both variants rank the results down to the end of the page, the
   * two rankings are merged by team draft (its coin seeded by the experiment, the customer and the query,
   * so every page of one search and a repeated search interleave alike) and the page is cut from the
   * merged list; the page remembers which variant placed each item, so a click credits that variant.
   * Totals, facets and suggestions are the first variant's (the control: the same products match).
   */
  private async searchInterleaved(
    state: WebsiteState, request: SearchRequest, settings: [WebsiteSettings, WebsiteSettings], options: SearchOptions,
    experiment: ExperimentRecord, customerId: string,
  ): Promise<SearchResponse> {
    const depth = Math.min(request.start + (request.size ?? DEFAULT_SEARCH_SIZE), MAX_SEARCH_SIZE);
    const deep = { ...request, start: 0, size: depth };
    const [a, b] = await Promise.all(settings.map((s) => this.rankWith(state, deep, s, options)));
    const byRefId = new Map<string, Product>();
    for (const p of [...b!.payload.result, ...a!.payload.result]) byRefId.set(p.refId, p);
    const coin = new Random(Math.floor(assignmentPoint(experiment.id, `${customerId}\u0000${logQuery(request.q)}`) * 2 ** 32));
    const merged = teamDraftInterleave(a!.payload.result.map((p) => p.refId), b!.payload.result.map((p) => p.refId), depth, () => coin.next());
    const end = request.start + (request.size ?? DEFAULT_SEARCH_SIZE);
    const names = experiment.variants.map((v) => v.name);
    const payload: SearchPayload = { ...a!.payload, result: merged.items.slice(request.start, end).map((refId) => byRefId.get(refId)!) };
    const teams = [...merged.teams.slice(request.start, end)].map((t) => names[t]!);
    return this.answerSearch(state, request, settings[0], options, payload, a!.rankedBy ?? b!.rankedBy, { id: experiment.id, variant: INTERLEAVED, customerId, teams });
  }

  /** Remembers a ranked page for clicks, logs it, adds completions and makes the response. */
  private async answerSearch(
    state: WebsiteState, request: SearchRequest, settings: WebsiteSettings, options: SearchOptions, payload: SearchPayload,
    rankedBy: string | undefined, experiment: ListExperiment | undefined, stages: readonly RankStage[] = [],
  ): Promise<SearchResponse> {
    // A search's session: its session_id, else its customer_id (an empty one is none).
    const session = request.session_id || request.customer_id || undefined;
    // One id for the page: the list clicks name, and the analytics log.
    const queryId = this.resultPages.record({
      websiteId: request.website_id, kind: 'search', source: logQuery(request.q), variant: experiment?.variant ?? null,
      customerId: request.customer_id || null, sessionId: session ?? null,
      firstPosition: request.start + 1, refIds: payload.result.map((p) => p.refId), ...(experiment !== undefined && { experiment }),
    });
    // The first page of a query is one search for the log (paging through it is not another).
    if (request.start === 0) {
      this.searchLog.record(request.website_id, {
        queryId, q: request.q, session, totalResults: payload.total_results,
        ...(experiment !== undefined && { experiment: { id: experiment.id, variant: experiment.variant, customerId: experiment.customerId } }),
      });
    }
    // Through a key with a forced scope, a completion is offered only when it has results within it.
    const scope = options.forcedScope;
    const hasResults = scope === undefined || Object.keys(scope).length === 0 ? undefined : async (q: string) => {
      const found = await executeSearch(state.catalog, { website_id: request.website_id, client: request.client, q, scope, start: 0, size: 0 }, { settings });
      // Products matching only some of the words are a fallback, not results of the completion.
      return found.total_results > 0 && found.suggestions.dropped_words === undefined;
    };
    const queries = await this.searchLog.suggestions(request.website_id, request.q, state.catalog.state, suggestionSettingsOf(settings), hasResults);
    if (queries.length > 0) payload.suggestions.queries = queries;
    const response: SearchResponse = { type: 1, query_id: queryId, payload };
    if (rankedBy !== undefined || stages.length > 0) {
      response.settings = { ...(rankedBy !== undefined && { ats_model: rankedBy }), ...(stages.length > 0 && { ranked_by: [...stages] }) };
    }
    if (experiment !== undefined) response.settings = { ...response.settings, experiment: { id: experiment.id, variant: experiment.variant } };
    return response;
  }

  async previewSettings(websiteId: string, body: unknown): Promise<SettingsPreview> {
    const state = this.site(websiteId);
    const { search, settings: patch } = parsePreviewRequest(body, websiteId, state.config.client);
    // Validated and merged exactly as a PATCH of the settings (its errors, its 409), nothing written.
    const { current, next } = await this.parts.settings.preview(websiteId, patch);
    // Ranked only: a preview is not a shopper's search (no result page for clicks, no search log, no completions).
    const [before, after] = await Promise.all([this.rankWith(state, search, current, {}), this.rankWith(state, search, next, {})]);
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

  async recommend(websiteId: string, method: string, params: RecommendParams): Promise<RecommendResponse> {
    return recommend(this.parts, websiteId, this.site(websiteId).models, method, params);
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
    return this.parts.events.attributionReport(websiteId, range);
  }

  async semanticModel(websiteId: string): Promise<{ id: string; version: string } | undefined> {
    const semantics = this.site(websiteId).semantics;
    await semantics.settled();
    const model = semantics.textModel;
    return model && { id: model.id, version: model.version };
  }

  async searchReport(websiteId: string, range: SearchReportParams = {}): Promise<SearchReport> {
    this.site(websiteId);
    return this.searchLog.report(websiteId, range);
  }

  async recommendationReport(websiteId: string, range: RecommendationReportParams = {}): Promise<RecommendationReport> {
    this.site(websiteId);
    return this.searchLog.recommendationReport(websiteId, range);
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
    this.site(websiteId);
    return storeCall(() => this.keys.create(websiteId, body));
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
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const record = await storeCall(() => this.keys.resolve(key));
    return record === undefined ? undefined : searchKeyInfo(record, Date.now());
  }

  website(websiteId: string): WebsiteConfig | undefined {
    return this.sites.get(websiteId)?.config;
  }

  websites(): readonly WebsiteConfig[] {
    return [...this.sites.values()].map((s) => s.config);
  }

  async addWebsite(config: WebsiteConfig): Promise<void> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
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

  async saveSnapshots(): Promise<void> {
    await Promise.all([...this.sites.values()].map((s) => writeSnapshot(s)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await shutDown(this.parts, this.sites, this.pool, this.reporter);
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
