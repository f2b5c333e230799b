/**
 * The engine's start, step by step: the data directory, the store, the learned ranking and the models'
 * checkpoints, the catalogs, replication, the event service, the services over the store (settings,
 * search log, experiments, result pages, retention), their stored state, then the background work.
 * Each step is a function given what it needs; the start log's step timer times them. A failed start
 * leaves nothing open.
 * @module
 */
import path from 'node:path';
import { RetentionJob } from '../analytics/retention.js';
import { SearchLog } from '../analytics/search-log.js';
import type { EngineLogger, FailureReporter } from '../background-failures.js';
import { lockDataDir, lockStoreFile, type DataDirLock } from '../catalog/durability/data-dir-lock.js';
import { ResultPages } from '../clicks/result-pages.js';
import { makeDataDirectory, type EngineOptions, type StoreConfig } from '../config.js';
import type { ClickOutcome } from '../events/click-attribution.js';
import { EventService } from '../events/event-service.js';
import { ExperimentService } from '../experiments/experiment-service.js';
import { ClickLearner } from '../learning/click-learner.js';
import { checkpointFiles, ModelCheckpointer, storeCheckpoints } from '../recommend/model-checkpointer.js';
import { attributionWindowDays } from '../retail-media/index.js';
import { checkRulesApply } from '../search/index.js';
import type { Embedder } from '../semantic/embedder.js';
import { TEXT_MODEL_ID } from '../semantic/text-model.js';
import { checkFieldTypesFit } from '../settings/field-types-fit.js';
import { checkKeysKeepHierarchies } from '../keys/key-scope.js';
import { SETTINGS_POLL_MS, SettingsService, storeFailure } from '../settings/settings-service.js';
import { checkWebsiteSettings } from '../settings/website-settings.js';
import { embeddedStoreFile, openStore } from '../store/open-store.js';
import type { SharedCatalogs } from '../store/shared-catalogs.js';
import type { Store } from '../store/store.js';
import { makeDirectorySync } from '../util/make-directory.js';
import { StepTimer } from '../util/step-timer.js';
import { closeCatalogFiles } from './catalog-files.js';
import { EventReplay } from './event-replay.js';
import { eventSinkOf } from './event-sink.js';
import { openWebsite, type WebsiteOpener } from './open-website.js';
import { applySettings } from './websites.js';
import { catalogsDir, NO_SETTINGS, type WebsiteState } from './website-state.js';

/** What the start is given by the engine. */
export interface StartContext {
  options: Omit<EngineOptions, 'store'>;
  /** The store's configuration or instance. */
  storeSource: StoreConfig | Store | undefined;
  embedders: ReadonlyMap<string, Embedder>;
  reporter: FailureReporter;
  /** Where the start's timings go (info lines); none without a logger. */
  logger: EngineLogger | undefined;
  onClickOutcome: ((outcome: ClickOutcome) => void) | undefined;
  /** The engine's websites: the start opens each configured one into it; the services read it at run time. */
  sites: Map<string, WebsiteState>;
  /** The engine's open website (throws `ENGINE_CLOSED` or `WEBSITE_NOT_FOUND`). */
  site: (websiteId: string) => WebsiteState;
  /** True once the engine is closed. */
  closed: () => boolean;
  /** Catalog size from which searches run on the pool (Infinity without one). */
  searchPoolFrom: number;
}

/** The services over the store, made once the event service is. */
export interface StoreServices {
  settings: SettingsService;
  searchLog: SearchLog;
  experiments: ExperimentService;
  /** The answered result lists that clicks name (clicks/result-pages.ts). */
  resultPages: ResultPages;
  /** Deletes raw rows past each website's `eventRetentionDays`, in the background. */
  retention: RetentionJob;
}

/** What the start opened: the engine's parts. */
export interface StartedEngine extends StoreServices {
  lock: DataDirLock | undefined;
  /** The embedded store's file lock (released once the store is closed). */
  storeLock: DataDirLock | undefined;
  events: EventService;
  /** What shoppers' clicks and purchases taught: click ranking and `_popularity` (learning/click-learner.ts). */
  learner: ClickLearner;
  /** With a store other processes share: the catalogs live in its change log (see Store.sharing). */
  sharedCatalogs: SharedCatalogs | undefined;
  /**
   * The recommendation models' checkpoints (a data directory with a durable store of this process's
   * alone: the events and the checkpoints are then this process's).
   */
  checkpoints: ModelCheckpointer | undefined;
  /** Opens a website added at run time. */
  opener: WebsiteOpener;
  /** The replay of the stored events into the models, running in the background. */
  replay: EventReplay;
}

