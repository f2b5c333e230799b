/**
 * The configuration shapes shared by `createEngine` and the config file (see docs/operations.md),
 * and their validation: a bad value fails with a message naming its key.
 * @module
 */
import { fieldError } from './errors.js';
import type { Embedder } from './semantic/embedder.js';
import { TEXT_MODEL_ID } from './semantic/text-model.js';
import type { NumericScope, TextScope } from './types.js';
import { HISTORY_METHODS, METHODS } from './recommend/methods.js';
import { EngineOptionsSchema } from './contract/config-schema.js';
import { WebsiteSettingsSchema, type RETENTION_KINDS, type WebsiteSettingsData } from './contract/settings-schema.js';

/** A kind of raw rows that `eventRetentionDays` names. */
export type RetentionKind = (typeof RETENTION_KINDS)[number];
import { checkAgainst } from './contract/validate.js';
import {
  validateRelevanceSettings, type RankingSettings, type SynonymEntry, type TypoToleranceSettings,
} from './search/relevance-settings.js';

/** Where durable state lives. */
export type StoreConfig =
  | { type: 'embedded'; path?: string }
  | {
    type: 'postgres'; url: string; schema?: string; pollIntervalMs?: number;
    /** How often a replica tries to store a new catalog snapshot in PostgreSQL (ms, default 30 000; one replica writes). */
    catalogSnapshotIntervalMs?: number;
  }
  | { type: 'memory' };

/** A retail-media ad set: sponsored products and their costs. */
export interface AdSetConfig {
  adSetId: string;
  version: number;
  products: string[];
  costPerClick?: number;
  costPerAction?: number;
  costPerMille?: number;
  bannerId?: string;
  placementId?: string;
}

/** A retailer-boost collection: products boosted under a campaign. */
export interface RetailBoostCollectionConfig {
  campaignId: string;
  products: string[];
}

/** A redirect rule: when the normalised query equals one of `queries`, `payload.redirects.url` is set. */
export interface RedirectRule {
  queries: string[];
  url: string;
}

/** `settings.personalization`: off, on with the default weight, or on with a weight. */
export type PersonalizationSetting = boolean | { weight?: number };

/** `settings.semanticSearch`: off, on with the built-in model, or a model (an embedder id) and a weight. */
export type SemanticSearchSetting = boolean | { model?: string; weight?: number };

/** A product placed at a 1-based position of the ranked list by a {@link MerchandisingRule}. */
export interface RulePin {
  refId: string;
  /** 1-based; a position beyond the list puts the product last. */
  position: number;
}

/** Multiplies the relevance of the products its scope selects: weight > 1 boosts, 0 < weight < 1 buries. */
export interface RuleBoost {
  /** Same syntax as the search request's `scope`. */
  scope: Record<string, TextScope | NumericScope>;
  weight: number;
}

/**
 * A merchandising rule (see docs/operations.md, "Merchandising rules"): for the queries it matches
 * and within its time window, pins, hides, boosts and buries products. Applied after filtering and
 * before paging, so totals and facets agree with the list.
 */
export interface MerchandisingRule {
  id: string;
  /** Compared with the request's `q` after normalisation (lower case, words joined by one space). */
  query: string;
  /**
   * `exact` (default): the normalised query equals the rule's; `contains`: the rule's words appear as
   * consecutive whole words of the query (`""` with `contains` applies to every query).
   */
  match?: 'exact' | 'contains';
  pin?: RulePin[];
  hide?: string[];
  boost?: RuleBoost[];
  /** ISO 8601 date-time from which the rule applies (inclusive). */
  from?: string;
  /** ISO 8601 date-time until which the rule applies (exclusive). */
  until?: string;
}

export { RULE_LIMITS, MAX_RERANK_WEIGHT } from './contract/limits.js';
import { RULE_LIMITS, MAX_RERANK_WEIGHT } from './contract/limits.js';

/** `settings.retailMedia`: the ad sets and where their sponsored slot goes (docs/recommendations.md, "Retail media"). */
export interface RetailMediaSettings {
  adSets: AdSetConfig[];
  /** Default 0-based position of the sponsored slot (default 2). */
  slotPosition?: number;
  /**
   * Per recommendation method (canonical name, e.g. `"ProductDetail"`): the 0-based slot position, or
   * `false` for no sponsored slot in that method. Methods not listed use `slotPosition`.
   * RecentlyViewed and HistoricViewed (a customer's own history) never carry one and may not be listed.
   */
  placements?: Record<string, number | false>;
}

