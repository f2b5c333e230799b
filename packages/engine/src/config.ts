/**
 * The configuration shapes shared by `createEngine` and the config file (see docs/operations.md),
 * and their validation: a bad value fails with a message naming its key.
 * @module
 */
import { AisleError } from './errors.js';
import type { Embedder } from './semantic/embedder.js';
import { TEXT_MODEL_ID } from './semantic/text-model.js';

/** Where durable state lives. */
export type StoreConfig =
  | { type: 'embedded'; path?: string }
  | { type: 'postgres'; url: string; schema?: string; pollIntervalMs?: number }
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
  /** BM25F weight per text field (overrides the defaults). */
  fieldWeights?: Record<string, number>;
  /** Groups of equivalent words, e.g. `[["tv", "television"]]`. */
  synonyms?: string[][];
  redirects?: RedirectRule[];
  retailMedia?: { adSets: AdSetConfig[]; slotPosition?: number };
  retailBoost?: { collections: RetailBoostCollectionConfig[] };
  cors?: { origins: string[] };
  /** Trailing window in days within which retail-media slot data is honoured by purchases (default 30). */
  attributionWindowDays?: number;
  /** Visual similarity is looked up by style id rather than product id. */
  useStyleIdForVisualSimilarity?: boolean;
}

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
}

