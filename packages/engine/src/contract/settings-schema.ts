/**
 * The website settings as one JSON schema: every key, its shape and its limits. The config file,
 * `createEngine`, `engine.updateSettings` and the settings API are all checked against it (config.ts
 * adds the few rules a schema cannot state), the known-keys lists are read from it, and the adapter
 * publishes it in its OpenAPI document. A key added to the settings is added here, once.
 * @module
 */
import { Type, type Static, type TSchema, type SchemaOptions } from '@sinclair/typebox';
import { MAX_RERANK_WEIGHT, MAX_RETENTION_DAYS, MAX_TYPO_WORD_SIZE, RELEVANCE_LIMITS, RULE_LIMITS, SUGGESTION_LIMITS } from './limits.js';
import { ScopeConditionSchema } from './scope-schema.js';

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
const SemanticSearchSchema = Type.Union([Type.Boolean(), closed({ model: opt(name()), weight: opt(weight()) })], {
  description: 'true | false | {model: string, weight: number >= 0} (docs/semantic-search.md).',
});

const SynonymSchema = Type.Union([
  Type.Array(word(), { minItems: 2, maxItems: RELEVANCE_LIMITS.wordsPerEntry }),
  closed({ from: word(), to: Type.Array(word(), { minItems: 1, maxItems: RELEVANCE_LIMITS.wordsPerEntry }) }),
]);

const typoWordSize = () => Type.Integer({ minimum: 1, maximum: MAX_TYPO_WORD_SIZE });

const RuleSchema = closed({
  id: name(),
  query: Type.String({ description: '"" with match "contains" applies to every query.' }),
  match: opt(oneOf(['exact', 'contains'] as const)),
  pin: opt(Type.Array(closed({ refId: name(), position: Type.Integer({ minimum: 1 }) }), { maxItems: RULE_LIMITS.pins })),
  hide: opt(names({ maxItems: RULE_LIMITS.hides })),
  boost: opt(Type.Array(closed({
    scope: dict(ScopeConditionSchema, { description: 'Same syntax as the search request\'s scope.' }),
    weight: Type.Number({ exclusiveMinimum: 0, description: '> 1 boosts, < 1 buries.' }),
  }), { maxItems: RULE_LIMITS.boosts })),
  from: opt(dateTime()),
  until: opt(dateTime()),
});

const cost = () => opt(Type.Number({ minimum: 0 }));
const AdSetSchema = Type.Object({
  adSetId: name(), version: Type.Integer({ minimum: 0 }), products: names(),
  costPerClick: cost(), costPerAction: cost(), costPerMille: cost(),
  bannerId: opt(name()), placementId: opt(name()),
});

const FieldRolesSchema = closed({
  category: opt(Type.Union([name(), names()])),
  brand: opt(name()), type: opt(name()), price: opt(name()),
  attributes: opt(names()), ignore: opt(names()),
}, { description: 'Which product fields Similar Attributes and personalization read (docs/recommendations.md).' });

const SuggestionsSchema = closed({
  minSessions: opt(Type.Integer({ minimum: 1, maximum: SUGGESTION_LIMITS.minSessions, description: 'Distinct sessions a logged query needs to be offered (default 3).' })),
  exclude: opt(Type.Array(word(), { maxItems: SUGGESTION_LIMITS.exclude, description: 'Words or phrases (case-insensitive) no offered completion may contain.' })),
}, { description: 'Completions taken from the search log (docs/operations.md, "Suggestions").' });

const retentionDays = () => opt(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }));
const EventRetentionSchema = closed(
  { searches: retentionDays(), recommendations: retentionDays(), views: retentionDays(), purchases: retentionDays() },
  { description: 'Days raw rows of each kind are kept (roll-ups are kept): searches and recommendations (logged responses), views, purchases (docs/operations.md, "Retention").' },
);

/** The kinds of raw rows `eventRetentionDays` names, read from its schema (the one list). */
export const RETENTION_KINDS = Object.keys(EventRetentionSchema.properties) as (keyof Static<typeof EventRetentionSchema>)[];

/** The settings of one website; every key optional. */
export const WebsiteSettingsSchema = closed({
  personalization: opt(PersonalizationSchema),
  semanticSearch: opt(SemanticSearchSchema),
  fieldWeights: opt(dict(Type.Number({ minimum: 0 }), { description: 'BM25F weight per text field (0: the field does not match).' })),
  synonyms: opt(Type.Array(SynonymSchema, {
    maxItems: RELEVANCE_LIMITS.synonyms,
    description: 'Groups of equivalent words or phrases (["tv", "television"], two-way) and one-way {from, to: [...]} entries.',
  })),
  language: opt(Type.String({ description: 'Stemming and default stop words: en (default), da, de, es, fi, fr, it, nl, no, pt, ru, sv.' })),
  stopWords: opt(Type.Array(word(), { maxItems: RELEVANCE_LIMITS.stopWords, description: 'Added to the language\'s default stop words.' })),
  typoTolerance: opt(closed(
    { enabled: opt(Type.Boolean()), minWordSizeOneTypo: opt(typoWordSize()), minWordSizeTwoTypos: opt(typoWordSize()) },
    { description: 'Edits allowed by word length (defaults: enabled, 1 edit from 4 letters, 2 from 8).' },
  )),
  ranking: opt(closed({
    tieBreakers: opt(Type.Array(
      closed({ field: name(), order: oneOf(['asc', 'desc'] as const), type: opt(oneOf(['number', 'text'] as const)) }),
      { maxItems: RELEVANCE_LIMITS.tieBreakers },
    )),
  }, { description: 'tieBreakers: keys applied after relevance and after sort_fields.' })),
  redirects: opt(Type.Array(Type.Object({ queries: names(), url: name() }))),
  rules: opt(Type.Array(RuleSchema, { maxItems: RULE_LIMITS.rules, description: 'Merchandising rules (docs/operations.md, "Merchandising rules").' })),
  retailMedia: opt(closed({
    adSets: Type.Array(AdSetSchema),
    slotPosition: opt(Type.Integer({ minimum: 0 })),
    placements: opt(dict(Type.Union([Type.Integer({ minimum: 0 }), Type.Literal(false)]), {
      description: 'Per recommendation method: the 0-based slot position, or false for none.',
    })),
  })),
  fieldRoles: opt(FieldRolesSchema),
  retailBoost: opt(Type.Object({ collections: Type.Array(Type.Object({ campaignId: name(), products: names() })) })),
  cors: opt(Type.Object({ origins: names() })),
  attributionWindowDays: opt(Type.Number({ minimum: 0 })),
  useStyleIdForVisualSimilarity: opt(Type.Boolean()),
  suggestions: opt(SuggestionsSchema),
  eventRetentionDays: opt(EventRetentionSchema),
}, {
  description: 'A website\'s settings (every key described in docs/operations.md, "Website settings"). GET answers every key, '
    + 'defaults filled in; PUT replaces; PATCH merges (JSON Merge Patch, RFC 7396: null removes a key). An unknown key or a '
    + 'bad value answers 400 naming the key.',
});

/** The settings as the schema types them (config.ts checks at compile time that its documented interfaces agree). */
export type WebsiteSettingsData = Static<typeof WebsiteSettingsSchema>;

/** The known keys of the settings, read from the schema (the one list). */
export const WEBSITE_SETTINGS_KEYS = Object.keys(WebsiteSettingsSchema.properties) as (keyof WebsiteSettingsData)[];
