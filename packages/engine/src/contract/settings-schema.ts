/**
 * The website settings as one JSON schema: every key, its shape, its limits and its meaning. The
 * config file, `createEngine`, `engine.updateSettings` and the settings API are all checked against it
 * (config.ts adds the few rules a schema cannot state), the known-keys lists are read from it, the
 * adapter publishes it in its OpenAPI document, and the TypeScript types of the settings are derived
 * from it (`Static<>`): a key added to the settings is added here, once.
 * @module
 */
import { Type, type Static, type TSchema, type SchemaOptions } from '@sinclair/typebox';
import { CLICK_RANKING_LIMITS, HIERARCHY_LIMITS, MAX_AD_SET_VERSION, MAX_DECIMAL, MAX_RERANK_WEIGHT, MAX_RETENTION_DAYS, MAX_TYPO_WORD_SIZE, RELEVANCE_LIMITS, RULE_LIMITS, SETTINGS_LIMITS, SUGGESTION_LIMITS } from './limits.js';
import { ScopeConditionSchema } from './scope-schema.js';

/** The types `settings.fields` can pin a field to (catalog/field-types.ts says what fits each). */
export const FIELD_TYPES = ['text', 'number', 'boolean', 'text[]', 'number[]'] as const;

const opt = Type.Optional;
const closed = <T extends Record<string, TSchema>>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
const dict = <T extends TSchema>(value: T, options: SchemaOptions = {}) =>
  Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: value, ...options });
const oneOf = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
/** A non-empty string (ids, field names, URLs). */
const name = (options: SchemaOptions = {}) => Type.String({ minLength: 1, ...options });
/** A word or phrase: not blank. */
const word = () => Type.String({ pattern: '\\S' });
const names = (options: SchemaOptions = {}) => Type.Array(name(), options);
const weight = () => Type.Number({ minimum: 0, maximum: MAX_RERANK_WEIGHT });
const dateTime = () => Type.String({ description: 'ISO 8601 date-time.' });

const PersonalizationSchema = Type.Union([Type.Boolean(), closed({ weight: opt(weight()) })], {
  description: 'true | false | {weight: number >= 0} (docs/personalization.md).',
});

/** `settings.personalization`: off, on with the default weight, or on with a weight. */
export type PersonalizationSetting = Static<typeof PersonalizationSchema>;

const SemanticSearchSchema = Type.Union([Type.Boolean(), closed({ model: opt(name()), weight: opt(weight()) })], {
  description: 'true | false | {model: string, weight: number >= 0} (docs/semantic-search.md).',
});

/** `settings.semanticSearch`: off, on with the built-in model, or a model (an embedder id) and a weight. */
export type SemanticSearchSetting = Static<typeof SemanticSearchSchema>;

const ClickRankingSchema = Type.Union([Type.Boolean(), closed({
  weight: opt(weight()),
  minSessions: opt(Type.Integer({
    minimum: 1, maximum: CLICK_RANKING_LIMITS.minSessions,
    description: 'Distinct sessions that must have searched a query (first page) before its clicks re-rank it (default 5).',
  })),
  halfLifeDays: opt(Type.Number({
    exclusiveMinimum: 0, maximum: CLICK_RANKING_LIMITS.halfLifeDays, description: 'Days after which a shopper\'s evidence counts half (default 30).',
  })),
})], {
  description: 'false (default) | true | {weight, minSessions, halfLifeDays}: re-orders the top of the results of queries searched in '
    + 'at least minSessions sessions by position-debiased clicks, add-to-carts and conversions (docs/learning.md). GET shows the '
    + 'defaults filled in (weight 1, minSessions 5, halfLifeDays 30).',
});

/** `settings.clickRanking`: off, on with the defaults, or on with some keys set. */
export type ClickRankingSetting = Static<typeof ClickRankingSchema>;

const OneWaySynonymSchema = closed({ from: word(), to: Type.Array(word(), { minItems: 1, maxItems: RELEVANCE_LIMITS.wordsPerEntry }) });

/** A one-way synonym: a query for `from` (a word or phrase) also finds each of `to`, not the reverse. */
export type OneWaySynonym = Static<typeof OneWaySynonymSchema>;

