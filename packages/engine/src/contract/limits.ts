/**
 * Every size and count limit of the wire contract, declared once. The JSON schemas of the contract
 * (schemas.ts) read them, the engine's remaining checks read them, and the adapter publishes them
 * through the schemas in its OpenAPI document: nothing else writes these numbers.
 * @module
 */

/** Largest accepted search `size` (results per page). */
export const MAX_SEARCH_SIZE = 1000;
/** Default search `size` when the request has none. */
export const DEFAULT_SEARCH_SIZE = 20;
/** Longest accepted `q`, in UTF-16 code units. */
export const MAX_QUERY_LENGTH = 1000;
/** Most keys in `scope` and `range_buckets`, entries in `aggregations`, `range_fields`, `disjunctive_facets`, `sort_fields`. */
export const MAX_REQUEST_FIELDS = 100;
/** Most bounds of one `range_buckets` field (a price slider has a few dozen bands at most). */
export const MAX_RANGE_BOUNDS = 100;
/**
 * `settings.hierarchies` limits: most hierarchies per website, most levels of one (`fields`), longest
 * separator; and most nodes listed per level of `payload.hierarchical_aggregations` (the contract's 100).
 */
export const HIERARCHY_LIMITS = { hierarchies: 20, levels: 20, separatorLength: 16, nodesPerLevel: 100 } as const;
/** `facet_search.size`: default and largest number of `payload.facet_hits`. */
export const FACET_SEARCH_SIZE = { default: 10, max: 100 } as const;
/** Most values in one scope condition list (`[...]` or `not`). */
export const MAX_SCOPE_VALUES = 10_000;

/** Largest bundle `setCount`. */
export const MAX_SET_COUNT = 20;
/** Default bundle `setCount` (the spec's default). */
export const DEFAULT_SET_COUNT = 1;
/** Largest bundle `count`, and most `product_ref_ids`. */
export const MAX_BUNDLE_COUNT = 100;

/** Default recommendation list length. */
export const DEFAULT_COUNT = 10;
/** Largest recommendation list length. */
export const MAX_COUNT = 100;
/**
 * Most cart items (`items`) of one recommendation request. The engine refuses more, however it is
 * called; the HTTP listener's `maxQueryItems` can only lower it (its query decoder reads this bound
 * from the schema).
 */
export const MAX_CART_ITEMS = 100;

/** Most events in one purchase request. */
export const MAX_EVENTS_PER_REQUEST = 100;
/** Most events in one views request. */
export const MAX_VIEWS_PER_REQUEST = 500;
/** Most products in one purchase event. */
export const MAX_PRODUCTS_PER_EVENT = 500;
/** Most price-beat promotion codes in one purchase event. */
export const MAX_PROMOTIONS_PER_EVENT = 50;
/** Largest quantity of one product line. */
export const MAX_QUANTITY = 1_000_000;
/** Longest price-beat promotion code. */
export const MAX_COUPON_CODE_LENGTH = 128;
/** Longest `hmac` value (a hex HMAC-SHA256 has 64). */
export const MAX_HMAC_LENGTH = 256;
/** Longest id-like string (orderId, refId, paymentMethod, tacticLabel, atsModel, codes…), in characters (code points, as JSON Schema's maxLength counts; the coupon-issue field checks count UTF-16 units). */
export const MAX_ID_LENGTH = 256;
/** Most refIds of one bulk delete (`POST …/products/delete`); a larger cleanup is several calls, or a scope. */
export const MAX_BULK_DELETE_REFIDS = 10_000;

/**
 * Largest body of a bulk delete, in bytes: {@link MAX_BULK_DELETE_REFIDS} refIds of the longest length
 * ({@link MAX_ID_LENGTH} characters of up to 4 UTF-8 bytes, quoted, comma-separated), plus 64 KiB for the
 * rest. A listener reads this body with this limit when its own is lower.
 */
