/**
 * The recommendation methods of the spec table: canonical segment, parameters and tactic order.
 *
 * Segments are matched case-insensitively (`productdetail` and `ProductDetail` are the same method;
 * the response's `recommenderId` is derived from the canonical spelling). Anything else is
 * `UNKNOWN_METHOD` (404).
 * @module
 */
import { AisleError, fieldError } from '../errors.js';
import { RecommendQuerySchema, type RecommendParams } from '../contract/query-schemas.js';
import { checkAgainst } from '../contract/validate.js';
import { customerKey } from '../contract/formats.js';

/** Tactic labels (the spec's names, used in `slots[].tacticLabel`). */
export const TacticLabels = {
  viewedWith: 'Viewed With',
  boughtWith: 'Bought With',
  visuallySimilar: 'Visually Similar',
  viewedWithRecentlyViewed: 'Viewed With Recently Viewed',
  boughtWithRecentlyViewed: 'Bought With Recently Viewed',
  boughtWithCartContents: 'Bought With Cart Contents',
  recentlyViewed: 'Recently Viewed',
  historicViewed: 'Historic Viewed',
  popularItems: 'Popular Items',
  jaccardViewedTogether: 'Jaccard Items Viewed Together',
  similarAttributes: 'Similar Attributes',
  viewedTogether: 'Viewed Together',
  boughtTogether: 'Bought Together',
} as const;

/** One tactic key of {@link TacticLabels}. */
export type TacticKey = keyof typeof TacticLabels;

/**
 * Which parameter a method needs. `productOrCustomer` (ProductDetail): a productRef, cart items or a
 * customerId; `itemsOrCustomer` (Cart): cart items or a customerId — an empty cart of a known shopper
 * is answered by the cascade's customer tactics (recently viewed, …) and Popular Items.
 */
export type RequiredParam = 'customerId' | 'productRef' | 'items' | 'productRefOrStyle' | 'productOrCustomer' | 'itemsOrCustomer' | 'none';

/** A method of the spec table. */
export interface MethodSpec {
  /** Canonical segment, as in the spec. */
  name: RecommendMethod;
  required: RequiredParam;
  /**
   * Tactic order. One tactic: the method lists only what that tactic finds (possibly fewer than
   * `count`, possibly nothing). Several (a hybrid): the first tactic with a result leads and the later
   * ones complete the list up to `count` (each slot names its tactic).
   */
  tactics: readonly TacticKey[];
  /**
   * Items the customer viewed in the latest session are set aside by every tactic except the history
   * tactics themselves (Recently Viewed, Historic Viewed): the shopper has seen them already.
   */
  skipSessionItems?: boolean;
  /** The list is the customer's own history (RecentlyViewed, HistoricViewed): never a sponsored slot. */
  ownHistory?: boolean;
  /** Needs `productStyleId` when the website sets `useStyleIdForVisualSimilarity`. */
  styleWhenConfigured?: boolean;
}

const PRODUCT_PAGE: readonly TacticKey[] = [
  'viewedWith', 'boughtWith', 'visuallySimilar', 'viewedWithRecentlyViewed', 'boughtWithCartContents', 'recentlyViewed', 'popularItems',
];

/** The seventeen methods, in the spec's order: the one method table (the adapter's routes and docs derive from it). */
const METHOD_TABLE = [
  { name: 'Personalized', required: 'customerId', skipSessionItems: true, tactics: ['viewedWithRecentlyViewed', 'boughtWithRecentlyViewed', 'recentlyViewed', 'popularItems'] },
  { name: 'ProductDetail', required: 'productOrCustomer', skipSessionItems: true, tactics: PRODUCT_PAGE },
  { name: 'Cart', required: 'itemsOrCustomer', skipSessionItems: true, tactics: PRODUCT_PAGE },
  { name: 'ViewedTogetherAttributes', required: 'productRef', tactics: ['jaccardViewedTogether', 'similarAttributes', 'popularItems'] },
  { name: 'ViewedTogetherVisuallySimilar', required: 'productRef', styleWhenConfigured: true, tactics: ['jaccardViewedTogether', 'visuallySimilar', 'popularItems'] },
  { name: 'SimilarAttributesViewedTogether', required: 'productRef', tactics: ['similarAttributes', 'jaccardViewedTogether', 'popularItems'] },
  { name: 'VisuallySimilarViewedTogether', required: 'productRef', styleWhenConfigured: true, tactics: ['visuallySimilar', 'jaccardViewedTogether', 'popularItems'] },
  { name: 'PopularItems', required: 'none', tactics: ['popularItems'] },
  { name: 'ViewedTogether', required: 'productRef', tactics: ['viewedTogether'] },
  { name: 'BoughtTogether', required: 'productRef', tactics: ['boughtTogether'] },
  { name: 'OnlyVisuallySimilar', required: 'productRefOrStyle', styleWhenConfigured: true, tactics: ['visuallySimilar'] },
  { name: 'OnlySimilarAttributes', required: 'productRef', tactics: ['similarAttributes'] },
  { name: 'BoughtTogetherCartContent', required: 'items', tactics: ['boughtWithCartContents'] },
  { name: 'BoughtTogetherRecentlyViewed', required: 'customerId', skipSessionItems: true, tactics: ['boughtWithRecentlyViewed'] },
  { name: 'ViewedTogetherRecentlyViewed', required: 'customerId', skipSessionItems: true, tactics: ['viewedWithRecentlyViewed'] },
  { name: 'RecentlyViewed', required: 'customerId', ownHistory: true, tactics: ['recentlyViewed'] },
  { name: 'HistoricViewed', required: 'customerId', ownHistory: true, tactics: ['historicViewed'] },
] as const satisfies readonly (Omit<MethodSpec, 'name'> & { name: string })[];

