/**
 * What the engine holds per website (its configuration, catalog, models, semantic models and the
 * catalog's files), and where those files live in a data directory.
 * @module
 */
import path from 'node:path';
import type { CatalogChangeLog } from '../catalog/durability/catalog-change-log.js';
import type { Catalog } from '../catalog/index.js';
import { semanticSearchOf, type WebsiteConfig, type WebsiteSettings } from '../config.js';
import type { RecommendationModels } from '../recommend/recommendation-models.js';
import { TEXT_MODEL_ID } from '../semantic/text-model.js';
import type { WebsiteSemantics } from '../semantic/website-semantics.js';
import type { TermAidsAhead } from '../search/term-aids-ahead.js';

/** The settings of a website that has none (one object: see ExperimentService.variantSettings' cache). */
export const NO_SETTINGS: WebsiteSettings = Object.freeze({});

/** One website of the engine. */
export interface WebsiteState {
  config: WebsiteConfig;
  /** The config file's (or addWebsite's) settings: the initial value while the store has none. */
  seedSettings: WebsiteSettings;
  catalog: Catalog;
  models: RecommendationModels;
  /** Semantic models of the website (the built-in one trains only while a setting uses it). */
  semantics: WebsiteSemantics;
  /** The search aids derived in the background for each version's new vocabulary and postings (search/term-aids-ahead.ts). */
  termAids: TermAidsAhead;
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
export function catalogsDir(dataDir: string): string {
  return path.join(dataDir, 'catalogs');
}

/** The file names of a website are its id percent-encoded, so any id maps to one safe file name. */
export function fileNameOf(websiteId: string): string {
  return encodeURIComponent(websiteId);
}

/** The built-in semantic model's file, beside the snapshot (semantic/text-model-file.ts). */
export function textModelPath(dataDir: string, websiteId: string): string {
  return path.join(catalogsDir(dataDir), `${fileNameOf(websiteId)}.aisle-ri`);
}

/** True when the settings rank with the built-in semantic model (so it must be trained). */
export function usesBuiltInModel(settings: WebsiteSettings | undefined): boolean {
  return semanticSearchOf(settings?.semanticSearch)?.model === TEXT_MODEL_ID;
}