/** The semantic models a website's settings may name: the built-in one and the host's embedders. */
function modelIdsOf(embedders: ReadonlyMap<string, Embedder>): string[] {
  return [TEXT_MODEL_ID, ...embedders.keys()];
}

/** Creates the catalogs' directory of the data directory and locks it for this process. */
async function lockDataDirectory(dataDir: string | undefined): Promise<DataDirLock | undefined> {
  if (!dataDir) return undefined;
  makeDataDirectory(dataDir, catalogsDir(dataDir));
  return lockDataDir(catalogsDir(dataDir));
}

/**
 * Locks the embedded store's file for this process. Its `store.path` may lie outside the data
 * directory, whose lock then did not cover it: two processes shared one SQLite file, each feeding only
 * its own events to its models.
 */
async function lockStore(ctx: StartContext): Promise<DataDirLock | undefined> {
  const file = embeddedStoreFile(ctx.storeSource, ctx.options.dataDir);
  if (file === undefined) return undefined;
  makeDirectorySync(path.dirname(file));
  return lockStoreFile(file);
}

/** The learned ranking over the store; `checkpoints` is made after it (it saves the learner's state). */
function openLearner(ctx: StartContext, store: Store, checkpoints: () => ModelCheckpointer | undefined): ClickLearner {
  return new ClickLearner({
    store,
    attributionWindowMs: (websiteId) => {
      const site = ctx.sites.get(websiteId);
      return site === undefined ? 0 : attributionWindowDays(site.config) * 86_400_000;
    },
    onError: (err, websiteId) => ctx.reporter.report('click-learning', err, websiteId),
    onPollError: (err) => ctx.reporter.reportRetried('click-learning', err),
    onPollRecovered: () => ctx.reporter.recovered('click-learning'),
    onApplied: () => checkpoints()?.eventFed(),
  });
}

/**
 * The models' checkpoints need a store whose events outlive this process, and a place beside it:
 * the store itself when replicas share it and it keeps checkpoints (a replica has no files of its
 * own, and a new replica starts from what another wrote), else the data directory (the embedded
 * store's events are this process's alone). Either way a checkpoint's sequence number says which
 * stored events it holds. None otherwise.
 */
function openCheckpoints(ctx: StartContext, store: Store, learner: ClickLearner): ModelCheckpointer | undefined {
  const { options, reporter } = ctx;
  const place = store.sharing?.checkpoints !== undefined ? storeCheckpoints(store.sharing.checkpoints)
    : options.dataDir && store.durable && store.sharing === undefined ? checkpointFiles(options.dataDir) : undefined;
  if (place === undefined) return undefined;
  return new ModelCheckpointer({
    place,
    report: (err, websiteId) => reporter.report('model-checkpoint', err, websiteId),
    saveExtra: (websiteId, state) => learner.saveState(websiteId, state),
    ...(options.modelCheckpointIntervalMs !== undefined && { intervalMs: options.modelCheckpointIntervalMs }),
  });
}

/** Opens every configured website into the engine's map, in the configuration's order. */
async function openCatalogs(ctx: StartContext, opener: WebsiteOpener): Promise<void> {
  for (const config of ctx.options.websites ?? []) ctx.sites.set(config.websiteId, await openWebsite(opener, config, 'start'));
}

