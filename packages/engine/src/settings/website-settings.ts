/**
 * Website settings at run time: the defaults every key falls back to, JSON Merge Patch (RFC 7396) for
 * `PATCH`, and the check of a settings object sent through the API — the config file's validator
 * (`validateSettings` in config.ts), with its error raised as `SETTINGS_INVALID` (400) instead of a
 * start-up failure. Pure; generic over the settings object, so a key added to `WebsiteSettings` and
 * its validator needs nothing here beyond (optionally) its default.
 * @module
 */
import { DEFAULT_EVENT_RETENTION_DAYS, DEFAULT_SUGGESTION_SETTINGS } from '../analytics/analytics-settings.js';
import { DEFAULT_FIELD_WEIGHTS } from '../catalog/field-values.js';
import { DEFAULT_FIELD_ROLES, DEFAULT_PERSONALIZATION_WEIGHT, DEFAULT_SEMANTIC_WEIGHT, validateSettings, type WebsiteSettings } from '../config.js';
import { AisleError, fieldError, isAisleError } from '../errors.js';
import { DEFAULT_ATTRIBUTION_WINDOW_DAYS, DEFAULT_SLOT_POSITION } from '../retail-media/index.js';
import { DEFAULT_LANGUAGE } from '../search/language.js';
import { clickRankingOf } from '../learning/click-ranking-settings.js';
import { DEFAULT_TYPO_TOLERANCE } from '../search/relevance-settings.js';
import { TEXT_MODEL_ID } from '../semantic/text-model.js';

/**
 * The value of each key a website has not set. `GET …/settings` answers the stored settings over
 * these; a key absent here (and unset) is absent from the answer.
 */
export const DEFAULT_WEBSITE_SETTINGS: Readonly<WebsiteSettings> = Object.freeze({
  personalization: false,
  semanticSearch: false,
  clickRanking: false,
  fieldWeights: { ...DEFAULT_FIELD_WEIGHTS },
  synonyms: [],
  language: DEFAULT_LANGUAGE,
  stopWords: [],
  typoTolerance: { ...DEFAULT_TYPO_TOLERANCE },
  ranking: { tieBreakers: [] },
  redirects: [],
  rules: [],
  retailMedia: { adSets: [], slotPosition: DEFAULT_SLOT_POSITION, placements: {} },
  retailBoost: { collections: [] },
  cors: { origins: [] },
  attributionWindowDays: DEFAULT_ATTRIBUTION_WINDOW_DAYS,
  useStyleIdForVisualSimilarity: false,
  fieldRoles: { ...DEFAULT_FIELD_ROLES, ignore: [...DEFAULT_FIELD_ROLES.ignore] },
  suggestions: { ...DEFAULT_SUGGESTION_SETTINGS, exclude: [] },
  eventRetentionDays: { ...DEFAULT_EVENT_RETENTION_DAYS },
  fields: {},
  distinct: false,
  hierarchies: {},
});

/**
 * The keys of a setting's object form, for the settings that are off (`false`) by default and may be
 * turned on with an object naming only some of its keys (`{"semanticSearch": {"weight": 0.3}}`): GET
 * shows the others at the values the readers fall back to (config.ts `semanticSearchOf`,
 * `personalizationWeight`; search/distinct.ts). `clickRanking` has its own (`true` shows them too).
 */
const OBJECT_FORM_DEFAULTS: Readonly<Partial<Record<keyof WebsiteSettings, Readonly<Record<string, unknown>>>>> = Object.freeze({
  semanticSearch: { model: TEXT_MODEL_ID, weight: DEFAULT_SEMANTIC_WEIGHT },
  personalization: { weight: DEFAULT_PERSONALIZATION_WEIGHT },
  distinct: { facetCounts: 'products' },
});

/**
 * Deepest nesting of objects and arrays accepted in settings sent at run time (the deepest key, a
 * rule's boost scope condition, sits at 6): a deeper body is refused before it is merged or walked.
 */
export const MAX_SETTINGS_DEPTH = 32;

/** Whether `value` nests objects or arrays deeper than `limit` (stops looking at the limit). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  for (const child of Object.values(value)) if (nestsDeeperThan(child, limit - 1)) return true;
  return false;
}

/** Refuses settings (or a patch) nested deeper than {@link MAX_SETTINGS_DEPTH}, with `SETTINGS_INVALID`. */
export function checkSettingsDepth(raw: unknown): void {
  if (nestsDeeperThan(raw, MAX_SETTINGS_DEPTH)) {
    throw fieldError('SETTINGS_INVALID', 'settings', `must not nest objects and arrays deeper than ${MAX_SETTINGS_DEPTH} levels`);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `value` over `defaults` at every depth: where both are plain objects, each key of the defaults the
 * value lacks is filled in (recursively); anything else (arrays, scalars, a boolean where the default
 * is an object) is the value as set. Returns a fresh copy. Pure.
 */
function fillDefaults(defaults: unknown, value: unknown): unknown {
  if (value === undefined) return structuredClone(defaults);
  if (!isPlainObject(defaults) || !isPlainObject(value)) return structuredClone(value);
  const out: Record<string, unknown> = structuredClone(defaults);
  for (const [key, v] of Object.entries(value)) {
    // defineProperty: a key named "__proto__" stays a key (as JSON.parse made it).
    Object.defineProperty(out, key, { value: fillDefaults(out[key], v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Every key of the settings at every depth: the set ones as they are, the others at their default
 * (`{"typoTolerance": {"minWordSizeOneTypo": 5}}` shows `enabled` and `minWordSizeTwoTypos` too): what
 * the engine applies, since every reader falls back to these defaults key by key. A fresh copy.
 */
export function settingsWithDefaults(settings: WebsiteSettings | undefined): WebsiteSettings {
  const full = fillDefaults(DEFAULT_WEBSITE_SETTINGS, settings ?? {}) as Record<string, unknown>;
  for (const [key, defaults] of Object.entries(OBJECT_FORM_DEFAULTS)) {
    if (isPlainObject(full[key])) full[key] = fillDefaults(defaults, full[key]);
  }
  // `clickRanking` once on shows the values it stands for (`true` included).
  return { ...full as WebsiteSettings, clickRanking: clickRankingOf(settings?.clickRanking) ?? false };
}

/**
 * RFC 7396 JSON Merge Patch: an object patch merges key by key (`null` removes the key), anything
 * else replaces the target. Returns a new value; neither argument is changed.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    // defineProperty: a key named "__proto__" stays a key (as JSON.parse made it).
    else Object.defineProperty(result, key, { value: mergePatch(result[key], value), enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/**
 * Checks settings sent through the API (or `engine.updateSettings`) with the config file's validator;
 * throws `SETTINGS_INVALID` whose message names the key (`settings.rules[0].pin[1].position must be …`).
 * `models`: the semantic models `semanticSearch.model` may name (default: the built-in one).
 */
export function checkWebsiteSettings(raw: unknown, models?: readonly string[]): WebsiteSettings {
  try {
    validateSettings(raw, 'settings', models);
  } catch (err) {
    if (!isAisleError(err) || err.code !== 'CONFIG_INVALID') throw err;
    throw new AisleError('SETTINGS_INVALID', err.message.replace(/^config: /, ''), { details: err.details });
  }
  if (raw === undefined) throw fieldError('SETTINGS_INVALID', 'settings', 'must be an object');
  return raw as WebsiteSettings;
}
