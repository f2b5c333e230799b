/**
 * The two wire shapes this package translates between: aisle's search request and response (as in
 * docs/http-api.md, `POST /v1.4/search`) and the subset of Algolia's multi-query request and response
 * that InstantSearch.js sends and reads. Kept here, without imports, so the package runs in any browser.
 * @module
 */

/**
 * A text scope condition: accepted values (any of them), `{not: [...]}`, or `{all, any?, not?}` (every
 * value of `all`, one of `any`, none of `not`; `all` or `any` given).
 */
export type AisleTextScope = string[] | { not: string[] } | { all: string[]; any?: string[]; not?: string[] } | { any: string[]; not?: string[] };
/** A numeric scope condition (inclusive bounds; `not` excludes values). */
export interface AisleNumericScope {
  min?: number;
  max?: number;
  not?: number[];
}
/** One `sort_fields` element: `{<field>: {order, type}}`. */
export type AisleSortField = Record<string, { order: 'asc' | 'desc'; type: 'number' | 'text' }>;

/** aisle's search request body. */
export interface AisleSearchRequest {
  website_id: string;
  client: string;
  q: string;
  start: number;
  size: number;
  customer_id?: string;
  /** The shopper's session (clicks and conversions are counted under it). */
  session_id?: string;
  scope?: Record<string, AisleTextScope | AisleNumericScope>;
  aggregations?: string[];
  /** Fields whose counts ignore their own scope condition (docs/design.md, "Search request and response"). */
  disjunctive_facets?: string[];
  range_fields?: string[];
  /** Numeric field → strictly ascending bounds: counts per band (docs/http-api.md, `range_buckets`). */
  range_buckets?: Record<string, number[]>;
  /** Names of the website's hierarchies to count as trees (`settings.hierarchies`). */
  hierarchical_facets?: string[];
  /** Search the values of one field (`payload.facet_hits`). */
  facet_search?: { field: string; q: string; size?: number };
  sort_fields?: AisleSortField[];
  /** Ask for `_highlight` on each result. */
  highlight?: boolean;
  /** Variants: one result per product group (the website's `settings.distinct`); absent: the website's default. */
  distinct?: boolean;
}

/** One product of aisle's `payload.result`. */
export interface AisleProduct {
  refId: string;
  /** `{field: "text with <em>…</em>"}` when the request asked for highlighting. */
  _highlight?: Record<string, string>;
  /** Distinct searches: how many products of this result's group match, itself included. */
  _variants?: number;
  [field: string]: unknown;
}

/** One band of aisle's `payload.range_buckets.<field>`: `from` inclusive, `to` exclusive. */
export interface AisleRangeBucket {
  from?: number;
  to?: number;
  count: number;
}

/** aisle's search response. */
export interface AisleSearchResponse {
  type: number;
  /** The id of this result page: clicks on its products name it. */
  query_id: string;
  payload: {
    result: AisleProduct[];
    total_results: number;
    aggregations?: Record<string, { key: string; doc_count: number }[]>;
    ranges?: Record<string, { min: number | null; max: number | null }>;
    range_buckets?: Record<string, AisleRangeBucket[]>;
    hierarchical_aggregations?: Record<string, AisleHierarchyNode[]>;
    facet_hits?: AisleFacetHit[];
    suggestions?: { corrected_query?: string; dropped_words?: string[]; queries?: string[] };
    redirects?: { url?: string };
  };
  settings?: { ats_model?: string; ranked_by?: string[] };
}

/** aisle's error envelope. */
export interface AisleErrorBody {
  type: number;
  code: number;
  message: string;
}

/** aisle's click event (`POST /3.0/events/clicks`). */
export interface AisleClickEvent {
  eventTime: string;
  refId: string;
  type: 'click' | 'addToCart';
  queryId?: string;
  position?: number;
  clickId?: string;
}

/** aisle's clicks request body. */
export interface AisleClickRequest {
  customerId: string;
  sessionId: string;
  events: AisleClickEvent[];
}

/** One node of aisle's `hierarchical_aggregations.<name>`: its level value, its path ("A > B"), its count, and on the refined path its children. */
export interface AisleHierarchyNode {
  value: string;
  path: string;
  count: number;
  children?: AisleHierarchyNode[];
}

/** One hit of aisle's `facet_hits`: the value HTML-escaped with `<em>…</em>` marks in `highlighted`. */
export interface AisleFacetHit {
  value: string;
  count: number;
  highlighted: string;
}

/** One query of InstantSearch's search-for-facet-values call (a searchable refinementList). */
export interface AlgoliaFacetQuery {
  indexName: string;
  params: AlgoliaSearchParams & { facetName: string; facetQuery?: string; maxFacetHits?: number };
}

/** The answer to one {@link AlgoliaFacetQuery}. */
export interface AlgoliaFacetResult {
  facetHits: { value: string; highlighted: string; count: number }[];
  exhaustiveFacetsCount: boolean;
  processingTimeMS: number;
}

/** One facet filter of Algolia's `facetFilters`: `"field:value"`, `"field:-value"`, or an OR group. */
export type FacetFilter = string | string[];

/** The search parameters InstantSearch sends (the ones this client reads; others are ignored). */
export interface AlgoliaSearchParams {
  query?: string;
  page?: number;
  hitsPerPage?: number;
  facets?: string | string[];
  facetFilters?: FacetFilter | FacetFilter[];
  numericFilters?: string | (string | string[])[];
  filters?: string;
  highlightPreTag?: string;
  highlightPostTag?: string;
  analytics?: boolean;
  clickAnalytics?: boolean;
  maxValuesPerFacet?: number;
  /** Algolia's distinct: `true`/`1` one hit per group, `false`/`0` every variant (aisle shows at most one per group). */
  distinct?: boolean | number;
  [param: string]: unknown;
}

/** One query of InstantSearch's multi-query request. */
export interface AlgoliaQuery {
  indexName: string;
  params?: AlgoliaSearchParams;
}

/** One highlighted attribute of Algolia's `_highlightResult`. */
export interface HighlightResult {
  value: string;
  matchLevel: 'none' | 'partial' | 'full';
  matchedWords: string[];
  fullyHighlighted?: boolean;
}

/** One hit of an Algolia response: the product plus `objectID`, `_highlightResult`, and the insights fields. */
export interface AlgoliaHit {
  objectID: string;
  /** The result page's id (aisle's `query_id`). */
  __queryID?: string;
  /** 1-based position of the hit in the whole result list. */
  __position?: number;
  _highlightResult?: Record<string, HighlightResult>;
  [field: string]: unknown;
}

/** One result of Algolia's multi-query response, as InstantSearch reads it. */
export interface AlgoliaSearchResult {
  index: string;
  query: string;
  params: string;
  hits: AlgoliaHit[];
  nbHits: number;
  page: number;
  nbPages: number;
  hitsPerPage: number;
  processingTimeMS: number;
  exhaustiveNbHits: boolean;
  exhaustiveFacetsCount: boolean;
  /** The result page's id (aisle's `query_id`), as Algolia answers with `clickAnalytics`. */
  queryID?: string;
  facets?: Record<string, Record<string, number>>;
  facets_stats?: Record<string, { min: number; max: number; avg: number; sum: number }>;
  /**
   * aisle's extras: the query suggestions, redirect and semantic model of the answer, and the counts per
   * band of the numeric fields given `rangeBuckets` (a range slider's histogram).
   */
  aisle?: {
    suggestions?: AisleSearchResponse['payload']['suggestions']; redirects?: { url?: string }; atsModel?: string;
    rangeBuckets?: Record<string, AisleRangeBucket[]>;
  };
}