/** The services over the event service's store. */
function openStoreServices(ctx: StartContext, events: EventService, sharedStore: boolean): StoreServices {
  const { sites, site, reporter } = ctx;
  const modelIds = () => modelIdsOf(ctx.embedders);
  const settings = new SettingsService({
    store: events.store,
    seed: (websiteId) => sites.get(websiteId)?.seedSettings ?? {},
    knows: (websiteId) => sites.has(websiteId),
    apply: (websiteId, next) => applySettings(sites.get(websiteId)!, next, events, reporter),
    modelIds,
    checkFit: async (websiteId, next) => {
      await checkFieldTypesFit(site(websiteId).catalog, next);
      // Keys are read only when a hierarchy in force is dropped (a settings write, not a request path).
      const before = site(websiteId).config.settings?.hierarchies ?? {};
      const after = next.hierarchies ?? {};
      if (Object.keys(before).some((name) => !Object.hasOwn(after, name))) {
        let keys: Awaited<ReturnType<typeof events.store.listSearchKeys>>;
        try {
          keys = await events.store.listSearchKeys(websiteId);
        } catch (err) {
          throw storeFailure(err);
        }
        checkKeysKeepHierarchies(keys, before, after);
      }
    },
    checkApplicable: (websiteId, next) => checkRulesApply(site(websiteId).catalog.state, next.rules, undefined, next.hierarchies),
    report: (err, websiteId) => reporter.report('settings-poll', err, websiteId),
    pollFailed: (err) => reporter.reportRetried('settings-poll', err),
    recovered: () => reporter.recovered('settings-poll'),
  });
  const searchLog = new SearchLog(events.store, {
    onError: (err) => reporter.report('search-log', err),
    sharedStore,
  });
  const experiments = new ExperimentService({
    store: events.store,
    settingsOf: (websiteId) => site(websiteId).config.settings ?? NO_SETTINGS,
    // As a settings PATCH is checked before it is stored: the settings schema, then the rules against the catalog.
    checkSettings: (websiteId, merged) => {
      const checked = checkWebsiteSettings(merged, modelIds());
      checkRulesApply(site(websiteId).catalog.state, checked.rules);
      return checked;
    },
    report: (err, websiteId) => reporter.report('experiments', err, websiteId),
    pollFailed: (err) => reporter.reportRetried('experiments', err),
    recovered: () => reporter.recovered('experiments'),
  });
  const resultPages = new ResultPages(events.store, {
    attributionWindowDays: (websiteId) => {
      const state = sites.get(websiteId);
      return state === undefined ? 0 : attributionWindowDays(state.config);
    },
    websites: () => [...sites.keys()],
    // Lists are recorded and looked up only for websites of this engine (a changed hmacSecret makes earlier ids unknown).
    secretOf: (websiteId) => site(websiteId).config.hmacSecret,
    onError: (err) => reporter.report('result-pages', err),
  });
  const retention = new RetentionJob(events.store, {
    websites: () => [...sites.values()].map((s) => ({ websiteId: s.config.websiteId, settings: s.config.settings })),
    onError: (err, websiteId) => reporter.report('retention', err, websiteId),
  });
  return { settings, searchLog, experiments, resultPages, retention };
}

/**
 * Reads the stored settings, experiments and search counts, then derives the hierarchies the settings in
 * force name that the catalogs lack ({@link deriveHierarchies}); a failure closes the event service (and
 * its store).
 */
async function loadStoredState(ctx: StartContext, events: EventService, services: StoreServices, timer: StepTimer): Promise<void> {
  try {
    await services.settings.poll();
    await services.experiments.poll();
    timer.lap('settings');
    for (const id of ctx.sites.keys()) await services.searchLog.load(id);
    timer.lap('search log');
    await deriveHierarchies(ctx);
    timer.lap('hierarchies');
  } catch (err) {
    await ctx.reporter.settle(events.close(), 'shutdown');
    throw err;
  }
}

/**
 * Derives, before the engine is handed out, each website's hierarchies in force (its stored settings
 * read) that its catalog does not hold yet: loaded from a snapshot, they are there (format 6); from an
 * older snapshot, or for a setting the snapshot's version did not have, they are derived here, so that
 * the first category page or `under` scope after a restart neither derives one on the event loop nor
 * waits for it (decision 0055).
 */
async function deriveHierarchies(ctx: StartContext): Promise<void> {
  for (const s of ctx.sites.values()) await s.catalog.deriveHierarchies(s.config.settings?.hierarchies);
}

/**
 * The background work, started once everything is open: the recommendation indexes, the catalogs'
 * completion, the terms' search aids, the replay of the stored events, the stored clicks read into the
 * learned ranking, the result pages' pruning and retention.
 */
function startBackgroundWork(ctx: StartContext, parts: Omit<StartedEngine, 'replay' | 'lock' | 'storeLock' | 'opener'>): EventReplay {
  const { sites, reporter, logger } = ctx;
  // The recommendation indexes of big catalogs build in time slices in the background: started only
  // now, their slices no longer run in every await of the start above (a million products' visual
  // index takes seconds of CPU), so searches are served sooner; readiness waits for them.
  for (const s of sites.values()) {
    s.models.startIndexes();
    s.catalog.completeInBackground().catch((err: unknown) => reporter.report('index-build', err, s.config.websiteId));
    s.termAids.refresh();
  }
  const replay = new EventReplay({
    events: parts.events, checkpoints: parts.checkpoints, reporter, logger, closed: ctx.closed,
    models: () => [...sites].map(([websiteId, s]) => [websiteId, s.models] as const),
  });
  // The clicks stored since the checkpoint (all of them without one), then other replicas' as they come.
  const learning = performance.now();
  parts.learner.catchUp(sites.keys()).then((clicksRead) => {
    const ms = Math.round(performance.now() - learning);
    logger?.info({ ms, clicksRead }, `aisle: ${clicksRead} stored clicks read into the learned ranking state in ${ms} ms`);
  }, (err: unknown) => reporter.report('click-learning', err));
  parts.resultPages.startPruning();
  parts.retention.start();
  return replay;
}

