/**
 * `createEngine`: wires the parts of one engine together — per website a catalog and its
 * recommendation models; one search pool; one event service over the store (an instance handed in, or
 * one opened from its configuration) — and routes each public operation to the part that owns it. The
 * logic lives in those parts. Where the engine's parts differ by store, the store's capabilities
 * answer ({@link Store.sharing}); the engine never asks which store it is.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { CatalogChangeLog, StoredSnapshot } from './catalog/durability/catalog-change-log.js';
import { FileChangeLog } from './catalog/durability/change-log.js';
import { lockDataDir, type DataDirLock } from './catalog/durability/data-dir-lock.js';
import { Catalog } from './catalog/index.js';
import type { CatalogOptions } from './catalog/catalog.js';
import { encodeCatalogSnapshotInSlices } from './catalog/durability/snapshot.js';
import { loadLatestGeneration, type LoadedGeneration } from './catalog/durability/snapshot-generations.js';
import {
  semanticSearchOf, validateEngineOptions, type EngineOptions, type StoreConfig, type WebsiteConfig, type WebsiteSettings,
} from './config.js';
import type {
  AttributionReport, CouponIssue, CouponUseResult, Engine, LoadOptions, LoadSummary, ProductSource, RecommendationIndexStatus, RecommendationReport, SearchReport,
  SearchOptions, WebsiteStats,
} from './engine-api.js';
import { FailureReporter, type BackgroundTask, type EngineHooks, type EngineLogger } from './background-failures.js';
import { StepTimer } from './util/step-timer.js';
import { AisleError, isAisleError } from './errors.js';
import { problemDetails, problemPath } from './contract/errors.js';
import { parseBulkDeleteRequest } from './catalog/input/bulk-delete-request.js';
import { refIdsInScope } from './search/scope-refids.js';
import { MAX_REPORTED_SKIPS } from './engine-api.js';
import { checkDiskWritable, combineChecks, runCheck, type Readiness } from './readiness.js';
import { EventService } from './events/event-service.js';
import { resolveMethod } from './recommend/methods.js';
import { tacticLabelOf } from './recommend/slots.js';
import { RecommendationModels } from './recommend/recommendation-models.js';
import { checkpointFiles, ModelCheckpointer, storeCheckpoints } from './recommend/model-checkpointer.js';
import type { ModelCheckpoint } from './recommend/model-checkpoint.js';
import type { ModelState } from './recommend/model-state.js';
import type { Embedder } from './semantic/embedder.js';
import { TEXT_MODEL_ID } from './semantic/text-model.js';
import { WebsiteSemantics } from './semantic/website-semantics.js';
import type { SharedCatalogs } from './store/shared-catalogs.js';
import { isStore, openStore } from './store/open-store.js';
import type { ListExperiment, Store } from './store/store.js';
import { SearchKeyService, searchKeyInfo, type CreatedSearchKey, type SearchKeyInfo } from './keys/search-key-service.js';
import { checkRulesApply, SearchPool } from './search/index.js';
import { NO_SETTINGS, rankSearch, search as searchOperation, type SearchParts } from './engine/search-operation.js';
import { checkWebsiteSettings, settingsWithDefaults } from './settings/website-settings.js';
import { parsePreviewRequest, previewOf } from './settings/settings-preview.js';
import { SETTINGS_POLL_MS, SettingsService } from './settings/settings-service.js';
import { RetentionJob } from './analytics/retention.js';
import { experimentKind, SearchLog } from './analytics/search-log.js';
import { hourOf } from './store/analytics-rows.js';
import { ExperimentService, INTERLEAVED } from './experiments/experiment-service.js';
import { experimentReport } from './experiments/experiment-report.js';
import type { AttributionReportParams, RecommendationReportParams, SearchReportParams } from './contract/query-schemas.js';
import type { Experiment, ExperimentReport } from './contract/schemas.js';
import { ResultPages } from './clicks/result-pages.js';
import { ClickLearner } from './learning/click-learner.js';
import type { ClickOutcome } from './events/click-attribution.js';
import { attributionWindowDays } from './retail-media/index.js';
import type {
  BundleRequest, BundleResponse, ClickRequest, EventAck, Product, PurchaseRecord, PurchaseRequest, RecommendParams, RecommendResponse,
  SearchRequest, SearchResponse, ViewRecord, ViewRequest, BulkDeleteResult,
} from './types.js';
import type { SettingsPreview } from './contract/schemas.js';

/**
 * Delay between the last catalog change and the snapshot write, so a burst of upserts writes once —
 * at least this, or 5× the last write's duration: a million-product snapshot takes seconds of CPU, and
 * the change log already makes every change durable, so snapshots of big catalogs are spaced out to
 * cost at most a small share of the time.
 */
const SNAPSHOT_DEBOUNCE_MS = 2_000;
/**
 * Longest wait for a snapshot under a steady stream of changes (each would push the debounce back):
 * at least this, or 10× the last write's duration. It bounds the change log a restart replays.
 */
const SNAPSHOT_MAX_DELAY_MS = 60_000;

/** First wait before a failed replay of the stored events goes on (ms); doubled per failure up to {@link REPLAY_RETRY_MAX_MS}. */
const REPLAY_RETRY_MS = 1_000;
/** Longest wait between two attempts of a failing replay (ms). */
const REPLAY_RETRY_MAX_MS = 30_000;
/** The readiness reason while the stored events are replayed. */
const REPLAYING = 'the stored events are being replayed into the recommendation models';