/** One recommendation method segment (canonical spelling). */
export type RecommendMethod = (typeof METHOD_TABLE)[number]['name'];

/** The seventeen methods, in the spec's order. */
export const METHODS: readonly MethodSpec[] = METHOD_TABLE;

/** The seventeen method segments, in the spec's order. */
export const RECOMMEND_METHODS = METHOD_TABLE.map((m) => m.name) as readonly RecommendMethod[];

/** Methods whose lists are a customer's own history: a sponsored slot is never placed there, whatever the settings say. */
export const HISTORY_METHODS: ReadonlySet<string> = new Set(METHODS.filter((m) => m.ownHistory).map((m) => m.name));

/**
 * Methods that need a `customerId` and nothing else can stand in for it (Personalized, the recently
 * viewed ones): a caller without a customer has nothing to ask them (the dashboard asks for one first).
 */
export const CUSTOMER_METHODS: readonly RecommendMethod[] = METHOD_TABLE.filter((m) => m.required === 'customerId').map((m) => m.name);

const BY_LOWER = new Map(METHODS.map((m) => [m.name.toLowerCase(), m]));
/** The methods by their canonical spelling: what the HTTP adapter passes, found without lowercasing a new string per call. */
const BY_NAME = new Map<string, MethodSpec>(METHODS.map((m) => [m.name, m]));

/** The method of a path segment (case-insensitive), or throws `UNKNOWN_METHOD`. */
export function resolveMethod(segment: string): MethodSpec {
  const spec = typeof segment === 'string' ? BY_NAME.get(segment) ?? BY_LOWER.get(segment.toLowerCase()) : undefined;
  if (!spec) {
    throw new AisleError('UNKNOWN_METHOD', `unknown recommendation method "${String(segment)}" (known: ${METHODS.map((m) => m.name).join(', ')})`, {
      details: { method: segment },
    });
  }
  return spec;
}

/** Default and maximum list length (declared with the contract's other limits). */
export { DEFAULT_COUNT, MAX_COUNT } from '../contract/limits.js';
import { DEFAULT_COUNT } from '../contract/limits.js';

/** Parameters after validation: the contract's, with the defaults filled in (no cart, keep out-of-stock items, {@link DEFAULT_COUNT}). */
export type CheckedParams = Omit<RecommendParams, 'items' | 'filterOutOfStock' | 'count'>
  & Required<Pick<RecommendParams, 'items' | 'filterOutOfStock' | 'count'>>;

function bad(param: string, problem: string): never {
  throw fieldError('RECOMMEND_BAD_PARAMS', param, problem);
}

/** An empty string names nothing (`?customerId=` from a page that has no customer yet). */
const given = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/**
 * Checks the parameters of `spec`: their types and bounds against the contract's recommendation query
 * schema (the one the HTTP adapter decodes the query string with), then what the method needs. Throws
 * `RECOMMEND_BAD_PARAMS` naming the parameter.
 */
export function checkParams(spec: MethodSpec, params: RecommendParams | undefined, useStyleId: boolean): CheckedParams {
  const checked = checkAgainst<RecommendParams>(RecommendQuerySchema, params ?? {}, bad, { self: 'params' });
  const named = given(checked.customerId);
  // Looked up as events recorded it (a GUID in lower case: contract/formats.ts).
  const customerId = named === undefined ? undefined : customerKey(named);
  const productRef = given(checked.productRef);
  const productStyleId = given(checked.productStyleId);
  const items = checked.items ?? [];
  const filter = checked.filterOutOfStock;
  const count = checked.count ?? DEFAULT_COUNT;
  switch (spec.required) {
    case 'customerId':
      if (customerId === undefined) bad('customerId', `is required by ${spec.name}`);
      break;
    case 'productRef':
      if (productRef === undefined) bad('productRef', `is required by ${spec.name}`);
      break;
    case 'items':
      if (items.length === 0) bad('items', `is required by ${spec.name} (at least one RefId as items[0])`);
      break;
    case 'productOrCustomer':
      if (productRef === undefined && items.length === 0 && customerId === undefined) {
        bad('productRef', `is required by ${spec.name} (or cart items[0], … or a customerId)`);
      }
      break;
    case 'itemsOrCustomer':
      if (items.length === 0 && customerId === undefined) bad('items', `are required by ${spec.name} (at least items[0], or a customerId for an empty cart)`);
      break;
    case 'productRefOrStyle':
      if (productRef === undefined && productStyleId === undefined) bad('productRef', `or productStyleId is required by ${spec.name}`);
      break;
    case 'none':
      break;
  }
  if (spec.styleWhenConfigured && useStyleId && productStyleId === undefined) {
    bad('productStyleId', `is required by ${spec.name} because the website uses style ids for visual similarity`);
  }
  return { customerId, productRef, productStyleId, items, filterOutOfStock: filter === true, count };
}