function fail(key: string, problem: string): never {
  throw new AisleError('CONFIG_INVALID', `config: ${key} ${problem}`, { details: { key } });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkString(v: unknown, key: string, opts: { optional?: boolean } = {}): void {
  if (v === undefined && opts.optional) return;
  if (typeof v !== 'string' || v.length === 0) fail(key, 'must be a non-empty string');
}

function checkStringArray(v: unknown, key: string, opts: { optional?: boolean; nonEmptyItems?: boolean } = {}): void {
  if (v === undefined && opts.optional) return;
  if (!Array.isArray(v)) fail(key, 'must be an array of strings');
  v.forEach((item, i) => checkString(item, `${key}[${i}]`));
}

function checkNumber(v: unknown, key: string, opts: { optional?: boolean; min?: number; integer?: boolean } = {}): void {
  if (v === undefined && opts.optional) return;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(key, 'must be a finite number');
  if (opts.integer && !Number.isInteger(v)) fail(key, 'must be an integer');
  if (opts.min !== undefined && v < opts.min) fail(key, `must be at least ${opts.min}`);
}

function checkBoolean(v: unknown, key: string): void {
  if (v !== undefined && typeof v !== 'boolean') fail(key, 'must be true or false');
}

function checkKnownKeys(obj: Record<string, unknown>, known: readonly string[], prefix: string): void {
  for (const k of Object.keys(obj)) if (!known.includes(k)) fail(`${prefix}${k}`, `is not a known key (known: ${known.join(', ')})`);
}

function validatePersonalization(v: unknown, key: string): void {
  if (v === undefined || typeof v === 'boolean') return;
  if (!isObject(v)) fail(key, 'must be true, false or {"weight": number}');
  checkKnownKeys(v, ['weight'], `${key}.`);
  checkNumber(v.weight, `${key}.weight`, { optional: true, min: 0 });
}

function validateSemanticSearch(v: unknown, key: string, models: readonly string[]): void {
  if (v === undefined || typeof v === 'boolean') return;
  if (!isObject(v)) fail(key, 'must be true, false or {"model": string, "weight": number}');
  checkKnownKeys(v, ['model', 'weight'], `${key}.`);
  checkString(v.model, `${key}.model`, { optional: true });
  if (v.model !== undefined && !models.includes(v.model as string)) fail(`${key}.model`, `names no known model (known: ${models.join(', ')})`);
  checkNumber(v.weight, `${key}.weight`, { optional: true, min: 0 });
}

function validateSettings(s: unknown, key: string, models: readonly string[] = [TEXT_MODEL_ID]): void {
  if (s === undefined) return;
  if (!isObject(s)) fail(key, 'must be an object');
  checkKnownKeys(s, ['personalization', 'semanticSearch', 'fieldWeights', 'synonyms', 'redirects', 'retailMedia',
    'retailBoost', 'cors', 'attributionWindowDays', 'useStyleIdForVisualSimilarity'], `${key}.`);
  validatePersonalization(s.personalization, `${key}.personalization`);
  validateSemanticSearch(s.semanticSearch, `${key}.semanticSearch`, models);
  checkBoolean(s.useStyleIdForVisualSimilarity, `${key}.useStyleIdForVisualSimilarity`);
  checkNumber(s.attributionWindowDays, `${key}.attributionWindowDays`, { optional: true, min: 0 });
  if (s.fieldWeights !== undefined) {
    if (!isObject(s.fieldWeights)) fail(`${key}.fieldWeights`, 'must be an object of field -> weight');
    for (const [f, w] of Object.entries(s.fieldWeights)) checkNumber(w, `${key}.fieldWeights.${f}`, { min: 0 });
  }
  if (s.synonyms !== undefined) {
    if (!Array.isArray(s.synonyms)) fail(`${key}.synonyms`, 'must be an array of arrays of words');
    s.synonyms.forEach((g, i) => checkStringArray(g, `${key}.synonyms[${i}]`));
  }
  if (s.redirects !== undefined) {
    if (!Array.isArray(s.redirects)) fail(`${key}.redirects`, 'must be an array of {queries, url}');
    s.redirects.forEach((r, i) => {
      if (!isObject(r)) fail(`${key}.redirects[${i}]`, 'must be an object {queries, url}');
      checkStringArray(r.queries, `${key}.redirects[${i}].queries`);
      checkString(r.url, `${key}.redirects[${i}].url`);
    });
  }
  if (s.retailMedia !== undefined) {
    const rm = s.retailMedia;
    if (!isObject(rm) || !Array.isArray(rm.adSets)) fail(`${key}.retailMedia.adSets`, 'must be an array');
    checkNumber(rm.slotPosition, `${key}.retailMedia.slotPosition`, { optional: true, min: 0, integer: true });
    rm.adSets.forEach((a: unknown, i: number) => {
      const k = `${key}.retailMedia.adSets[${i}]`;
      if (!isObject(a)) fail(k, 'must be an object');
      checkString(a.adSetId, `${k}.adSetId`);
      checkNumber(a.version, `${k}.version`, { integer: true, min: 0 });
      checkStringArray(a.products, `${k}.products`);
      for (const c of ['costPerClick', 'costPerAction', 'costPerMille'] as const) checkNumber(a[c], `${k}.${c}`, { optional: true, min: 0 });
      if (a.costPerClick === undefined && a.costPerAction === undefined && a.costPerMille === undefined) {
        fail(k, 'needs at least one of costPerClick, costPerAction, costPerMille');
      }
      checkString(a.bannerId, `${k}.bannerId`, { optional: true });
      checkString(a.placementId, `${k}.placementId`, { optional: true });
    });
  }
  if (s.retailBoost !== undefined) {
    const rb = s.retailBoost;
    if (!isObject(rb) || !Array.isArray(rb.collections)) fail(`${key}.retailBoost.collections`, 'must be an array');
    rb.collections.forEach((c: unknown, i: number) => {
      const k = `${key}.retailBoost.collections[${i}]`;
      if (!isObject(c)) fail(k, 'must be an object');
      checkString(c.campaignId, `${k}.campaignId`);
      checkStringArray(c.products, `${k}.products`);
    });
  }
  if (s.cors !== undefined) {
    if (!isObject(s.cors)) fail(`${key}.cors`, 'must be an object {origins}');
    checkStringArray(s.cors.origins, `${key}.cors.origins`);
  }
}

/** Checks `createEngine`'s `embedders`; returns their ids. */
function validateEmbedders(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail('embedders', 'must be an array of embedders');
  const ids: string[] = [];
  v.forEach((e: unknown, i: number) => {
    const k = `embedders[${i}]`;
    if (!isObject(e)) fail(k, 'must be an object {id, version, dimensions, embed}');
    checkString(e.id, `${k}.id`);
    if (!/^[A-Za-z0-9._-]+$/.test(e.id as string)) fail(`${k}.id`, 'may hold only letters, digits, ".", "_" and "-"');
    if (e.id === TEXT_MODEL_ID || ids.includes(e.id as string)) fail(`${k}.id`, `repeats "${String(e.id)}"`);
    checkString(e.version, `${k}.version`);
    checkNumber(e.dimensions, `${k}.dimensions`, { integer: true, min: 1 });
    if (typeof e.embed !== 'function') fail(`${k}.embed`, 'must be a function (texts) => Float32Array[]');
    ids.push(e.id as string);
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
  if (!isObject(raw)) fail('(root)', 'must be a JSON object');
  // A misspelt key would otherwise be ignored silently (e.g. "websties": no website at all).
  checkKnownKeys(raw, ['dataDir', 'store', 'workers', 'poolThreshold', 'embedders', 'semanticRetrainDelayMs', 'websites', 'adminTokens'], '');
  const models = [TEXT_MODEL_ID, ...validateEmbedders(raw.embedders)];
  checkString(raw.dataDir, 'dataDir', { optional: true });
  checkNumber(raw.workers, 'workers', { optional: true, min: 0, integer: true });
  checkNumber(raw.poolThreshold, 'poolThreshold', { optional: true, min: 0, integer: true });
  checkNumber(raw.semanticRetrainDelayMs, 'semanticRetrainDelayMs', { optional: true, min: 0 });
  checkStringArray(raw.adminTokens, 'adminTokens', { optional: true });
  if (raw.store !== undefined) {
    const st = raw.store;
    if (!isObject(st)) fail('store', 'must be an object with a type');
    if (st.type === 'embedded') {
      checkKnownKeys(st, ['type', 'path'], 'store.');
      checkString(st.path, 'store.path', { optional: true });
    } else if (st.type === 'postgres') {
      checkKnownKeys(st, ['type', 'url', 'schema', 'pollIntervalMs'], 'store.');
      checkString(st.url, 'store.url');
      checkString(st.schema, 'store.schema', { optional: true });
      checkNumber(st.pollIntervalMs, 'store.pollIntervalMs', { optional: true, min: 10, integer: true });
    } else if (st.type !== 'memory') fail('store.type', 'must be "embedded", "postgres" or "memory"');
  }
  if (raw.websites !== undefined) {
    if (!Array.isArray(raw.websites)) fail('websites', 'must be an array');
    const ids = new Set<string>();
    const tokens = new Set<string>();
    // The coupon call names a website by its id or its client shortcode: each name must pick one website.
    const names = new Map<string, number>();
    raw.websites.forEach((w: unknown, i: number) => {
      if (isObject(w) && typeof w.websiteId === 'string') names.set(w.websiteId, i);
    });
    const clients = new Set<string>();
    raw.websites.forEach((w: unknown, i: number) => {
      const k = `websites[${i}]`;
      if (!isObject(w)) fail(k, 'must be an object');
      checkKnownKeys(w, ['websiteId', 'client', 'tokens', 'hmacSecret', 'settings'], `${k}.`);
      checkString(w.websiteId, `${k}.websiteId`);
      checkString(w.client, `${k}.client`);
      checkStringArray(w.tokens, `${k}.tokens`);
      checkString(w.hmacSecret, `${k}.hmacSecret`);
      if (ids.has(w.websiteId as string)) fail(`${k}.websiteId`, `repeats "${String(w.websiteId)}"`);
      ids.add(w.websiteId as string);
      const client = w.client as string;
      if (clients.has(client)) fail(`${k}.client`, `repeats "${client}" (a client shortcode names exactly one website)`);
      const other = names.get(client);
      if (other !== undefined && other !== i) fail(`${k}.client`, `"${client}" is the websiteId of websites[${other}] (a client shortcode names exactly one website)`);
      clients.add(client);
      for (const [j, t] of (w.tokens as string[]).entries()) {
        if (tokens.has(t)) fail(`${k}.tokens[${j}]`, 'is already used by another website (a token opens exactly one website)');
        tokens.add(t);
      }
      validateSettings(w.settings, `${k}.settings`, models);
    });
  }
  return raw as EngineOptions;
}