const SynonymSchema = Type.Union([Type.Array(word(), { minItems: 2, maxItems: RELEVANCE_LIMITS.wordsPerEntry }), OneWaySynonymSchema]);

/** A synonym entry: a group of equivalent words or phrases (two-way), or a one-way rule. */
export type SynonymEntry = Static<typeof SynonymSchema>;

const typoWordSize = () => Type.Integer({ minimum: 1, maximum: MAX_TYPO_WORD_SIZE });

const TypoToleranceSchema = closed(
  { enabled: opt(Type.Boolean()), minWordSizeOneTypo: opt(typoWordSize()), minWordSizeTwoTypos: opt(typoWordSize()) },
  { description: 'Edits allowed by word length (defaults: enabled, 1 edit from 4 letters, 2 from 8).' },
);

/** Typo tolerance: a query word of `minWordSizeOneTypo`+ letters may have 1 edit, of `minWordSizeTwoTypos`+ 2. */
export type TypoToleranceSettings = Static<typeof TypoToleranceSchema>;

const TieBreakerSchema = closed({
  field: name(), order: oneOf(['asc', 'desc'] as const),
  type: opt(oneOf(['number', 'text'] as const)),
});

/** A tie-breaker: a field compared after relevance (and after `sort_fields`); `type` (how values compare) is `number` by default. */
export type TieBreaker = Static<typeof TieBreakerSchema>;

const RankingSchema = closed({
  tieBreakers: opt(Type.Array(TieBreakerSchema, { maxItems: RELEVANCE_LIMITS.tieBreakers })),
}, { description: 'tieBreakers: keys applied after relevance and after sort_fields.' });

/** Ranking settings. */
export type RankingSettings = Static<typeof RankingSchema>;

const RedirectSchema = Type.Object({
  queries: names({ maxItems: SETTINGS_LIMITS.queriesPerRedirect }),
  url: Type.String({ format: 'web-url', description: 'An http(s) URL or a path on the shop\'s own site (/sale).' }),
});

/** A redirect rule: when the normalised query equals one of `queries`, `payload.redirects.url` is set. */
export type RedirectRule = Static<typeof RedirectSchema>;

const RulePinSchema = closed({
  refId: name(),
  position: Type.Integer({ minimum: 1, maximum: SETTINGS_LIMITS.pinPosition, description: '1-based; a position beyond the list puts the product last.' }),
});

/** A product placed at a 1-based position of the ranked list by a {@link MerchandisingRule}. */
export type RulePin = Static<typeof RulePinSchema>;

const RuleBoostSchema = closed({
  scope: dict(ScopeConditionSchema, { description: 'Same syntax as the search request\'s scope.' }),
  weight: Type.Number({ exclusiveMinimum: 0, maximum: SETTINGS_LIMITS.boostWeight, description: '> 1 boosts, < 1 buries.' }),
});

/** Multiplies the relevance of the products its scope selects: weight > 1 boosts, 0 < weight < 1 buries. */
export type RuleBoost = Static<typeof RuleBoostSchema>;

const RuleSchema = closed({
  id: name(),
  query: Type.String({ description: '"" with match "contains" applies to every query.' }),
  match: opt(oneOf(['exact', 'contains'] as const)),
  pin: opt(Type.Array(RulePinSchema, { maxItems: RULE_LIMITS.pins })),
  hide: opt(names({ maxItems: RULE_LIMITS.hides })),
  boost: opt(Type.Array(RuleBoostSchema, { maxItems: RULE_LIMITS.boosts })),
  from: opt(dateTime()),
  until: opt(dateTime()),
});

/**
 * A merchandising rule (see docs/operations.md, "Merchandising rules"): for the queries it matches
 * and within its time window (`from` inclusive, `until` exclusive), pins, hides, boosts and buries
 * products. `query` is compared with the request's `q` after normalisation (lower case, words joined
 * by one space); `match` is `exact` (default: the normalised query equals the rule's) or `contains`
 * (the rule's words appear as consecutive whole words of the query; `""` applies to every query).
 * Applied after filtering and before paging, so totals and facets agree with the list.
 */
export type MerchandisingRule = Static<typeof RuleSchema>;

