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
  /**
   * Fields whose aggregation counts ignore the field's own scope condition (other conditions still
   * apply): the counts a shopper would add by also picking a sibling value. A field listed here is
   * aggregated even when `aggregations` does not name it.
   */
  disjunctive_facets?: string[];
  /** When true, each result item carries `_highlight: {<field>: "text with <em>…</em>"}` for the text fields that matched. */
  highlight?: boolean;
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

/**
 * A decimal on the events wire: a JSON number, or a string such as `"12.50"` (shops often send money
 * as strings). Validated and converted at run time.
 */
export type WireDecimal = number | string;

/** Retail-media data of a purchased product, echoed from the sponsored slot it was clicked in. */
export interface PurchaseRetailMedia {
  adSetId: string;
  adSetVersion: number;
  costPerClick?: WireDecimal;
  costPerAction?: WireDecimal;
  costPerMille?: WireDecimal;
  timeStamp: string;
  hmacSalt: string;
  hmac: string;
  bannerId?: string;
  placementId?: string;
}

/** One product line of a purchase event. */
export interface PurchaseProductBody extends Partial<PurchaseRetailMedia> {
  refId: string;
  quantity: number;
  price: WireDecimal;
  routeId?: string;
  widgetId?: string;
  recommenderId?: string;
  campaignId?: string;
  tacticId?: string;
  clickId?: string;
  supplierId?: string;
  retailBoostCollectionCampaignId?: string;
  referralUrl?: string;
  tacticLabel?: string;
  atsModel?: string;
  /** The slot's retail-media object, instead of the flat fields (not both). */
  retailMedia?: PurchaseRetailMedia;
  /** The slot's retailer-boost object, instead of the flat field. */
  retailBoost?: { retailBoostCollectionCampaignId: string };
}

/** One purchase event (one order) of a purchase request. */
export interface PurchaseEventBody {
  currentUrl: string;
  /** ISO 8601 date-time. */
  eventTime: string;
  orderId: string;
  currencyCode?: string;
  paymentMethod?: string;
  recommenderId?: string;
  campaignId?: string;
  tacticId?: string;
  products: PurchaseProductBody[];
  priceBeatPromotions?: { code: string; discount: WireDecimal }[];
}

/**
 * The purchase request body (`POST {events_url}/3.0/events/purchases`), in the spec's camelCase. The
 * engine validates every body at run time (PascalCase names are accepted too, `null` counts as absent),
 * so a parsed JSON body from elsewhere may be passed with a cast.
 */
export interface PurchaseRequest {
  /** A GUID. */
  customerId: string;
  /** A GUID. */
  sessionId: string;
  events: PurchaseEventBody[];
}

/** One view event of a views request. */
export interface ViewEventBody {
  currentUrl: string;
  /** ISO 8601 date-time. */
  eventTime: string;
  refId: string;
  referralUrl?: string;
  recommenderId?: string;
  tacticId?: string;
  clickId?: string;
}

/** The views request body (extension `POST {events_url}/3.0/events/views`); validated like purchases. */
export interface ViewRequest {
  /** A GUID. */
  customerId: string;
  /** A GUID. */
  sessionId: string;
  events: ViewEventBody[];
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
  /**
   * Calls `listener` after every new version is swapped in (derived indexes start their rebuild then,
   * not at the first look-up). Returns a function that removes the listener. Optional: without it,
   * derived indexes notice a change at their next look-up.
   */
  onNewVersion?(listener: () => void): () => void;
}
