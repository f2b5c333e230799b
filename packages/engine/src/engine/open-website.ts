/**
 * Opens one website: its catalog (from the store's shared catalogs, or from its snapshot and change log
 * in the data directory), its recommendation models (from a checkpoint when there is a usable one) and
 * its semantic models.
 * @module
 */
import type { EngineLogger, FailureReporter } from '../background-failures.js';
import type { CatalogOptions } from '../catalog/catalog.js';
import { FileChangeLog } from '../catalog/durability/change-log.js';
import { loadLatestGeneration, type LoadedGeneration } from '../catalog/durability/snapshot-generations.js';
import { Catalog } from '../catalog/index.js';
import type { EngineOptions, WebsiteConfig } from '../config.js';
import { AisleError, isAisleError } from '../errors.js';
import type { ClickLearner } from '../learning/click-learner.js';
import type { ModelCheckpoint } from '../recommend/model-checkpoint.js';
import type { ModelCheckpointer } from '../recommend/model-checkpointer.js';
import type { ModelState } from '../recommend/model-state.js';
import { RecommendationModels } from '../recommend/recommendation-models.js';
import type { Embedder } from '../semantic/embedder.js';
import { searchTables } from '../search/execute-search.js';
import { TermAidsAhead } from '../search/term-aids-ahead.js';
import { WebsiteSemantics } from '../semantic/website-semantics.js';
import type { SharedCatalogs } from '../store/shared-catalogs.js';
import type { Store } from '../store/store.js';
import { StepTimer } from '../util/step-timer.js';
import { scheduleSnapshot } from './catalog-files.js';
import { catalogsDir, fileNameOf, NO_SETTINGS, textModelPath, usesBuiltInModel, type WebsiteState } from './website-state.js';

/** What opening a website takes: the engine's options and the parts opened before the websites. */
export interface WebsiteOpener {
  options: Omit<EngineOptions, 'store'>;
  embedders: ReadonlyMap<string, Embedder>;
  reporter: FailureReporter;
  logger: EngineLogger | undefined;
  store: Store;
  learner: ClickLearner;
  sharedCatalogs: SharedCatalogs | undefined;
  checkpoints: ModelCheckpointer | undefined;
  /** Catalog size from which searches run on the pool (Infinity without one). */
  searchPoolFrom: number;
}

/**
 * When the website is opened: at the engine's `start` (its models may come from a checkpoint, their
 * indexes wait for the start to finish, a shared catalog is loaded) or `added` at run time by addWebsite
 * (no checkpoint: the replay is over; indexes build at once; a shared catalog is created).
 */
export type OpenedAt = 'start' | 'added';

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

/** A website's models, from `checkpoint` when there is a usable one (see ModelCheckpointer.create). */
function createModels(
  opener: WebsiteOpener, websiteId: string, checkpoint: ModelCheckpoint | undefined, create: (state?: ModelState) => RecommendationModels,
): RecommendationModels {
  const { checkpoints } = opener;
  if (!checkpoints) return create();
  const models = checkpoints.create(websiteId, checkpoint, create);
  if (checkpoint !== undefined && checkpoints.held().has(websiteId)) {
    try {
      // The learned ranking state saved with the models; without it every stored click is read again.
      opener.learner.loadState(websiteId, checkpoint.state);
    } catch (err) {
      opener.reporter.report('click-learning', err, websiteId, 'loading the learned ranking state from the checkpoint (the stored clicks are read again)');
    }
  }
  return models;
}