const cost = () => opt(Type.Number({ minimum: 0, maximum: MAX_DECIMAL }));
/**
 * An id the slot data hands out and purchases echo unchanged, where the spec types it a GUID (and the
 * purchase endpoint checks it so): any other id made every purchase echoing it a 400, the sale not recorded.
 */
const echoedGuid = (description: string) => Type.String({ format: 'guid', description: `${description} A GUID: purchases echo it.` });
const AdSetSchema = Type.Object({
  adSetId: echoedGuid('The ad set.'), version: Type.Integer({ minimum: 0, maximum: MAX_AD_SET_VERSION }), products: names({ maxItems: SETTINGS_LIMITS.productsPerList }),
  costPerClick: cost(), costPerAction: cost(), costPerMille: cost(),
  bannerId: opt(echoedGuid('The banner, when shown in a banner slot.')), placementId: opt(echoedGuid('The placement.')),
});

/** A retail-media ad set: sponsored products and their costs. */
export type AdSetConfig = Static<typeof AdSetSchema>;

const RetailMediaSchema = closed({
  adSets: opt(Type.Array(AdSetSchema, { maxItems: SETTINGS_LIMITS.adSets })),
  slotPosition: opt(Type.Integer({ minimum: 0, maximum: SETTINGS_LIMITS.slotPosition, description: 'Default 0-based position of the sponsored slot (default 2).' })),
  placements: opt(dict(Type.Union([Type.Integer({ minimum: 0, maximum: SETTINGS_LIMITS.slotPosition }), Type.Literal(false)]), {
    description: 'Per recommendation method: the 0-based slot position, or false for none.',
  })),
});

/**
 * `settings.retailMedia`: the ad sets and where their sponsored slot goes (docs/recommendations.md,
 * "Retail media"). `placements` is keyed by canonical method name (`"ProductDetail"`); methods not
 * listed use `slotPosition`; RecentlyViewed and HistoricViewed (a customer's own history) never carry
 * one and may not be listed.
 */
export type RetailMediaSettings = Static<typeof RetailMediaSchema>;

const FieldRolesSchema = closed({
  // No description on this union: ajv's message for a value fitting neither form would quote it.
  category: opt(Type.Union([name(), names({ maxItems: SETTINGS_LIMITS.fieldNames })])),
  brand: opt(name({ description: 'Default "brand".' })),
  type: opt(name({ description: 'Default "type".' })),
  price: opt(name({ description: 'Price field: only refines the ranking of products that share an attribute. Default "price".' })),
  image: opt(name({
    description: 'Field holding the product\'s image URL (https: or a path on the server): what the dashboard shows beside '
      + 'a product\'s title; never an attribute. Default "image_url".',
  })),
  attributes: opt(names({
    maxItems: SETTINGS_LIMITS.fieldNames,
    description: 'Further attribute fields (top-level, or attributes.<key>). When absent, every other top-level text or boolean '
      + 'field of at most 60 characters is an attribute (numbers only when listed).',
  })),
  ignore: opt(names({ maxItems: SETTINGS_LIMITS.fieldNames, description: 'Fields never read as attributes.' })),
}, { description: 'Which product fields Similar Attributes and personalization read (docs/recommendations.md).' });

/**
 * `settings.fieldRoles`: which product fields Similar Attributes (and personalization) read. Nothing in
 * the engine is tuned to one data set's field names: a website names its own. `category` is the
 * category field, or several (an array value is a path, root first; deeper levels weigh more),
 * default `"search_category"`.
 */
export type FieldRoles = Static<typeof FieldRolesSchema>;

const RetailBoostCollectionSchema = Type.Object({ campaignId: echoedGuid('The campaign (retailBoostCollectionCampaignId).'), products: names({ maxItems: SETTINGS_LIMITS.productsPerList }) });

/** A retailer-boost collection: products boosted under a campaign. */
export type RetailBoostCollectionConfig = Static<typeof RetailBoostCollectionSchema>;

const SuggestionsSchema = closed({
  minSessions: opt(Type.Integer({ minimum: 1, maximum: SUGGESTION_LIMITS.minSessions, description: 'Distinct sessions a logged query needs to be offered (default 3).' })),
  exclude: opt(Type.Array(word(), { maxItems: SUGGESTION_LIMITS.exclude, description: 'Words or phrases (case-insensitive) no offered completion may contain.' })),
}, { description: 'Completions taken from the search log (docs/operations.md, "Suggestions").' });

