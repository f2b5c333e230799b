/**
 * Wire-level and cross-module types shared by the engine's parts.
 * Modules depend on these shapes, never on each other's internals.
 * @module
 */

export type {
  NumericScope, TextScope, ScopeCondition, ScopeConditions, SortFieldSpec, SearchRequest, FacetBucket, NumericRange, RangeBucket, HierarchyNode, FacetHit, SearchPayload, SearchResponse,
  RetailMediaSlotData, RecommendationSlot, RecommendResponse, BundleRequest, BundleResponse, WireDecimal, PurchaseRetailMedia,
  PurchaseLineFields, PurchaseProductBody, PurchaseEventBody, PurchaseRequest, ViewEventBody, ViewRequest, EventAck, ProblemDetails,
  ErrorEnvelope, BulkDeleteRequest, BulkDeleteResult, ClickEventBody, ClickRequest, ClickType, ResultListKind,
} from './contract/schemas.js';
import type { ClickType, ResultListKind } from './contract/schemas.js';

/**
 * What the click hook receives (events/click-attribution.ts makes them): a click (or add-to-cart) on a
 * result list once it is durable, and a purchased line once it is attributed to such a click
 * (`type: 'purchase'`, with its revenue).
 */
/**
 * The experiment a clicked list was served under: the experiment, the variant served (`"interleaved"`
 * for an interleaved list), the customer it was assigned to and, for an interleaved list, the variant
 * credited with the click (`team`: the one whose ranking placed the clicked item).
 */
export interface OutcomeExperiment {
  id: string;
  variant: string;
  customerId: string;
  team?: string;
}

export interface ClickOutcome {
  websiteId: string;
  /** Event time (ms since the epoch): the click's, or the purchase's. */
  at: number;
  kind: ResultListKind;
  /** The id of the clicked list (`query_id` / `queryId`). */
  queryId?: string;
  /** The normalised query, for a search result list. */
  query?: string;
  /** The method (canonical spelling; `bundle`), for a recommendation list. */
  method?: string;
  /** The list's experiment variant (null outside experiments; `"interleaved"` for an interleaved list). */
  variant: string | null;
  /** The experiment the list was served under, when it was. */
  experiment?: OutcomeExperiment;
  tacticId?: string;
  /** 1-based position of the clicked product in its list. */
  position?: number;
  type: ClickType | 'purchase';
  /** price × quantity of the purchased line (purchases only). */
  revenue?: number;
}

// Synonym entries are declared once, with the settings schema; the catalog reads them from here.
export type { OneWaySynonym, SynonymEntry } from './contract/settings-schema.js';

/** A product as given by the shop: a string `refId` plus any JSON fields, returned exactly as given. */
export interface Product {
  refId: string;
  [field: string]: unknown;
}

/**
 * The products of a catalog version in order, read one at a time (a catalog may keep them encoded and
 * decode each on read: hold what you need of a product, not the product). `revision(i)` names the
 * product's version: equal for an unchanged product across catalog versions, new when it changed, so
 * what was derived from a product can be keyed by it.
 */
export interface ProductList {
  readonly length: number;
  get(i: number): Product;
  revision(i: number): number;
  /**
   * The products' image vectors as the catalog keeps them (optional): what visual similarity reads in
   * place of a copy of its own. Absent: read them from the products.
   */
  readonly imageVectors?: ImageVectorRows;
}

/**
 * Image vectors (`image_vector`) as rows of float32s: product `i` of a {@link ProductList} has its
 * vector at `data[rowOf(i) * dimension ..]`, `dimension` numbers (`rowOf(i)` -1: no vector). Each
 * row is the product's vector as given, rounded to float32. Never written to.
 */
export interface ImageVectorRows {
  readonly dimension: number;
  readonly data: Float32Array;
  rowOf(i: number): number;
}

export type { RecommendParams } from './contract/query-schemas.js';

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
  /** The live products of the current version, in catalog order (captured when called). */
  liveProducts(): ProductList;
  /**
   * {@link liveProducts} as steps (a generator yielding between steps; the version is captured when
   * called): a catalog with deleted or moved products lists its live docs in a pass over every doc,
   * which a background build then runs in its time slices instead of in one go (40–60 ms at a million).
   * Optional: without it, builds call {@link liveProducts}.
   */
  liveProductsSteps?(): Generator<void, ProductList, void>;
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
