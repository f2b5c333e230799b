/**
 * A website's configuration and settings put in force at run time: a website added (or re-configured)
 * by addWebsite, and settings applied after a change through the settings API or another replica's.
 * @module
 */
import type { SearchLog } from '../analytics/search-log.js';
import type { FailureReporter } from '../background-failures.js';
import { validateEngineOptions, type WebsiteConfig, type WebsiteSettings } from '../config.js';
import type { EventService } from '../events/event-service.js';
import type { SettingsService } from '../settings/settings-service.js';
import { openWebsite, type WebsiteOpener } from './open-website.js';
import { usesBuiltInModel, type WebsiteState } from './website-state.js';

/**
 * Puts settings in force: the next search, recommendation and event reads them. A hierarchy the
 * settings add is derived in the background (then carried by every change): its first category page
 * need not derive it on the event loop. A failed derivation is an `index-build` failure (`reporter`);
 * a category page then derives the hierarchy itself.
 */
export function applySettings(state: WebsiteState, settings: WebsiteSettings, events: EventService, reporter: FailureReporter): void {
  state.config = { ...state.config, settings };
  const { websiteId } = state.config;
  state.catalog.deriveHierarchies(settings.hierarchies).catch((err: unknown) => {
    reporter.report('index-build', err, websiteId, 'deriving the hierarchies of the settings put in force');
  });
  putConfigInForce(state, events);
}

/** Puts the website's config (`state.config`) in force for the catalog's checks, the models, the semantic model and the events. */
function putConfigInForce(state: WebsiteState, events: EventService): void {
  const settings = state.config.settings;
  state.catalog.fieldTypes = settings?.fields;
  state.models.setWebsite(state.config);
  state.semantics.setBuiltInWanted(usesBuiltInModel(settings));
  events.addWebsite(state.config);
}

/** The engine's parts a website added at run time joins. */
export interface WebsiteRegistry {
  /** The engine's websites (the added one is put here). */
  sites: Map<string, WebsiteState>;
  opener: WebsiteOpener;
  events: EventService;
  settings: SettingsService;
  searchLog: SearchLog;
}

/**
 * Adds a website, or re-configures one the engine has (its settings stored through the settings API
 * stay in force over the new seed). Throws `CONFIG_INVALID` as a config file naming it would.
 * Resolves once the hierarchies of the settings in force are derived on the catalog, as the engine's
 * start does (engine/start.ts): the first category page after it neither derives one on the event
 * loop nor waits for one. A failed derivation is thrown; the website is added (or re-configured) either way.
 */
export async function addWebsite(registry: WebsiteRegistry, config: WebsiteConfig): Promise<void> {
  const { sites, events, settings } = registry;
  const all = [...[...sites.values()].map((s) => s.config).filter((w) => w.websiteId !== config.websiteId), config];
  validateEngineOptions({ websites: all, embedders: registry.opener.options.embedders, adminTokens: registry.opener.options.adminTokens });
  const existing = sites.get(config.websiteId);
  if (existing) {
    existing.seedSettings = config.settings ?? {};
    // Settings stored through the settings API stay in force over the new seed.
    existing.config = settings.hasStored(config.websiteId) ? { ...config, settings: existing.config.settings } : config;
    putConfigInForce(existing, events);
    await existing.catalog.deriveHierarchies(existing.config.settings?.hierarchies);
    return;
  }
  const state = await openWebsite(registry.opener, config, 'added');
  sites.set(config.websiteId, state);
  events.addWebsite(config);
  // Its stored settings (a website added again after a restart) are put in force here, before the derivation.
  await settings.load(config.websiteId);
  await registry.searchLog.load(config.websiteId);
  await state.catalog.deriveHierarchies(state.config.settings?.hierarchies);
}