const retentionDays = () => opt(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }));
const EventRetentionSchema = closed(
  { searches: retentionDays(), recommendations: retentionDays(), views: retentionDays(), purchases: retentionDays(), clicks: retentionDays() },
  { description: 'Days raw rows of each kind are kept (roll-ups and the models\' checkpointed state are kept): searches and recommendations (logged responses), views, purchases, clicks (docs/operations.md, "Retention").' },
);

/** The kinds of raw rows `eventRetentionDays` names, read from its schema (the one list). */
export const RETENTION_KINDS = Object.keys(EventRetentionSchema.properties) as (keyof Static<typeof EventRetentionSchema>)[];

/** `settings.suggestions`: completions from the search log (defaults: minSessions 3, exclude []). */
export type SuggestionSettings = Static<typeof SuggestionsSchema>;

/** `settings.eventRetentionDays`: days per kind of raw rows (defaults in docs/operations.md, "Retention"). */
export type EventRetentionDays = Static<typeof EventRetentionSchema>;

/** A kind of raw rows that `eventRetentionDays` names. */
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** How `settings.distinct` counts facets: per matching product (default) or per group (a group once per value). */
export const DISTINCT_FACET_COUNTS = ['products', 'groups'] as const;

const DistinctSchema = Type.Union([
  Type.Literal(false),
  closed({
    field: name({ description: 'The field shared by a product group\'s variants (a style id): one result per value.' }),
    facetCounts: opt(oneOf(DISTINCT_FACET_COUNTS)),
  }, {
    description: 'facetCounts: "products" (default) counts every matching product; "groups" counts a group once per value when any of its matching '
      + 'products has it (aggregations, buckets, hierarchical aggregations, facet hits; min/max stay over products).',
  }),
], { description: 'Variants: one search result per value of `field` (docs/http-api.md, "Variants"); false (default): every product is its own result.' });

/** `settings.distinct` when it names a field (the `false` form excluded). */
export type DistinctSettings = Exclude<Static<typeof DistinctSchema>, false>;

const HierarchySchema = Type.Union([
  closed({
    field: name({ description: 'The field holding the path: one string of levels joined by `separator`, or (without separator) an array of levels, root first.' }),
    separator: opt(Type.String({ minLength: 1, maxLength: HIERARCHY_LIMITS.separatorLength, pattern: '\\S', description: 'Between the levels of the field\'s path string, e.g. " > ".' })),
  }),
  closed({ fields: names({ minItems: 1, maxItems: HIERARCHY_LIMITS.levels, uniqueItems: true, description: 'One field per level, root first; each holds that level\'s own value.' }) }),
]);

/**
 * One hierarchy of `settings.hierarchies` (docs/http-api.md, "Hierarchical facets"): a path string
 * split by `separator`, one field per level (`fields`), or an array of levels (`field` alone).
 */
export type HierarchySetting = Static<typeof HierarchySchema>;

