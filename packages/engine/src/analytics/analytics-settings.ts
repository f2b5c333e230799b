/**
 * The defaults of the analytics settings (`suggestions`, `eventRetentionDays`) and the values in force
 * for a website, defaults filled in.
 * @module
 */
import type { EventRetentionDays, RetentionKind, SuggestionSettings, WebsiteSettings } from '../config.js';
import { RETENTION_KINDS } from '../contract/settings-schema.js';

/** `settings.suggestions` by default: a logged query is offered once three distinct sessions searched it. */
export const DEFAULT_SUGGESTION_SETTINGS: Readonly<Required<SuggestionSettings>> = Object.freeze({ minSessions: 3, exclude: [] });

/**
 * `settings.eventRetentionDays` by default: logged responses 90 days (the reports' usual window; the
 * roll-ups stay), views and clicks one year (behaviour of the same grain; what the models learned from
 * them stays in their checkpointed state), purchases two (a model learns from that much; the orders'
 * revenue stays in the roll-ups and attribution sums).
 */
export const DEFAULT_EVENT_RETENTION_DAYS: Readonly<Required<EventRetentionDays>> = Object.freeze({ searches: 90, recommendations: 90, views: 365, purchases: 730, clicks: 365 });

/** The suggestion settings in force, defaults filled in (read-only: the defaults themselves when a website sets none). */
export function suggestionSettingsOf(settings: WebsiteSettings | undefined): Readonly<Required<SuggestionSettings>> {
  // The default's empty exclude list is shared (it is only read): a new [] on every search missed the
  // compiled-phrases cache (suggestion-filters.ts, keyed by the list) and added a WeakMap entry per search.
  // No copy when nothing is set (most websites): one object fewer per search.
  const own = settings?.suggestions;
  return own === undefined ? DEFAULT_SUGGESTION_SETTINGS : { ...DEFAULT_SUGGESTION_SETTINGS, ...own };
}

/** The retention in force per kind, defaults filled in. */
export function retentionDaysOf(settings: WebsiteSettings | undefined): Record<RetentionKind, number> {
  return Object.fromEntries(RETENTION_KINDS.map((k) => [k, settings?.eventRetentionDays?.[k] ?? DEFAULT_EVENT_RETENTION_DAYS[k]])) as Record<RetentionKind, number>;
}
