/**
 * A website's configuration and settings put in force at run time: a website added (or re-configured)
 * by addWebsite, and settings applied after a change through the settings API or another replica's.
 * @module
 */
import type { SearchLog } from '../analytics/search-log.js';
import { validateEngineOptions, type WebsiteConfig, type WebsiteSettings } from '../config.js';
import type { EventService } from '../events/event-service.js';
import type { SettingsService } from '../settings/settings-service.js';
import { openWebsite, type WebsiteOpener } from './open-website.js';
import { usesBuiltInModel, type WebsiteState } from './website-state.js';

/**
 * Puts settings in force: the next search, recommendation and event reads them. A hierarchy the
 * settings add is derived in the background (then carried by every change): its first category page
 * need not derive it on the event loop.
 */
export function applySettings(state: WebsiteState, settings: WebsiteSettings, events: EventService): void {
  state.config = { ...state.config, settings };
  const { websiteId } = state.config;
  state.catalog.deriveHierarchies(settings.hierarchies).catch((err: unknown) => {
    process.emitWarning(`hierarchies of ${websiteId} not derived in the background: ${err instanceof Error ? err.message : String(err)}`, 'AisleCatalogIndexWarning');
  });
  state.catalog.fieldTypes = settings.fields;
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
 */
export async function addWebsite(registry: WebsiteRegistry, config: WebsiteConfig): Promise<void> {
  const { sites, events, settings } = registry;
  const all = [...[...sites.values()].map((s) => s.config).filter((w) => w.websiteId !== config.websiteId), config];
  validateEngineOptions({ websites: all, embedders: registry.opener.options.embedders });
  const existing = sites.get(config.websiteId);
  if (existing) {
    existing.seedSettings = config.settings ?? {};
    // Settings stored through the settings API stay in force over the new seed.
    existing.config = settings.hasStored(config.websiteId) ? { ...config, settings: existing.config.settings } : config;
    existing.catalog.fieldTypes = existing.config.settings?.fields;
    existing.models.setWebsite(existing.config);
    events.addWebsite(existing.config);
    existing.semantics.setBuiltInWanted(usesBuiltInModel(existing.config.settings));
    return;
  }
  const state = await openWebsite(registry.opener, config, 'added');
  sites.set(config.websiteId, state);
  events.addWebsite(config);
  await settings.load(config.websiteId);
  await registry.searchLog.load(config.websiteId);
}