/** Other processes change settings and search counts too: read theirs back (a store shared by replicas). */
function startReadingReplicas(ctx: StartContext, store: Store, parts: Omit<StartedEngine, 'replay' | 'lock' | 'storeLock' | 'opener'>): void {
  const sharing = store.sharing;
  if (sharing === undefined) return;
  parts.settings.startPolling(Math.min(SETTINGS_POLL_MS, sharing.pollIntervalMs));
  parts.experiments.startPolling(Math.min(SETTINGS_POLL_MS, sharing.pollIntervalMs));
  parts.searchLog.startRefreshing(() => [...ctx.sites.keys()]);
  parts.learner.startPolling(() => ctx.sites.keys(), sharing.pollIntervalMs);
}

/**
 * Opens the engine's parts in order, filling `ctx.sites`. Resolves once every catalog is loaded (so
 * searches are served); the models are rebuilt in the background. On failure whatever was opened is
 * closed (another attempt, or process, can take the data directory) and the error is thrown.
 */
export async function startEngine(ctx: StartContext): Promise<StartedEngine> {
  const { options, reporter } = ctx;
  const timer = new StepTimer();
  const lock = await lockDataDirectory(options.dataDir);
  let storeLock: DataDirLock | undefined;
  try {
    storeLock = await lockStore(ctx);
  } catch (err) {
    await reporter.settle(lock?.release(), 'shutdown');
    await reporter.settle(storeLock?.release(), 'shutdown');
    throw err;
  }
  timer.lap('data directory');
  let store: Store | undefined;
  let sharedCatalogs: SharedCatalogs | undefined;
  let events: EventService | undefined;
  try {
    // Opened first: its capabilities say where the catalogs live. The embedded store's worker thread
    // boots in the background meanwhile (its first answer takes a few hundred ms); the event service
    // is made after the catalogs, since a shared store's polling may feed no model before the replay.
    store = await openStore(ctx.storeSource, options.dataDir);
    timer.lap('store');
    let checkpoints: ModelCheckpointer | undefined;
    const learner = openLearner(ctx, store, () => checkpoints);
    sharedCatalogs = await store.sharing?.openSharedCatalogs((task, err, websiteId) => reporter.report(task, err, websiteId));
    checkpoints = openCheckpoints(ctx, store, learner);
    const opener: WebsiteOpener = {
      options, embedders: ctx.embedders, reporter, logger: ctx.logger, store, learner, sharedCatalogs, checkpoints, searchPoolFrom: ctx.searchPoolFrom,
    };
    await openCatalogs(ctx, opener);
    timer.lap('catalogs');
    // Every catalog holds the shared log's changes before the engine is handed out (and so is ready).
    await sharedCatalogs?.start();
    timer.lap('replication');
    // The search log is made after the event service (it reads the event service's store); a click
    // outcome reaches it through the sink only once events are recorded, after the start.
    let searchLog: SearchLog | undefined;
    events = await EventService.open({
      store,
      dataDir: options.dataDir,
      websites: options.websites ?? [],
      reporter,
      sink: eventSinkOf({ sites: ctx.sites, checkpoints, learner, searchLog: () => searchLog!, onClickOutcome: ctx.onClickOutcome }),
    });
    const services = openStoreServices(ctx, events, store.sharing !== undefined);
    searchLog = services.searchLog;
    await loadStoredState(ctx, events, services, timer);
    const parts = { ...services, events, learner, sharedCatalogs, checkpoints };
    const replay = startBackgroundWork(ctx, parts);
    ctx.logger?.info({ ms: timer.totalMs, steps: timer.steps }, `aisle: engine opened in ${Math.round(timer.totalMs)} ms`);
    startReadingReplicas(ctx, store, parts);
    return { ...parts, lock, storeLock, opener, replay };
  } catch (err) {
    // A failed start leaves nothing open: another attempt (or process) can take the directory.
    // A store opened while a catalog failed is closed (the event service closes it once made).
    if (events === undefined) await reporter.settle(store?.close(), 'shutdown');
    for (const s of ctx.sites.values()) clearTimeout(s.snapshotTimer);
    await closeCatalogFiles(ctx.sites, sharedCatalogs, reporter);
    await reporter.settle(lock?.release(), 'shutdown');
    throw err;
  }
}