interface WebsiteState {
  config: WebsiteConfig;
  /** The config file's (or addWebsite's) settings: the initial value while the store has none. */
  seedSettings: WebsiteSettings;
  catalog: Catalog;
  models: RecommendationModels;
  /** Semantic models of the website (the built-in one trains only while a setting uses it). */
  semantics: WebsiteSemantics;
  /** The catalog's write-ahead log and snapshot (with a data directory, unless the catalogs are shared). */
  log?: CatalogChangeLog;
  snapshotTimer?: NodeJS.Timeout;
  /** When the oldest change not in a snapshot was made (ms), while a snapshot is due. */
  unsavedSince?: number;
  /** How long the last snapshot write took (ms). */
  lastWriteMs?: number;
  snapshotWrite?: Promise<void>;
  /**
   * The last change the snapshot now kept as the previous generation holds (undefined: that one was
   * loaded at the start, before any change of this process, so it holds none of this log).
   */
  previousSnapshotSeq?: number;
}

/** The directory of the catalogs' snapshots, change logs and semantic models in a data directory. */
function catalogsDir(dataDir: string): string {
  return path.join(dataDir, 'catalogs');
}

/** The file names of a website are its id percent-encoded, so any id maps to one safe file name. */
function fileNameOf(websiteId: string): string {
  return encodeURIComponent(websiteId);
}

/** The built-in semantic model's file, beside the snapshot (semantic/text-model-file.ts). */
function textModelPath(dataDir: string, websiteId: string): string {
  return path.join(catalogsDir(dataDir), `${fileNameOf(websiteId)}.aisle-ri`);
}

/**
 * The latest readable snapshot generation (catalog/durability/snapshot-generations.ts). When neither can be read
 * the start stops rather than silently serving an empty catalog; the message says how to recover (the
 * events are in the store, only the catalog needs reloading).
 */
async function loadSnapshotOrExplain(file: string, websiteId: string, options: CatalogOptions, timer: StepTimer): Promise<LoadedGeneration | undefined> {
  try {
    return await loadLatestGeneration(file, options, timer);
  } catch (err) {
    if (!isAisleError(err) || err.code !== 'SNAPSHOT_INVALID') throw err;
    throw new AisleError('SNAPSHOT_INVALID', `${err.message}. The catalog of website "${websiteId}" cannot be read: move ${file} `
      + 'away and reload the feed (aisle load, or the admin API); events, orders and coupons are kept in the store.', { cause: err, details: err.details });
  }
}