/**
 * `settings.fieldRoles`: which product fields Similar Attributes (and personalization) read. Nothing in
 * the engine is tuned to one data set's field names: a website names its own.
 */
export interface FieldRoles {
  /** Category field(s); an array value is a path (root first; deeper levels weigh more). Default `"search_category"`. */
  category?: string | string[];
  /** Default `"brand"`. */
  brand?: string;
  /** Default `"type"`. */
  type?: string;
  /** Price field: only refines the ranking of products that share an attribute. Default `"price"`. */
  price?: string;
  /**
   * Further attribute fields (top-level, or `attributes.<key>` inside an `attributes` object). When
   * absent, every other top-level text or boolean field of at most 60 characters is an attribute
   * (numbers only when listed: counts, sizes and timestamps rarely mean "alike" by equality).
   */
  attributes?: string[];
  /** Fields never read as attributes. */
  ignore?: string[];
}

/**
 * The defaults of {@link FieldRoles}: the spec's own field names (service interface: `search_category`,
 * `brand`, `type`, `price`). Similar Attributes and personalization both read them from here.
 */
export const DEFAULT_FIELD_ROLES: Readonly<Required<Omit<FieldRoles, 'attributes'>>> = {
  category: 'search_category', brand: 'brand', type: 'type', price: 'price', ignore: [],
};

/** Per-website settings; every key is optional. */
export interface WebsiteSettings {
  /**
   * Personalized ranking: with a `customer_id`, the best results are re-ranked toward the customer's
   * affinities (see docs/personalization.md). `true` uses the default weight; `customer_id` is then
   * required, as the spec says.
   */
  personalization?: PersonalizationSetting;
  /**
   * Hybrid semantic ranking: the best text matches are re-ranked by their similarity to the query under
   * a model (the built-in `aisle-ri`, trained on the catalog, or an embedder given to `createEngine`);
   * see docs/semantic-search.md. `settings.ats_model` names the model when it ranked the results.
   */
  semanticSearch?: SemanticSearchSetting;
  /** BM25F weight per text field (overrides the defaults; 0: the field does not match). Query-time. */
  fieldWeights?: Record<string, number>;
  /**
   * Synonyms, query-time: groups of equivalent words or phrases (`[["tv", "television"]]`, two-way) and
   * one-way entries (`{ from: "tv", to: ["television"] }`: `tv` also finds `television`, not the reverse).
   */
  synonyms?: SynonymEntry[];
  /** Language of the catalog and queries (ISO 639-1, default `"en"`): stemming and default stop words. */
  language?: string;
  /** Stop words added to the language's defaults (`[]` keeps the defaults). Query-time. */
  stopWords?: string[];
  /** Typo tolerance by word length (defaults: enabled, 1 edit from 4 letters, 2 from 8). Query-time. */
  typoTolerance?: TypoToleranceSettings;
  /** Tie-breakers applied after relevance and after `sort_fields`. Query-time. */
  ranking?: RankingSettings;
  redirects?: RedirectRule[];
  /** Merchandising rules: pin, hide, boost, bury per query and time window. */
  rules?: MerchandisingRule[];
  retailMedia?: RetailMediaSettings;
  /** Which fields Similar Attributes read (see {@link FieldRoles}). */
  fieldRoles?: FieldRoles;
  retailBoost?: { collections: RetailBoostCollectionConfig[] };
  cors?: { origins: string[] };
  /** Trailing window in days within which retail-media slot data is honoured by purchases (default 30). */
  attributionWindowDays?: number;
  /** Visual similarity is looked up by style id rather than product id. */
  useStyleIdForVisualSimilarity?: boolean;
  /** Completions from the search log: distinct sessions needed, words and phrases never offered. Query-time. */
  suggestions?: SuggestionSettings;
  /** Days the raw rows of each kind are kept (deleted in the background; roll-ups are kept). */
  eventRetentionDays?: EventRetentionDays;
}

