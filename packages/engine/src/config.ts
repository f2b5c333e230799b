/**
 * The configuration shared by `createEngine` and the config file (see docs/operations.md): its
 * validation, where a bad value fails with a message naming its key, and its types, re-exported from
 * the contract, which derives them from the configuration and settings schemas (contract/config-schema.ts,
 * contract/settings-schema.ts): each key is declared there, once.
 * @module
 */
import { AisleError, fieldError } from './errors.js';
import { makeDirectorySync } from './util/make-directory.js';
import type { Embedder } from './semantic/embedder.js';
import { TEXT_MODEL_ID } from './semantic/text-model.js';
import { HISTORY_METHODS, METHODS } from './recommend/methods.js';
import { EngineOptionsSchema, PG_SCHEMA_NAME } from './contract/config-schema.js';
import { WebsiteSettingsSchema } from './contract/settings-schema.js';
import { checkAgainst } from './contract/validate.js';
import { checkGivenSettings, validateRelevanceSettings } from './search/relevance-settings.js';
import { AVAILABILITY_FIELD, IMAGE_VECTOR_FIELD } from './catalog/field-values.js';

export type {
  StoreConfig, WebsiteConfig, EngineOptions,
} from './contract/config-schema.js';
export type {
  AdSetConfig, RetailBoostCollectionConfig, RedirectRule, PersonalizationSetting, SemanticSearchSetting, RulePin, RuleBoost,
  MerchandisingRule, RetailMediaSettings, FieldRoles, WebsiteSettings, SuggestionSettings, EventRetentionDays, RetentionKind,
} from './contract/settings-schema.js';
import type { EngineOptions } from './contract/config-schema.js';
import type {
  FieldRoles, MerchandisingRule, PersonalizationSetting, RetailMediaSettings, SemanticSearchSetting, WebsiteSettings,
} from './contract/settings-schema.js';

export { RULE_LIMITS, MAX_RERANK_WEIGHT } from './contract/limits.js';

/**
 * The defaults of {@link FieldRoles}: the spec's own field names (service interface: `search_category`,
 * `brand`, `type`, `price`). Similar Attributes and personalization both read them from here.
 */