export const MAX_BULK_DELETE_BYTES = MAX_BULK_DELETE_REFIDS * (MAX_ID_LENGTH * 4 + 3) + 64 * 1024;

/** Longest URL (currentUrl, referralUrl), in characters (code points, as JSON Schema's maxLength counts). */
export const MAX_URL_LENGTH = 2048;
/**
 * Longest configured interval or quiet time (ms): Node's timers take at most 2^31 - 1 ms (24.8 days)
 * and run a longer one after 1 ms, so `pollIntervalMs: 1e12` meant "as often as possible".
 */
export const MAX_TIMER_MS = 2_147_483_647;
/** Largest retail-media ad-set version (a signed 32-bit integer). */
export const MAX_AD_SET_VERSION = 2_147_483_647;
/** Largest accepted decimal magnitude (prices, discounts, costs). */
export const MAX_DECIMAL = 1e12;
/** A decimal sent as a string (`"12.50"`): at most 15 integer and 12 fraction digits. */
export const DECIMAL_STRING_PATTERN = '^[+-]?\\d{1,15}(?:\\.\\d{1,12})?$';

/** Largest re-rank weight (personalization, semantic search): far past the point where the signal alone decides the order. */
export const MAX_RERANK_WEIGHT = 100;
/** Most rules per website, and most entries of one rule's lists (a settings body stays small). */
export const RULE_LIMITS = { rules: 1_000, pins: 100, hides: 1_000, boosts: 20 } as const;
/** Most synonym entries, stop words and tie-breakers of a website, and most words in one synonym entry. */
export const RELEVANCE_LIMITS = { synonyms: 10_000, stopWords: 10_000, tieBreakers: 10, wordsPerEntry: 100 } as const;
/**
 * `settings.suggestions` limits: largest `minSessions` (also how many distinct sessions a query's
 * completion evidence keeps: past it, more sessions change nothing), most `exclude` entries.
 */
export const SUGGESTION_LIMITS = { minSessions: 20, exclude: 10_000 } as const;
/**
 * `settings.clickRanking` limits: largest `minSessions` (the distinct sessions a query's search-log
 * evidence keeps, {@link SUGGESTION_LIMITS}), longest `halfLifeDays` (ten years).
 */
export const CLICK_RANKING_LIMITS = { minSessions: SUGGESTION_LIMITS.minSessions, halfLifeDays: 3_650 } as const;
/**
 * The rest of the settings' sizes and magnitudes, so that every array and number of a settings body is
 * bounded by the schema (the settings endpoint reads its body with the schema's largest array bound,
 * derived from it). Field weights and boost weights far past the point where one field or rule alone
 * decides the order; positions past any page a shopper reads.
 */
export const SETTINGS_LIMITS = {
  redirects: 1_000, queriesPerRedirect: 100, adSets: 1_000, productsPerList: 10_000, collections: 1_000,
  corsOrigins: 100, fieldNames: 100, fieldWeight: 1_000, boostWeight: 1_000, pinPosition: 10_000,
  attributionWindowDays: 3_650, slotPosition: 1_000,
} as const;
/** Longest `settings.eventRetentionDays` value (ten years). */
export const MAX_RETENTION_DAYS = 3_650;
/** Largest `typoTolerance` word size. */
export const MAX_TYPO_WORD_SIZE = 1000;

/** Default and largest `limit` of the searches report (entries of each list). */
export const SEARCH_REPORT_LIMITS = { default: 20, max: 1_000 } as const;

/** Most variants of one experiment (the control included). */
export const MAX_EXPERIMENT_VARIANTS = 10;
/** Longest experiment or variant name. */
export const MAX_EXPERIMENT_NAME_LENGTH = 200;
/** Largest relative weight of a variant. */
export const MAX_VARIANT_WEIGHT = 1000;
/** Most experiments one website keeps (stopped ones included; delete stopped ones to make room). */
export const MAX_EXPERIMENTS_PER_WEBSITE = 1000;