/** `settings.suggestions` (defaults: minSessions 3, exclude []). */
export interface SuggestionSettings {
  minSessions?: number;
  exclude?: string[];
}

/** `settings.eventRetentionDays`: days per kind of raw rows (defaults in docs/operations.md, "Retention"). */
export type EventRetentionDays = Partial<Record<RetentionKind, number>>;

/** Compile-time check that the documented settings types and the contract's settings schema agree (both ways). */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const settingsAgree: Agree<WebsiteSettings, WebsiteSettingsData> = true;
void settingsAgree;

/** One website (tenant). */
export interface WebsiteConfig {
  websiteId: string;
  client: string;
  tokens: string[];
  hmacSecret: string;
  settings?: WebsiteSettings;
}

/** Options of `createEngine`: the config file's shape plus runtime options. */
export interface EngineOptions {
  /** Directory for the embedded store and catalog snapshots; without it and `store`, all state is in memory. */
  dataDir?: string;
  store?: StoreConfig;
  /** Search worker threads; 0 runs every search inline. Default: min(2, cores). */
  workers?: number;
  /** Catalogs with at least this many products fan out over the worker pool. */
  poolThreshold?: number;
  /**
   * Text embedders of the host service, for semantic search: a website names one by its `id` in
   * `settings.semanticSearch.model` (library use only; a config file cannot hold code).
   */
  embedders?: Embedder[];
  /** Quiet time after a catalog change before the built-in semantic model retrains (ms, default 2000). */
  semanticRetrainDelayMs?: number;
  websites?: WebsiteConfig[];
  adminTokens?: string[];
  /** Read by the HTTP adapter: serve the built-in dashboard at `/` (default true; `false` turns it off). */
  dashboard?: boolean;
}

function fail(key: string, problem: string): never {
  throw fieldError('CONFIG_INVALID', key, problem);
}

function checkIsoTime(v: string | undefined, key: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = Date.parse(v);
  if (!Number.isFinite(ms)) fail(key, 'must be an ISO 8601 date-time string');
  return ms;
}

/** The rules of `rules` a schema cannot state: ids unique, times readable and in order. */
function checkRules(rules: readonly MerchandisingRule[], key: string): void {
  const ids = new Set<string>();
  rules.forEach((r, i) => {
    const k = `${key}[${i}]`;
    if (ids.has(r.id)) fail(`${k}.id`, `repeats "${r.id}"`);
    ids.add(r.id);
    const from = checkIsoTime(r.from, `${k}.from`);
    const until = checkIsoTime(r.until, `${k}.until`);
    if (from !== undefined && until !== undefined && from >= until) fail(`${k}.until`, 'must be later than from');
  });
}

/** The rules of `retailMedia` a schema cannot state: placements name methods that may carry a slot; an ad set has a cost. */
function checkRetailMedia(rm: RetailMediaSettings, key: string): void {
  for (const method of Object.keys(rm.placements ?? {})) {
    if (!METHODS.some((m) => m.name === method)) fail(`${key}.placements.${method}`, `is not a recommendation method (known: ${METHODS.map((m) => m.name).join(', ')})`);
    if (HISTORY_METHODS.has(method)) fail(`${key}.placements.${method}`, 'cannot carry a sponsored slot: it lists the customer\'s own history');
  }
  rm.adSets.forEach((a, i) => {
    if (a.costPerClick === undefined && a.costPerAction === undefined && a.costPerMille === undefined) {
      fail(`${key}.adSets[${i}]`, 'needs at least one of costPerClick, costPerAction, costPerMille');
    }
  });
}

/**
 * Checks a website's `settings` object; `key` is where it sits (`websites[0].settings` in the config
 * file, `settings` for the settings API). Throws `CONFIG_INVALID` naming the first bad key: the ONE
 * settings validator of the config file, `createEngine` and `engine.updateSettings`. The shape, the
 * known keys and the limits are the contract's settings schema (contract/settings-schema.ts); what
 * follows it are the rules a schema cannot state. `models` are the semantic models
 * `semanticSearch.model` may name (the built-in one and the engine's embedders).
 */