export const DEFAULT_FIELD_ROLES: Readonly<Required<Omit<FieldRoles, 'attributes'>>> = {
  category: 'search_category', brand: 'brand', type: 'type', price: 'price', image: 'image_url', ignore: [],
};

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
  (rm.adSets ?? []).forEach((a, i) => {
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
  if (s.fields !== undefined) checkPinnedFields(s.fields, `${key}.fields`);
  // A hierarchy is named in requests (hierarchical_facets, scope keys): an empty name names nothing.
  if (s.hierarchies !== undefined && Object.hasOwn(s.hierarchies, '')) fail(`${key}.hierarchies`, 'has an empty name: a hierarchy is named in requests');
}

/**
 * The pins the reserved fields refuse (docs/http-api.md, "PUT …/products"): their meaning is not a setting.
 * `refId` is a text key; `availability` an integer stock count, which the in-stock scope (`{not: [0]}`)
 * and `filterOutOfStock` read as a number (pinned to text, every search with that scope answered 400);
 * `image_vector` a vector, which facets, scopes and sorts never read.
 */
function checkPinnedFields(fields: NonNullable<WebsiteSettings['fields']>, key: string): void {
  if (Object.hasOwn(fields, 'refId')) fail(`${key}.refId`, 'cannot be pinned: refIds are always text keys');
  const availability = Object.hasOwn(fields, AVAILABILITY_FIELD) ? fields[AVAILABILITY_FIELD] : undefined;
  if (availability !== undefined && availability.type !== 'number') {
    fail(`${key}.${AVAILABILITY_FIELD}`, `can be pinned only to type number: ${AVAILABILITY_FIELD} is an integer stock count (0 out of stock)`);
  }
  if (Object.hasOwn(fields, IMAGE_VECTOR_FIELD)) fail(`${key}.${IMAGE_VECTOR_FIELD}`, 'cannot be pinned: image vectors are for visual similarity, not for facets, scopes or sorts');
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

/** True for a connection string the PostgreSQL driver reads as one: a URL of its schemes, or a socket directory. */
function isPostgresUrl(url: string): boolean {
  if (url.startsWith('/')) return true;
  try {
    return ['postgres:', 'postgresql:', 'socket:'].includes(new URL(url).protocol);
  } catch {
    return false; // not a URL: the caller names the key
  }
}

/**
 * What a bearer token may hold: visible ASCII. A client sends it in an `Authorization` header, read
 * without its surrounding spaces and as Latin-1, so a token with a space, a control character or a
 * letter beyond ASCII was accepted here and then could never open anything.
 */
const TOKEN_CHARACTERS = /^[\x21-\x7E]+$/;
const TOKEN_RULE = 'must hold only visible ASCII characters, no spaces (it is sent in an Authorization header)';

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
  if (options.store?.type === 'postgres' && !isPostgresUrl(options.store.url)) {
    // The driver read "secret" as a host name "base" (getaddrinfo ENOTFOUND base), and "postgres://h:x/db"
    // failed the start with a bare "Invalid URL"; the message leaves the value out, which may hold a password.
    fail('store.url', 'must be a PostgreSQL connection URL: postgres://user:password@host:5432/database (or postgresql://, socket:, or a socket directory /path)');
  }
  if (options.store?.type === 'postgres' && options.store.schema !== undefined && !PG_SCHEMA_NAME.test(options.store.schema)) {
    // It was refused only when the store opened, as a STORE_FAILURE ("retry later") naming no key.
    fail('store.schema', 'must be letters, digits and _, not starting with a digit, at most 63 characters');
  }
  const adminTokens = new Set(options.adminTokens ?? []);
  (options.adminTokens ?? []).forEach((t, i) => {
    if (!TOKEN_CHARACTERS.test(t)) fail(`adminTokens[${i}]`, TOKEN_RULE);
  });
  websites.forEach((w, i) => {
    const k = `websites[${i}]`;
    if (ids.has(w.websiteId)) fail(`${k}.websiteId`, `repeats "${w.websiteId}"`);
    ids.add(w.websiteId);
    if (clients.has(w.client)) fail(`${k}.client`, `repeats "${w.client}" (a client shortcode names exactly one website)`);
    const other = idIndex.get(w.client);
    if (other !== undefined && other !== i) fail(`${k}.client`, `"${w.client}" is the websiteId of websites[${other}] (a client shortcode names exactly one website)`);
    clients.add(w.client);
    w.tokens.forEach((t, j) => {
      if (!TOKEN_CHARACTERS.test(t)) fail(`${k}.tokens[${j}]`, TOKEN_RULE);
      if (tokens.has(t)) fail(`${k}.tokens[${j}]`, 'is already used by another website (a token opens exactly one website)');
      // The admin API would take it too: whoever holds the storefront's token could change every website.
      if (adminTokens.has(t)) fail(`${k}.tokens[${j}]`, 'is also an admin token (a website token opens exactly one website, never the admin API)');
      tokens.add(t);
    });
    validateSettings(w.settings, `${k}.settings`, models);
    checkGivenSettings(w.settings, `${k}.settings`, 'CONFIG_INVALID');
  });
  return options;
}

/**
 * Creates `dir` (the data directory, or a directory inside it) as `makeDirectorySync` (util/make-directory.ts) does.
 * @throws {AisleError} `CONFIG_INVALID` naming the data directory and the system's reason: a data
 *   directory that is a file, read-only, or under /proc is the configuration's fault, not an
 *   "unexpected error".
 */
export function makeDataDirectory(dataDir: string, dir: string = dataDir): void {
  try {
    makeDirectorySync(dir);
  } catch (err) {
    throw new AisleError('CONFIG_INVALID', `config: dataDir ${dataDir} cannot hold aisle's files: ${(err as Error).message}`, { cause: err });
  }
}