/** True when the settings rank with the built-in semantic model (so it must be trained). */
function usesBuiltInModel(settings: WebsiteSettings | undefined): boolean {
  return semanticSearchOf(settings?.semanticSearch)?.model === TEXT_MODEL_ID;
}

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
  private events!: EventService;
  private closed = false;
  private lock: DataDirLock | undefined;
  private settings!: SettingsService;
  private readonly embedders: ReadonlyMap<string, Embedder>;
  private readonly reporter: FailureReporter;
  /** With a store other processes share: the catalogs live in its change log (see {@link Store.sharing}). */
  private sharedCatalogs: SharedCatalogs | undefined;
  private searchLog!: SearchLog;
  private experiments!: ExperimentService;
  /** The answered result lists that clicks name (clicks/result-pages.ts). */
  private resultPages!: ResultPages;
  /** What shoppers' clicks and purchases taught: click ranking and `_popularity` (learning/click-learner.ts). */
  private learner!: ClickLearner;
  private readonly onClickOutcome: ((outcome: ClickOutcome) => void) | undefined;
  /** Deletes raw rows past each website's `eventRetentionDays`, in the background. */
  private retention!: RetentionJob;
  private searchKeys: SearchKeyService | undefined;
  /** Where the start's timings go (info lines); none without a logger. */
  private readonly logger: EngineLogger | undefined;
  /**
   * The replay of the stored events into the recommendation models, started by open() and not awaited
   * there (searches need the catalogs only): settles when it is over, failed or not. Recommendations and
   * personalised searches wait for it; readiness reports it.
   */
  private eventsReplayed: Promise<void> = Promise.resolve();
  /** Why the models do not hold every stored event: the replay is running or failed; undefined once done. */
  private replayProblem: string | undefined;
  /** The store, once opened at the start (the event service takes it over after the catalogs). */
  private store: Store | undefined;
  /**
   * The recommendation models' checkpoints (a data directory with a durable store of this process's
   * alone: the events and the checkpoints are then this process's; set by open()).
   */
  private checkpoints: ModelCheckpointer | undefined;
  /** The parts the search operation uses (engine/search-operation.ts), read as each search runs. */
  private readonly searchParts: SearchParts;

  constructor(
    private readonly options: Omit<EngineOptions, 'store'>,
    /** The store's configuration or instance, opened by {@link open}. */
    private readonly storeSource: StoreConfig | Store | undefined,
    private readonly pool: SearchPool | undefined,
    hooks: EngineHooks,
  ) {
    this.reporter = new FailureReporter(hooks);
    this.logger = hooks.logger;
    this.onClickOutcome = hooks.onClickOutcome;
    this.embedders = new Map((options.embedders ?? []).map((e) => [e.id, e]));
    // Getters: open() makes most of these parts, after the engine is constructed.
    const engine = this;
    this.searchParts = {
      site: (websiteId) => this.site(websiteId),
      get experiments() { return engine.experiments; },
      get searchLog() { return engine.searchLog; },
      get resultPages() { return engine.resultPages; },
      get learner() { return engine.learner; },
      pool,
      reporter: this.reporter,
      eventsReplayed: () => this.eventsReplayed,
    };
  }

  /** Waits for `work` during shutdown or cleanup: a failure is reported, not thrown. */
  private async settleReported(work: Promise<unknown> | undefined, task: BackgroundTask, websiteId?: string): Promise<void> {
    try {
      await work;
    } catch (err) {
      this.reporter.report(task, err, websiteId);
    }
  }

  async open(): Promise<void> {
    const timer = new StepTimer();
    if (this.options.dataDir) {
      await mkdir(path.join(this.options.dataDir, 'catalogs'), { recursive: true });
      this.lock = await lockDataDir(path.join(this.options.dataDir, 'catalogs'));
    }
    timer.lap('data directory');
    let store: Store | undefined;
    try {
      // Opened first: its capabilities say where the catalogs live. The embedded store's worker thread
      // boots in the background meanwhile (its first answer takes a few hundred ms); the event service
      // is made after the catalogs, since a shared store's polling may feed no model before the replay.
      store = await openStore(this.storeSource, this.options.dataDir);
      this.store = store;
      timer.lap('store');
      this.learner = new ClickLearner({
        store,
        attributionWindowMs: (websiteId) => {
          const site = this.sites.get(websiteId);
          return site === undefined ? 0 : attributionWindowDays(site.config) * 86_400_000;
        },
        onError: (err, websiteId) => this.reporter.report('click-learning', err, websiteId),
        onApplied: () => this.checkpoints?.eventFed(),
      });
      this.sharedCatalogs = await store.sharing?.openSharedCatalogs((task, err, websiteId) => this.reporter.report(task, err, websiteId));
      // The models' checkpoints need a store whose events outlive this process, and a place beside it:
      // the store itself when replicas share it and it keeps checkpoints (a replica has no files of its
      // own, and a new replica starts from what another wrote), else the data directory (the embedded
      // store's events are this process's alone). Either way a checkpoint's sequence number says which
      // stored events it holds.
      const place = store.sharing?.checkpoints !== undefined ? storeCheckpoints(store.sharing.checkpoints)
        : this.options.dataDir && store.durable && store.sharing === undefined ? checkpointFiles(this.options.dataDir) : undefined;
      if (place !== undefined) {
        this.checkpoints = new ModelCheckpointer({
          place,
          report: (err, websiteId) => this.reporter.report('model-checkpoint', err, websiteId),
          saveExtra: (websiteId, state) => this.learner.saveState(websiteId, state),
          ...(this.options.modelCheckpointIntervalMs !== undefined && { intervalMs: this.options.modelCheckpointIntervalMs }),
        });
      }
      for (const config of this.options.websites ?? []) this.sites.set(config.websiteId, await this.openWebsite(config));
      timer.lap('catalogs');
      // Every catalog holds the shared log's changes before the engine is handed out (and so is ready).
      await this.sharedCatalogs?.start();
      timer.lap('replication');
      this.events = await this.openEvents(store);
      this.settings = new SettingsService({
        store: this.events.store,
        seed: (websiteId) => this.sites.get(websiteId)?.seedSettings ?? {},
        knows: (websiteId) => this.sites.has(websiteId),
        apply: (websiteId, settings) => this.applySettings(this.sites.get(websiteId)!, settings),
        modelIds: () => this.modelIds(),
        checkFit: (websiteId, next) => this.checkFieldTypesFit(websiteId, next),
        checkApplicable: (websiteId, settings) => checkRulesApply(this.site(websiteId).catalog.state, settings.rules, undefined, settings.hierarchies),
        report: (err, websiteId) => this.reporter.report('settings-poll', err, websiteId),
        recovered: () => this.reporter.recovered('settings-poll'),
      });
      this.searchLog = new SearchLog(this.events.store, {
        onError: (err) => this.reporter.report('search-log', err),
        sharedStore: store.sharing !== undefined,
      });
      this.experiments = new ExperimentService({
        store: this.events.store,
        settingsOf: (websiteId) => this.site(websiteId).config.settings ?? NO_SETTINGS,
        // As a settings PATCH is checked before it is stored: the settings schema, then the rules against the catalog.
        checkSettings: (websiteId, merged) => {
          const checked = checkWebsiteSettings(merged, this.modelIds());
          checkRulesApply(this.site(websiteId).catalog.state, checked.rules);
          return checked;
        },
        report: (err, websiteId) => this.reporter.report('experiments', err, websiteId),
        recovered: () => this.reporter.recovered('experiments'),
      });
      this.resultPages = new ResultPages(this.events.store, {
        attributionWindowDays: (websiteId) => {
          const site = this.sites.get(websiteId);
          return site === undefined ? 0 : attributionWindowDays(site.config);
        },
        websites: () => [...this.sites.keys()],
        // Lists are recorded and looked up only for websites of this engine (a changed hmacSecret makes earlier ids unknown).
        secretOf: (websiteId) => this.site(websiteId).config.hmacSecret,
        onError: (err) => this.reporter.report('result-pages', err),
      });
      this.retention = new RetentionJob(this.events.store, {
        websites: () => [...this.sites.values()].map((s) => ({ websiteId: s.config.websiteId, settings: s.config.settings })),
        onError: (err, websiteId) => this.reporter.report('retention', err, websiteId),
      });
      try {
        await this.settings.poll();
        await this.experiments.poll();
        timer.lap('settings');
        for (const id of this.sites.keys()) await this.searchLog.load(id);
        timer.lap('search log');
      } catch (err) {
        await this.settleReported(this.events.close(), 'shutdown');
        throw err;
      }
      // The recommendation indexes of big catalogs build in time slices in the background: started only
      // now, their slices no longer run in every await of the start above (a million products' visual
      // index takes seconds of CPU), so searches are served sooner; readiness waits for them.
      for (const s of this.sites.values()) {
        s.models.startIndexes();
        s.catalog.completeInBackground().catch((err: unknown) => this.reporter.report('index-build', err, s.config.websiteId));
      }
      this.replayEvents();
      // The clicks stored since the checkpoint (all of them without one), then other replicas' as they come.
      const learning = performance.now();
      this.learner.catchUp(this.sites.keys()).then((clicksRead) => {
        const ms = Math.round(performance.now() - learning);
        this.logger?.info({ ms, clicksRead }, `aisle: ${clicksRead} stored clicks read into the learned ranking state in ${ms} ms`);
      }, (err: unknown) => this.reporter.report('click-learning', err));
      this.resultPages.startPruning();
      this.retention.start();
      this.logger?.info({ ms: timer.totalMs, steps: timer.steps }, `aisle: engine opened in ${Math.round(timer.totalMs)} ms`);
      // Other processes change settings and search counts too: read theirs back.
      const sharing = store.sharing;
      if (sharing !== undefined) {
        this.settings.startPolling(Math.min(SETTINGS_POLL_MS, sharing.pollIntervalMs));
        this.experiments.startPolling(Math.min(SETTINGS_POLL_MS, sharing.pollIntervalMs));
        this.searchLog.startRefreshing(() => [...this.sites.keys()]);
        this.learner.startPolling(() => this.sites.keys(), sharing.pollIntervalMs);
      }
    } catch (err) {
      // A failed start leaves nothing open: another attempt (or process) can take the directory.
      // A store opened while a catalog failed is closed (the event service closes it once made).
      if (this.events === undefined) await this.settleReported(store?.close(), 'shutdown');
      for (const s of this.sites.values()) clearTimeout(s.snapshotTimer);
      await Promise.all([...this.sites.values()].map((s) => this.settleReported(s.log?.close(), 'shutdown', s.config.websiteId)));
      await this.settleReported(this.sharedCatalogs?.close(), 'shutdown');
      await this.settleReported(this.lock?.release(), 'shutdown');
      throw err;
    }
  }

  /** The event service over the store; its sink feeds the websites' models. */
  private openEvents(store: Store): Promise<EventService> {
    return EventService.open({
      store,
      dataDir: this.options.dataDir,
      websites: this.options.websites ?? [],
      reporter: this.reporter,
      sink: {
        onPurchase: (purchase: PurchaseRecord) => {
          this.checkpoints?.eventFed();
          this.sites.get(purchase.websiteId)?.models.applyPurchase(purchase);
          this.learner.onPurchase(purchase);
        },
        onView: (view: ViewRecord) => {
          this.checkpoints?.eventFed();
          this.sites.get(view.websiteId)?.models.applyView(view);
        },
        onClickOutcome: (outcome: ClickOutcome) => this.clickOutcome(outcome),
      },
    });
  }

  /**
   * A click on a result list, or a purchased line converting one (events/click-attribution.ts): into the
   * search analytics (counted against the response's id), then to the host's hook.
   */
  private clickOutcome(outcome: ClickOutcome): void {
    const key = outcome.query ?? outcome.method ?? '';
    // The reports count a recommendation's clicks per tactic label; a click names its tactic by id.
    const tactic = outcome.kind === 'recommendation' && outcome.tacticId !== undefined ? tacticLabelOf(outcome.websiteId, outcome.tacticId) : undefined;
    const target = {
      websiteId: outcome.websiteId, at: outcome.at, kind: outcome.kind, key,
      ...(outcome.queryId !== undefined && { queryId: outcome.queryId }), ...(tactic !== undefined && { tactic }),
      ...(outcome.experiment !== undefined && { experiment: outcome.experiment }),
    };
    if (outcome.type === 'purchase') this.searchLog.recordConversion({ ...target, revenue: outcome.revenue ?? 0 });
    else this.searchLog.recordClickOutcome({ ...target, type: outcome.type, ...(outcome.position !== undefined && { position: outcome.position }) });
    this.onClickOutcome?.(outcome);
  }

  /**
   * Rebuilds the recommendation models from the stored events in the background (events recorded
   * meanwhile are acknowledged at once and fed to the models after the stored ones, see
   * EventService.replay). A failure (the store went away) is reported and the replay goes on from where
   * it stopped after {@link REPLAY_RETRY_MS} (doubling up to {@link REPLAY_RETRY_MAX_MS}); the engine is not
   * ready until it is over. Recommendations wait for the first attempt only: during a long store outage
   * they answer from what the models hold, rather than not at all.
   */
  private replayEvents(): void {
    this.replayProblem = REPLAYING;
    const started = performance.now();
    let retryMs = REPLAY_RETRY_MS;
    const attempt = (): Promise<void> => this.events.replay(this.checkpoints?.held()).then(() => {
      if (this.replayProblem !== REPLAYING) this.reporter.recovered('event-sink');
      this.replayProblem = undefined;
      const ms = Math.round(performance.now() - started);
      this.logger?.info({ ms, fromCheckpoints: Object.fromEntries(this.checkpoints?.held() ?? []) }, `aisle: stored events replayed in ${ms} ms`);
      // The websites whose stored events were replayed: a website added later has not had its earlier
      // events (if any), so a checkpoint of its models would make the next start skip them.
      const replayed = new Set(this.sites.keys());
      this.checkpoints?.start(this.events, () => this.siteModels(replayed));
    }, (err: unknown) => {
      this.replayProblem = `the replay of the stored events failed (retried in ${retryMs / 1000} s): ${err instanceof Error ? err.message : String(err)}`;
      this.reporter.report('event-sink', err, undefined, 'replaying the stored events');
      if (this.closed) return;
      const timer = setTimeout(() => { if (!this.closed) void attempt(); }, retryMs);
      timer.unref();
      retryMs = Math.min(2 * retryMs, REPLAY_RETRY_MAX_MS);
    });
    this.eventsReplayed = attempt();
  }

  private async openWebsite(config: WebsiteConfig): Promise<WebsiteState> {
    // Settings are read per search (they may change at runtime): nothing of them is built into the catalog,
    // so every text field is indexed and a weight of 0 in the settings only stops it matching.
    const catalogOptions = {};
    const timer = new StepTimer();
    // At the start only: the replay skips what a checkpoint holds (a website added later replays nothing).
    const store = this.store;
    const checkpoint = this.events === undefined && store
      ? await this.checkpoints?.read(config.websiteId, () => store.lastSequence())
      : undefined;
    timer.lap('model checkpoint read');
    const siteState = (catalog: Catalog, modelFile?: string): WebsiteState => {
      catalog.fieldTypes = config.settings?.fields;
      const semantics = new WebsiteSemantics(catalog, {
        embedders: this.embedders,
        retrainDelayMs: this.options.semanticRetrainDelayMs,
        onError: (err) => this.reporter.report('semantic-training', err, config.websiteId),
        modelFile,
      });
      return {
        config, seedSettings: config.settings ?? {}, catalog, semantics,
        models: this.createModels(config.websiteId, checkpoint, (state) => new RecommendationModels({
          website: config, catalog, onIndexError: (err) => this.reporter.report('index-build', err, config.websiteId),
          // At the engine's start the index builds wait for open() to finish (see there); a website added later builds at once.
          holdIndexes: this.events === undefined,
          state,
        })),
      };
    };
    if (this.sharedCatalogs) {
      // The store holds the catalog (snapshot + change log); the data directory keeps no catalog files.
      const catalog = this.events === undefined
        ? await this.sharedCatalogs.loadCatalog(config.websiteId, catalogOptions)
        : await this.sharedCatalogs.addWebsite(config.websiteId, catalogOptions);
      // Replicas keep no files: each trains the model (deterministic: the same version on every replica).
      const state = siteState(catalog);
      state.semantics.setBuiltInWanted(usesBuiltInModel(config.settings));
      return state;
    }
    const dataDir = this.options.dataDir;
    const log = dataDir === undefined ? undefined : await FileChangeLog.open(catalogsDir(dataDir), fileNameOf(config.websiteId));
    timer.lap('change log read');
    const loaded = log ? await loadSnapshotOrExplain(log.snapshotFile, config.websiteId, catalogOptions, timer) : undefined;
    const catalog = loaded?.catalog ?? new Catalog(catalogOptions);
    if (loaded?.fallback) {
      // Loudly: the website is served (the previous snapshot and the change log give the same catalog),
      // but a file was unreadable and the operator must learn why (disk, bug) before it happens twice.
      this.reporter.report('snapshot-load', loaded.fallback.error, config.websiteId,
        `the latest catalog snapshot could not be read (moved to ${loaded.fallback.movedTo}); loaded the previous one and replayed the change log over it`);
    }
    timer.skip();
    const state = siteState(catalog, dataDir === undefined ? undefined : textModelPath(dataDir, config.websiteId));
    timer.lap('models');
    let replayed = 0;
    if (log) {
      // Changes acknowledged after the snapshot was written are in the log: replay them over it (a
      // snapshot file records no position, so every change still in the log is replayed; harmless).
      const pending = await log.readAfter(0);
      await catalog.replay(pending.map((p) => p.change), pending.at(-1)?.position);
      replayed = pending.length;
      catalog.setChangeLogger((changes) => log.append(changes));
      log.onError = (err) => this.reporter.report('change-log', err, config.websiteId);
      state.log = log;
      if (pending.length > 0) this.scheduleSnapshot(state);
      timer.lap('change log');
    }
    // After the replay, so the saved model is compared with the catalog as it now is.
    await state.semantics.restore();
    state.semantics.setBuiltInWanted(usesBuiltInModel(config.settings));
    timer.lap('semantic model');
    this.logger?.info({ websiteId: config.websiteId, products: catalog.liveCount, changesReplayed: replayed, ms: timer.totalMs, steps: timer.steps },
      `aisle: catalog of website "${config.websiteId}" loaded in ${Math.round(timer.totalMs)} ms`);
    return state;
  }

  /** A website's models, from `checkpoint` when there is a usable one (see ModelCheckpointer.create). */
  private createModels(websiteId: string, checkpoint: ModelCheckpoint | undefined, create: (state?: ModelState) => RecommendationModels): RecommendationModels {
    if (!this.checkpoints) return create();
    const models = this.checkpoints.create(websiteId, checkpoint, create);
    if (checkpoint !== undefined && this.checkpoints.held().has(websiteId)) {
      try {
        // The learned ranking state saved with the models; without it every stored click is read again.
        this.learner.loadState(websiteId, checkpoint.state);
      } catch (err) {
        this.reporter.report('click-learning', err, websiteId, 'loading the learned ranking state from the checkpoint (the stored clicks are read again)');
      }
    }
    return models;
  }

  /** The models of the websites in `only`, by website id. */
  private *siteModels(only: ReadonlySet<string>): Iterable<readonly [string, RecommendationModels]> {
    for (const [websiteId, s] of this.sites) if (only.has(websiteId)) yield [websiteId, s.models] as const;
  }

  private site(websiteId: string): WebsiteState {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const state = typeof websiteId === 'string' ? this.sites.get(websiteId) : undefined;
    if (!state) throw new AisleError('WEBSITE_NOT_FOUND', `unknown website_id "${String(websiteId)}"`);
    return state;
  }

  private scheduleSnapshot(state: WebsiteState): void {
    if (!state.log) return;
    const now = Date.now();
    state.unsavedSince ??= now;
    clearTimeout(state.snapshotTimer);
    const lastWrite = state.lastWriteMs ?? 0;
    const debounce = Math.max(SNAPSHOT_DEBOUNCE_MS, 5 * lastWrite);
    const maxDelay = Math.max(SNAPSHOT_MAX_DELAY_MS, 10 * lastWrite);
    const delay = Math.max(0, Math.min(debounce, state.unsavedSince + maxDelay - now));
    state.snapshotTimer = setTimeout(() => {
      this.writeSnapshot(state).then(
        () => this.reporter.recovered('snapshot-write'),
        // The change log still holds every change: nothing is lost, the log just grows until a
        // later snapshot succeeds (the next change schedules one; so does shutdown).
        (err: unknown) => this.reporter.report('snapshot-write', err, state.config.websiteId),
      );
    }, delay);
    state.snapshotTimer.unref();
  }

  private async writeSnapshot(state: WebsiteState): Promise<void> {
    const log = state.log;
    if (!log) return;
    clearTimeout(state.snapshotTimer);
    state.snapshotTimer = undefined;
    state.unsavedSince = undefined;
    // Writes of one website are chained so two never interleave on the same temp file.
    const previous = state.snapshotWrite ?? Promise.resolve();
    // The previous write's failure went to its own caller; this one starts after it either way.
    const write = previous.then(() => undefined, () => undefined).then(async () => {
      // In one synchronous step: the version written, the last logged change it holds, and the log
      // told (the file log rotates then: later changes go to a new segment, and the segments the
      // snapshot covers go once it is on disk).
      const position = state.catalog.loggedPosition;
      const version = state.catalog.state;
      const started = performance.now();
      await log.saveSnapshot(position, () => encodeCatalogSnapshotInSlices(version));
      state.lastWriteMs = performance.now() - started;
    });
    state.snapshotWrite = write;
    await write;
  }

  async upsertProducts(websiteId: string, products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const state = this.site(websiteId);
    if (this.sharedCatalogs) return this.sharedCatalogs.upsert(websiteId, products, options);
    const summary = await state.catalog.upsert(products, options);
    this.scheduleSnapshot(state);
    state.semantics.catalogChanged();
    return summary;
  }

  async replaceProducts(websiteId: string, products: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const state = this.site(websiteId);
    if (this.sharedCatalogs) return this.sharedCatalogs.replace(websiteId, products, options);
    const summary = await state.catalog.replace(products, options);
    this.scheduleSnapshot(state);
    state.semantics.catalogChanged();
    return summary;
  }

  async patchProducts(websiteId: string, patches: ProductSource, options?: LoadOptions): Promise<LoadSummary> {
    const state = this.site(websiteId);
    if (this.sharedCatalogs) return this.sharedCatalogs.patch(websiteId, patches, options);
    const summary = await state.catalog.patch(patches, options);
    if (summary.loaded > 0) this.scheduleSnapshot(state);
    return summary;
  }

  async getProduct(websiteId: string, refId: string): Promise<Product | undefined> {
    return this.site(websiteId).catalog.getProduct(refId);
  }

  async deleteProducts(websiteId: string, refIds: readonly string[]): Promise<{ deleted: number; catalogSize: number }> {
    const state = this.site(websiteId);
    if (!Array.isArray(refIds) || refIds.some((id) => typeof id !== 'string')) {
      throw new AisleError('CATALOG_BAD_INPUT', 'refIds must be an array of strings');
    }
    if (this.sharedCatalogs) return this.sharedCatalogs.delete(websiteId, refIds);
    const result = await state.catalog.delete(refIds);
    if (result.deleted > 0) {
      this.scheduleSnapshot(state);
      state.semantics.catalogChanged();
    }
    return result;
  }

  async bulkDeleteProducts(websiteId: string, body: unknown): Promise<BulkDeleteResult> {
    const state = this.site(websiteId);
    const target = parseBulkDeleteRequest(body);
    const catalog = state.catalog;
    let refIds: string[];
    try {
      refIds = 'refIds' in target ? target.refIds : refIdsInScope(catalog.state, target.scope, catalog.fieldTypes, state.config.settings?.hierarchies);
    } catch (err) {
      // A scope that does not fit the catalog is a bad delete body, worded as such.
      if (!isAisleError(err) || err.code !== 'SEARCH_BAD_REQUEST') throw err;
      throw new AisleError('CATALOG_BAD_INPUT', err.message.replace(/^search request: /, 'catalog: '), { details: err.details, cause: err });
    }
    // As this replica holds the catalog now; on PostgreSQL the log decides what is deleted (a product
    // created through another replica a moment ago is deleted though not yet known here).
    const notFound = 'refIds' in target ? refIds.filter((refId) => !catalog.has(refId)) : [];
    if (refIds.length === 0) return { deleted: 0, notFound };
    const { deleted } = await this.deleteProducts(websiteId, refIds);
    return { deleted, notFound };
  }

  async search(body: SearchRequest, options: SearchOptions = {}): Promise<SearchResponse> {
    return searchOperation(this.searchParts, body, options);
  }

  async previewSettings(websiteId: string, body: unknown): Promise<SettingsPreview> {
    const state = this.site(websiteId);
    const { search, settings: patch } = parsePreviewRequest(body, websiteId, state.config.client);
    // Validated and merged exactly as a PATCH of the settings (its errors, its 409), nothing written.
    const { current, next } = await this.settings.preview(websiteId, patch);
    // Ranked only: a preview is not a shopper's search (no result page for clicks, no search log, no completions).
    const [before, after] = await Promise.all([rankSearch(this.searchParts, state, search, current, {}), rankSearch(this.searchParts, state, search, next, {})]);
    return previewOf(search.start, before.payload, after.payload);
  }

  async getSettings(websiteId: string): Promise<WebsiteSettings> {
    return settingsWithDefaults(this.site(websiteId).config.settings);
  }

  async updateSettings(websiteId: string, settings: unknown, options: { merge?: boolean } = {}): Promise<WebsiteSettings> {
    this.site(websiteId);
    return this.settings.update(websiteId, settings, options.merge === true);
  }

  /**
   * Refuses (`FIELD_TYPES_CONFLICT`, 409) settings whose newly pinned or re-typed fields stored products
   * do not fit; the problem details list up to {@link MAX_REPORTED_SKIPS} of them. Pins already in force
   * are not checked again: every product loaded since fits them.
   */
  private async checkFieldTypesFit(websiteId: string, next: WebsiteSettings): Promise<void> {
    const catalog = this.site(websiteId).catalog;
    const before = catalog.fieldTypes ?? {};
    const changed = Object.entries(next.fields ?? {}).filter(([field, { type }]) => !Object.hasOwn(before, field) || before[field]!.type !== type);
    if (changed.length === 0) return;
    const records = await catalog.fieldMismatches(Object.fromEntries(changed), MAX_REPORTED_SKIPS);
    if (records.length === 0) return;
    const errors: Record<string, string[]> = {};
    for (const r of records) (errors[problemPath(`settings.fields.${r.field}`)] ??= []).push(`product "${r.refId}": ${r.message}; its value is ${JSON.stringify(r.value)}`);
    throw new AisleError('FIELD_TYPES_CONFLICT', `settings: ${records.length === MAX_REPORTED_SKIPS ? 'at least ' : ''}${records.length} stored product(s) do not fit the pinned field types (first: product "${records[0]!.refId}", field "${records[0]!.field}"); nothing was changed`, {
      problem: { ...problemDetails(409, errors), records },
    });
  }

  /** Puts settings in force: the next search, recommendation and event reads them. */
  private applySettings(state: WebsiteState, settings: WebsiteSettings): void {
    state.config = { ...state.config, settings };
    state.catalog.fieldTypes = settings.fields;
    state.models.setWebsite(state.config);
    state.semantics.setBuiltInWanted(usesBuiltInModel(settings));
    this.events.addWebsite(state.config);
  }

  /** The semantic models a website's settings may name: the built-in one and the host's embedders. */
  private modelIds(): string[] {
    return [TEXT_MODEL_ID, ...this.embedders.keys()];
  }

  async recommend(websiteId: string, method: string, params: RecommendParams): Promise<RecommendResponse> {
    const models = this.site(websiteId).models;
    // Answered from every stored event, never from part of them (the replay ends seconds after the start).
    await this.eventsReplayed;
    // Canonical spelling of the method, however the path spelled it (segments are case-insensitive).
    const methodName = resolveMethod(method).name;
    const customerId = params.customerId || null;
    // A customer in a running recommendations experiment gets their variant's cascade for the methods it names.
    const assignment = this.experiments.assign(websiteId, 'recommendations', customerId ?? undefined);
    const variant = assignment === undefined || assignment.variant === INTERLEAVED ? undefined : assignment.variant;
    const cascade = assignment === undefined || variant === undefined ? undefined : this.experiments.variantTactics(assignment.experiment, variant, methodName);
    const list = models.recommend(method, params, cascade);
    const experiment: ListExperiment | undefined = assignment === undefined || variant === undefined
      ? undefined : { id: assignment.experiment.id, variant: assignment.experiment.variants[variant]!.name, customerId: customerId! };
    // One id for the response: the list clicks name, and the analytics log.
    const queryId = this.resultPages.record({
      websiteId, kind: 'recommendation', source: methodName, variant: experiment?.variant ?? null, customerId, sessionId: customerId,
      firstPosition: 1, refIds: list.payload, ...(experiment !== undefined && { experiment }),
    });
    this.searchLog.recordServed(websiteId, {
      queryId, method: methodName, tactics: list.slots.map((slot) => slot.tacticLabel), ...(experiment !== undefined && { experiment }),
    });
    return { ...list, queryId, ...(experiment !== undefined && { experiment: { id: experiment.id, variant: experiment.variant } }) };
  }

  async bundles(websiteId: string, body: BundleRequest): Promise<BundleResponse> {
    const models = this.site(websiteId).models;
    await this.eventsReplayed;
    const bundles = models.bundles(body);
    // Positions run over every bundle's RefIds in order (documented in docs/http-api.md).
    const queryId = this.resultPages.record({
      websiteId, kind: 'recommendation', source: 'bundle', variant: null, customerId: null, sessionId: null,
      firstPosition: 1, refIds: bundles.payload.flat(),
    });
    return { ...bundles, queryId };
  }

  async recordPurchases(websiteId: string, body: PurchaseRequest): Promise<EventAck> {
    this.site(websiteId);
    return this.events.recordPurchases(websiteId, body);
  }

  async recordViews(websiteId: string, body: ViewRequest): Promise<EventAck> {
    this.site(websiteId);
    return this.events.recordViews(websiteId, body, this.findResultLists);
  }

  async recordClicks(websiteId: string, body: ClickRequest): Promise<EventAck> {
    this.site(websiteId);
    const ack = await this.events.recordClicks(websiteId, body, this.findResultLists);
    // Read back from the store (as other replicas' are): the learned state follows the store's order.
    this.learner.poke(websiteId);
    return ack;
  }

  /** The result lists that click and view events name, as the event service looks them up. */
  private readonly findResultLists = (websiteId: string, queryIds: readonly string[]) => (queryIds.length === 0
    ? Promise.resolve(new Map())
    : this.storeCall(() => this.resultPages.find(websiteId, queryIds)));

  async markCouponUsed(client: string, code: string): Promise<CouponUseResult> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    return this.events.markCouponUsed(client, code);
  }

  async issueCoupons(websiteId: string, coupons: readonly CouponIssue[]): Promise<{ issued: number }> {
    this.site(websiteId);
    return this.events.issueCoupons(websiteId, coupons);
  }

  async stats(websiteId: string): Promise<WebsiteStats> {
    const state = this.site(websiteId);
    const counts = await this.events.counts(websiteId);
    return { websiteId, products: state.catalog.liveCount, ...counts };
  }

  async attributionReport(websiteId: string, range?: AttributionReportParams): Promise<AttributionReport> {
    this.site(websiteId);
    return this.events.attributionReport(websiteId, range);
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
    return this.storeCall(() => this.experiments.create(websiteId, body));
  }

  async listExperiments(websiteId: string): Promise<Experiment[]> {
    this.site(websiteId);
    return this.storeCall(() => this.experiments.list(websiteId));
  }

  async experimentReport(websiteId: string, id: string): Promise<ExperimentReport> {
    this.site(websiteId);
    const record = await this.storeCall(() => this.experiments.get(websiteId, id));
    // What this process logged so far counts (every search chain ended), as in the search report.
    await this.searchLog.flush(true);
    const now = Date.now();
    const rows = await this.storeCall(() => this.events.store.rollupTotals(websiteId, experimentKind(id), {
      fromHour: hourOf(Math.min(record.from ?? record.createdAt, record.createdAt)), toHour: hourOf(now),
    }));
    return experimentReport(record, rows, now);
  }

  async stopExperiment(websiteId: string, id: string): Promise<Experiment> {
    this.site(websiteId);
    return this.storeCall(() => this.experiments.stop(websiteId, id));
  }

  async deleteExperiment(websiteId: string, id: string): Promise<void> {
    this.site(websiteId);
    return this.storeCall(() => this.experiments.delete(websiteId, id));
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
    this.searchKeys ??= new SearchKeyService(this.events.store);
    return this.searchKeys;
  }

  async createSearchKey(websiteId: string, body: unknown): Promise<CreatedSearchKey> {
    this.site(websiteId);
    return this.storeCall(() => this.keys.create(websiteId, body));
  }

  async listSearchKeys(websiteId: string): Promise<SearchKeyInfo[]> {
    this.site(websiteId);
    return this.storeCall(() => this.keys.list(websiteId));
  }

  async revokeSearchKey(websiteId: string, keyOrId: string): Promise<void> {
    this.site(websiteId);
    return this.storeCall(() => this.keys.revoke(websiteId, keyOrId));
  }

  async resolveSearchKey(key: string): Promise<SearchKeyInfo | undefined> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const record = await this.storeCall(() => this.keys.resolve(key));
    return record === undefined ? undefined : searchKeyInfo(record, Date.now());
  }

  /** Runs a store call; a failure of the store (not an engine error) becomes `STORE_FAILURE`. */
  private async storeCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (isAisleError(err)) throw err;
      throw new AisleError('STORE_FAILURE', `the store failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }

  website(websiteId: string): WebsiteConfig | undefined {
    return this.sites.get(websiteId)?.config;
  }

  websites(): readonly WebsiteConfig[] {
    return [...this.sites.values()].map((s) => s.config);
  }

  async addWebsite(config: WebsiteConfig): Promise<void> {
    if (this.closed) throw new AisleError('ENGINE_CLOSED', 'the engine is closed');
    const all = [...this.websites().filter((w) => w.websiteId !== config.websiteId), config];
    validateEngineOptions({ websites: all, embedders: this.options.embedders });
    const existing = this.sites.get(config.websiteId);
    if (existing) {
      existing.seedSettings = config.settings ?? {};
      // Settings stored through the settings API stay in force over the new seed.
      existing.config = this.settings.hasStored(config.websiteId) ? { ...config, settings: existing.config.settings } : config;
      existing.catalog.fieldTypes = existing.config.settings?.fields;
      existing.models.setWebsite(existing.config);
      this.events.addWebsite(existing.config);
      existing.semantics.setBuiltInWanted(usesBuiltInModel(existing.config.settings));
      return;
    }
    const state = await this.openWebsite(config);
    this.sites.set(config.websiteId, state);
    this.events.addWebsite(config);
    await this.settings.load(config.websiteId);
    await this.searchLog.load(config.websiteId);
  }

  async readiness(): Promise<Readiness> {
    if (this.closed) return combineChecks([{ name: 'engine', ok: false, reason: 'the engine is closed' }]);
    const dataDir = this.options.dataDir;
    const checks = [
      runCheck('store', () => this.events.storeProblem()),
      ...(dataDir ? [runCheck('disk', () => checkDiskWritable(path.join(dataDir, 'catalogs')))] : []),
      // No "catalogs" check: every catalog is loaded (snapshot + change log replayed) before
      // createEngine resolves, and a website added at run time before addWebsite resolves.
      runCheck('recommendations', async () => this.recommendationIndexesProblem()),
      runCheck('events', async () => this.replayProblem),
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
    await Promise.all([...this.sites.values()].map((s) => this.writeSnapshot(s)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.sites.values()) s.semantics.close();
    await this.settings.close();
    await this.experiments.close();
    await this.retention.stop();
    await this.searchLog.close();
    await this.settleReported(this.resultPages.close(), 'result-pages');
    await this.settleReported(this.learner.close(), 'click-learning');
    const pending = [...this.sites.values()].filter((s) => s.snapshotTimer !== undefined);
    // A snapshot that cannot be written at shutdown loses nothing (the change log holds the changes,
    // replayed at the next start): it is reported, and shutdown goes on.
    await Promise.all(pending.map((s) => this.settleReported(this.writeSnapshot(s), 'snapshot-write', s.config.websiteId)));
    // Writes a timer started: each reports its own failure (above, or in scheduleSnapshot).
    await Promise.all([...this.sites.values()].map((s) => s.snapshotWrite?.then(() => undefined, () => undefined)));
    await Promise.all([...this.sites.values()].map((s) => this.settleReported(s.log?.close(), 'shutdown', s.config.websiteId)));
    await this.settleReported(this.sharedCatalogs?.close(), 'shutdown');
    // Before the store closes (the checkpoint is taken at a quiet point of the event service); a failed
    // one is reported by the checkpointer and loses nothing (the next start replays more events).
    await this.checkpoints?.stop(this.events);
    await this.settleReported(this.lock?.release(), 'shutdown');
    await this.events.close();
    await this.pool?.close();
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
