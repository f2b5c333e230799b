/**
 * Wire-level and cross-module types shared by the engine's parts.
 * Modules depend on these shapes, never on each other's internals.
 * @module
 */

/** A product as given by the shop: a string `refId` plus any JSON fields, returned exactly as given. */
export interface Product {
  refId: string;
  [field: string]: unknown;
}

/** One `sort_fields` element: `{ <field>: { order, type } }`. */
export type SortFieldSpec = Record<string, { order: 'asc' | 'desc'; type: 'number' | 'text' }>;

/** A numeric scope condition (inclusive bounds; `not` is aisle's exclusion extension). */
export interface NumericScope {
  min?: number;
  max?: number;
  not?: number[];
}

/** A text scope condition: a list of accepted values, or aisle's `{not: [...]}` exclusion extension. */
export type TextScope = string[] | { not: string[] };

/** The documented search request body (`POST /v1.4/search`). */
export interface SearchRequest {
  website_id: string;
  client: string;
  q: string;
  start: number;
  size?: number;
  customer_id?: string;
  scope?: Record<string, TextScope | NumericScope>;
  aggregations?: string[];
  range_fields?: string[];
  sort_fields?: SortFieldSpec[];
}

/** One facet bucket of `payload.aggregations.<field>`. */
export interface FacetBucket {
  key: string;
  doc_count: number;
}

/** `payload.ranges.<field>`; both null when no matching product has a value. */
export interface NumericRange {
  min: number | null;
  max: number | null;
}

/** The payload of a successful search response. */
export interface SearchPayload {
  result: Product[];
  total_results: number;
  aggregations?: Record<string, FacetBucket[]>;
  ranges?: Record<string, NumericRange>;
  suggestions: { corrected_query?: string; dropped_words?: string[]; queries?: string[] };
  redirects: { url?: string };
}

/** The documented search response. */
export interface SearchResponse {
  type: 1;
  payload: SearchPayload;
  settings?: { ats_model: string };
}

/** Query parameters of a recommendation method, already parsed from the query string. */
export interface RecommendParams {
  customerId?: string;
  productRef?: string;
  productStyleId?: string;
  /** `items[0]`, `items[1]`, … : RefIds in the cart or to seed with. */
  items?: string[];
  filterOutOfStock?: boolean;
  /** List length; default 10, at most 100. */
  count?: number;
}

/** Retail-media data carried by a sponsored slot and echoed in purchase events. */
export interface RetailMediaSlotData {
  adSetId: string;
  adSetVersion: number;
  costPerClick?: number;
  costPerAction?: number;
  costPerMille?: number;
  timeStamp: string;
  hmacSalt: string;
  hmac: string;
  bannerId?: string;
  placementId?: string;
}

/** One slot of a recommendation response, in the same order as `payload`. */
export interface RecommendationSlot {
  refId: string;
  tacticLabel: string;
  tacticId: string;
  retailMedia?: RetailMediaSlotData;
  retailBoost?: { retailBoostCollectionCampaignId: string };
}

/** The documented recommendation response, with aisle's `slots` and `recommenderId`. */
export interface RecommendResponse {
  type: 1;
  code: 0;
  payload: string[];
  slots: RecommendationSlot[];
  recommenderId: string;
}

/** The bundle request body (`POST …/bundle`). */
export interface BundleRequest {
  product_ref_ids: string[];
  setCount?: number;
  count?: number;
  filter_out_of_stock?: boolean;
}

/** The bundle response: `payload` is a list of bundles, each a list of RefIds. */
export interface BundleResponse {
  type: 1;
  code: 0;
  payload: string[][];
  recommenderId: string;
}

/** The acknowledgement of an accepted (durable) purchase or view request. */
export interface EventAck {
  transactionId: string;
  status: 'Accepted';
}

/** RFC 7807 problem details, as the purchase endpoint returns them. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  errors: Record<string, string[]>;
  traceId: string;
}

/** A view, as the recommendation models consume it (after validation and storage). */
export interface ViewRecord {
  websiteId: string;
  customerId: string;
  sessionId: string;
  refId: string;
  /** Event time, ms since the epoch. */
  eventTime: number;
}

/** A purchase event (one order), as the recommendation models consume it. */
export interface PurchaseRecord {
  websiteId: string;
  customerId: string;
  sessionId: string;
  orderId: string;
  /** Event time, ms since the epoch. */
  eventTime: number;
  items: { refId: string; quantity: number; price: number }[];
}

/**
 * The read-only view of one website's catalog that recommendations and events use.
 * The search catalog implements it.
 */
export interface CatalogView {
  /** Increases on every change, so derived indexes know when to rebuild. */
  readonly version: number;
  /** Number of live (not deleted) products. */
  readonly liveCount: number;
  has(refId: string): boolean;
  /** The product exactly as given, or undefined when unknown or deleted. */
  getProduct(refId: string): Product | undefined;
  /** `availability` is not 0 (a missing availability or -1 counts as in stock). */
  isInStock(refId: string): boolean;
  /** Visits every live product. */
  forEachProduct(visit: (product: Product) => void): void;
  /**
   * True when every change since `version` only changed numeric values of known products (value
   * patches) of fields for which `matters` is false: an index derived from `version` that reads no
   * such field is still exact. Optional: without it, derived indexes rebuild on every change.
   */
  valuesOnlyChangedSince?(version: number, matters: (field: string) => boolean): boolean;
}