export function validateSettings(raw: unknown, key: string, models: readonly string[] = [TEXT_MODEL_ID]): void {
  if (raw === undefined) return;
  const s = checkAgainst<WebsiteSettings>(WebsiteSettingsSchema, raw, fail, { root: key });
  validateRelevanceSettings(s, key);
  const model = typeof s.semanticSearch === 'object' ? s.semanticSearch.model : undefined;
  if (model !== undefined && !models.includes(model)) fail(`${key}.semanticSearch.model`, `names no known model (known: ${models.join(', ')})`);
  if (s.rules !== undefined) checkRules(s.rules, `${key}.rules`);
  if (s.retailMedia !== undefined) checkRetailMedia(s.retailMedia, `${key}.retailMedia`);
}

/** The rules of `embedders` a schema cannot state (ids unique and not the built-in model's, `embed` a function); returns their ids. */
function checkEmbedders(embedders: readonly Embedder[] | undefined): string[] {
  const ids: string[] = [];
  (embedders ?? []).forEach((e, i) => {
    const k = `embedders[${i}]`;
    if (e.id === TEXT_MODEL_ID || ids.includes(e.id)) fail(`${k}.id`, `repeats "${e.id}"`);
    if (typeof e.embed !== 'function') fail(`${k}.embed`, 'must be a function (texts) => Float32Array[]');
    ids.push(e.id);
  });
  return ids;
}

/** Effective personalization: undefined when off, else its weight. */
export function personalizationWeight(setting: PersonalizationSetting | undefined): number | undefined {
  if (!setting) return undefined;
  return setting === true ? DEFAULT_PERSONALIZATION_WEIGHT : setting.weight ?? DEFAULT_PERSONALIZATION_WEIGHT;
}

/** Effective semantic search: undefined when off, else the model id and weight. */
export function semanticSearchOf(setting: SemanticSearchSetting | undefined): { model: string; weight: number } | undefined {
  if (!setting) return undefined;
  if (setting === true) return { model: TEXT_MODEL_ID, weight: DEFAULT_SEMANTIC_WEIGHT };
  return { model: setting.model ?? TEXT_MODEL_ID, weight: setting.weight ?? DEFAULT_SEMANTIC_WEIGHT };
}

/** Weight of the customer's affinity in the re-rank blend when `personalization` is `true` (see search/rerank.ts). */
export const DEFAULT_PERSONALIZATION_WEIGHT = 0.3;

/** Weight of semantic similarity in the re-rank blend when `semanticSearch` is `true` (see search/rerank.ts). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.5;

/**
 * Checks an engine configuration (the config file's content, or `createEngine` options) and returns
 * it typed. Throws `CONFIG_INVALID` naming the first bad key.
 */
export function validateEngineOptions(raw: unknown): EngineOptions {
  // Unknown keys are refused: a misspelt key would otherwise be ignored silently (e.g. "websties": no website at all).
  const options = checkAgainst<EngineOptions>(EngineOptionsSchema, raw, fail, { self: '(root)' });
  const models = [TEXT_MODEL_ID, ...checkEmbedders(options.embedders)];
  const websites = options.websites ?? [];
  // The coupon call names a website by its id or its client shortcode: each name must pick one website.
  const idIndex = new Map(websites.map((w, i) => [w.websiteId, i]));
  const ids = new Set<string>();
  const clients = new Set<string>();
  const tokens = new Set<string>();
  websites.forEach((w, i) => {
    const k = `websites[${i}]`;
    if (ids.has(w.websiteId)) fail(`${k}.websiteId`, `repeats "${w.websiteId}"`);
    ids.add(w.websiteId);
    if (clients.has(w.client)) fail(`${k}.client`, `repeats "${w.client}" (a client shortcode names exactly one website)`);
    const other = idIndex.get(w.client);
    if (other !== undefined && other !== i) fail(`${k}.client`, `"${w.client}" is the websiteId of websites[${other}] (a client shortcode names exactly one website)`);
    clients.add(w.client);
    w.tokens.forEach((t, j) => {
      if (tokens.has(t)) fail(`${k}.tokens[${j}]`, 'is already used by another website (a token opens exactly one website)');
      tokens.add(t);
    });
    validateSettings(w.settings, `${k}.settings`, models);
  });
  return options;
}