/** Opens the website `config` names (see {@link OpenedAt}). */
export async function openWebsite(opener: WebsiteOpener, config: WebsiteConfig, at: OpenedAt): Promise<WebsiteState> {
  const { options, reporter, store, sharedCatalogs } = opener;
  // Settings are read per search (they may change at runtime): nothing of them is built into the catalog,
  // so every text field is indexed and a weight of 0 in the settings only stops it matching.
  const catalogOptions = {};
  const timer = new StepTimer();
  // At the start only: the replay skips what a checkpoint holds (a website added later replays nothing).
  const checkpoint = at === 'start' ? await opener.checkpoints?.read(config.websiteId, () => store.lastSequence()) : undefined;
  timer.lap('model checkpoint read');
  const siteState = (catalog: Catalog, modelFile?: string): WebsiteState => {
    catalog.fieldTypes = config.settings?.fields;
    // A failed merge or version listener is an index build that failed: logged, counted, handed on.
    catalog.reportFailuresTo((err, doing) => reporter.report('index-build', err, config.websiteId, doing));
    const semantics = new WebsiteSemantics(catalog, {
      embedders: opener.embedders,
      retrainDelayMs: options.semanticRetrainDelayMs,
      onError: (err) => reporter.report('semantic-training', err, config.websiteId),
      modelFile,
    });
    const site: WebsiteState = {
      config, seedSettings: config.settings ?? {}, catalog, semantics,
      models: createModels(opener, config.websiteId, checkpoint, (state) => new RecommendationModels({
        website: config, catalog, onIndexError: (err) => reporter.report('index-build', err, config.websiteId),
        // At the engine's start the index builds wait for the start to finish (see engine/start.ts); a website added later builds at once.
        holdIndexes: at === 'start',
        state,
      })),
      termAids: new TermAidsAhead(catalog, {
        // The settings a search of the website is given (engine/search-operation.ts), read when a version comes.
        tables: (version) => searchTables(catalog, version, site.config.settings ?? NO_SETTINGS),
        poolFrom: opener.searchPoolFrom,
        onError: (err) => reporter.report('index-build', err, config.websiteId, "deriving the terms' search aids"),
      }),
    };
    catalog.onNewVersion(() => site.termAids.refresh());
    // At the engine's start, with the other background work (engine/start.ts); a website added later at once.
    if (at !== 'start') site.termAids.refresh();
    return site;
  };
  if (sharedCatalogs) {
    // The store holds the catalog (snapshot + change log); the data directory keeps no catalog files.
    const catalog = at === 'start'
      ? await sharedCatalogs.loadCatalog(config.websiteId, catalogOptions)
      : await sharedCatalogs.addWebsite(config.websiteId, catalogOptions);
    // Replicas keep no files: each trains the model (deterministic: the same version on every replica).
    const state = siteState(catalog);
    state.semantics.setBuiltInWanted(usesBuiltInModel(config.settings));
    return state;
  }
  const dataDir = options.dataDir;
  const log = dataDir === undefined ? undefined : await FileChangeLog.open(catalogsDir(dataDir), fileNameOf(config.websiteId));
  timer.lap('change log read');
  const loaded = log ? await loadSnapshotOrExplain(log.snapshotFile, config.websiteId, catalogOptions, timer) : undefined;
  const catalog = loaded?.catalog ?? new Catalog(catalogOptions);
  if (loaded?.fallback) {
    // Loudly: the website is served (the previous snapshot and the change log give the same catalog),
    // but a file was unreadable and the operator must learn why (disk, bug) before it happens twice.
    reporter.report('snapshot-load', loaded.fallback.error, config.websiteId,
      `the latest catalog snapshot could not be read (moved to ${loaded.fallback.movedTo}); loaded the previous one and replayed the change log over it`);
  }
  timer.skip();
  const state = siteState(catalog, dataDir === undefined ? undefined : textModelPath(dataDir, config.websiteId));
  timer.lap('models');
  let replayed = 0;
  if (log) {
    // Changes acknowledged after the snapshot was written are in the log: replay them over it (the
    // snapshot's mark tells which segments it holds; without one every change still in the log is
    // replayed, which is harmless).
    const pending = await log.readAfter(log.snapshotLoaded(loaded?.logMark));
    await catalog.replay(pending.map((p) => p.change), pending.at(-1)?.position);
    replayed = pending.length;
    catalog.setChangeLogger((changes) => log.append(changes));
    log.onError = (err) => reporter.report('change-log', err, config.websiteId);
    state.log = log;
    if (pending.length > 0) scheduleSnapshot(state, reporter);
    timer.lap('change log');
  }
  // After the replay, so the saved model is compared with the catalog as it now is.
  await state.semantics.restore();
  state.semantics.setBuiltInWanted(usesBuiltInModel(config.settings));
  timer.lap('semantic model');
  opener.logger?.info({ websiteId: config.websiteId, products: catalog.liveCount, changesReplayed: replayed, ms: timer.totalMs, steps: timer.steps },
    `aisle: catalog of website "${config.websiteId}" loaded in ${Math.round(timer.totalMs)} ms`);
  return state;
}