/** The settings of one website; every key optional. */
export const WebsiteSettingsSchema = closed({
  personalization: opt(PersonalizationSchema),
  semanticSearch: opt(SemanticSearchSchema),
  clickRanking: opt(ClickRankingSchema),
  fieldWeights: opt(dict(Type.Number({ minimum: 0, maximum: SETTINGS_LIMITS.fieldWeight }), { description: 'BM25F weight per text field (0: the field does not match).' })),
  synonyms: opt(Type.Array(SynonymSchema, {
    maxItems: RELEVANCE_LIMITS.synonyms,
    description: 'Groups of equivalent words or phrases (["tv", "television"], two-way) and one-way {from, to: [...]} entries.',
  })),
  language: opt(Type.String({ description: 'Stemming and default stop words: en (default), da, de, es, fi, fr, it, nl, no, pt, ru, sv.' })),
  stopWords: opt(Type.Array(word(), { maxItems: RELEVANCE_LIMITS.stopWords, description: 'Added to the language\'s default stop words.' })),
  typoTolerance: opt(TypoToleranceSchema),
  ranking: opt(RankingSchema),
  redirects: opt(Type.Array(RedirectSchema, { maxItems: SETTINGS_LIMITS.redirects })),
  rules: opt(Type.Array(RuleSchema, { maxItems: RULE_LIMITS.rules, description: 'Merchandising rules (docs/operations.md, "Merchandising rules").' })),
  retailMedia: opt(RetailMediaSchema),
  fieldRoles: opt(FieldRolesSchema),
  fields: opt(dict(closed({ type: oneOf(FIELD_TYPES) }), {
    description: 'Pinned field types: a value that does not fit is a per-record error of the load or patch, and the field '
      + 'never changes kind (docs/http-api.md, "Pinned field types"). Fields not listed keep the inferred kind.',
  })),
  distinct: opt(DistinctSchema),
  hierarchies: opt(dict(HierarchySchema, {
    maxProperties: HIERARCHY_LIMITS.hierarchies,
    description: 'Category trees by name: {field, separator} (one path string), {fields: [per level]} or {field} (an array of levels). '
      + 'A search names one in hierarchical_facets and in scope (paths written "A > B"); docs/http-api.md, "Hierarchical facets".',
  })),
  retailBoost: opt(Type.Object({ collections: opt(Type.Array(RetailBoostCollectionSchema, { maxItems: SETTINGS_LIMITS.collections })) })),
  cors: opt(Type.Object({
    origins: opt(Type.Array(Type.String({ format: 'web-origin' }), { maxItems: SETTINGS_LIMITS.corsOrigins, description: '"*" or origins (https://shop.example).' })),
  })),
  currency: opt(Type.String({
    format: 'currency-code',
    description: 'The website\'s currency (ISO 4217, e.g. "EUR"; any case). Revenue figures of every report add only purchases in it or stating '
      + 'no currencyCode; purchases in another currency are counted apart (docs/http-api.md, "Currencies"). Unset: only purchases stating no currencyCode.',
  })),
  attributionWindowDays: opt(Type.Number({
    minimum: 0, maximum: SETTINGS_LIMITS.attributionWindowDays, description: 'Trailing window in days within which retail-media slot data is honoured by purchases (default 30).',
  })),
  useStyleIdForVisualSimilarity: opt(Type.Boolean({ description: 'Visual similarity is looked up by style id rather than product id.' })),
  suggestions: opt(SuggestionsSchema),
  eventRetentionDays: opt(EventRetentionSchema),
}, {
  description: 'A website\'s settings (every key described in docs/operations.md, "Website settings"). GET answers every key, '
    + 'defaults filled in at every depth; PUT replaces; PATCH merges (JSON Merge Patch, RFC 7396: null at any depth restores that key\'s default). An unknown key or a '
    + 'bad value answers 400 naming the key.',
});

/**
 * Per-website settings; every key is optional (each key's meaning: its description in
 * {@link WebsiteSettingsSchema}, and docs/operations.md, "Website settings").
 */
export type WebsiteSettings = Static<typeof WebsiteSettingsSchema>;

/** The known keys of the settings, read from the schema (the one list). */
export const WEBSITE_SETTINGS_KEYS = Object.keys(WebsiteSettingsSchema.properties) as (keyof WebsiteSettings)[];

/**
 * Every array bound of a JSON schema, walking properties, items, unions and maps; `Infinity` for an
 * array without `maxItems`. Pure.
 */
export function arrayBounds(schema: unknown): number[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  const out: number[] = [];
  if (s.type === 'array') out.push(typeof s.maxItems === 'number' ? s.maxItems : Infinity);
  const children = [s.items, s.additionalProperties, ...Object.values((s.properties as object | undefined) ?? {}),
    ...((s.anyOf as unknown[] | undefined) ?? []), ...((s.oneOf as unknown[] | undefined) ?? []), ...((s.allOf as unknown[] | undefined) ?? [])];
  for (const child of children) out.push(...arrayBounds(child));
  return out;
}

/**
 * The longest array a settings body may hold, read from the schema (every array in it is bounded):
 * the settings endpoint reads its body with at least this array limit, so the documented limits are
 * the enforced ones over HTTP too.
 */
export const SETTINGS_MAX_ARRAY_ITEMS: number = Math.max(...arrayBounds(WebsiteSettingsSchema));
