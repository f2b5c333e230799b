/**
 * Validation of the purchase request body (`POST {events_url}/3.0/events/purchases`). Pure: returns the
 * normalised request or throws a {@link ValidationError} listing every failure under its path
 * (`customerId`, `events[0].OrderId`, `events[0].Products[0].RefId`, …). See docs/events-and-stores.md.
 * @module
 */
import type { PriceBeatPromotionData, PurchaseEventData, PurchaseProductData, RetailMediaData } from '../store/store.js';
import { parseIsoDateTime } from '../contract/formats.js';
import { isRecord, type ErrorCollector } from './validate-common.js';
import { checkEventBody, normaliseValues } from './event-body.js';

export {
  MAX_EVENTS_PER_REQUEST, MAX_PRODUCTS_PER_EVENT, MAX_PROMOTIONS_PER_EVENT, MAX_QUANTITY, MAX_COUPON_CODE_LENGTH, MAX_HMAC_LENGTH,
} from '../contract/limits.js';

/** A validated purchase request. */
export interface ValidPurchaseRequest {
  /** Lower-cased GUID. */
  customerId: string;
  /** Lower-cased GUID. */
  sessionId: string;
  events: PurchaseEventData[];
}

/** The retail-media fields a product may send flat (the fields of the schema's `if`/`then` rule). */
const RETAIL_MEDIA_FIELDS = ['adSetId', 'adSetVersion', 'costPerClick', 'costPerAction', 'costPerMille', 'timeStamp', 'hmacSalt', 'hmac', 'bannerId', 'placementId'] as const;
const COST_FIELDS = ['costPerClick', 'costPerAction', 'costPerMille'] as const;

/** A product as the schema and value normalisation leave it (flat retail media, decimals as numbers). */
type CheckedProduct = Omit<PurchaseProductData, 'price' | 'retailMedia'> & Partial<Record<(typeof RETAIL_MEDIA_FIELDS)[number], unknown>> & {
  price: number; retailMedia?: RetailMediaData; retailBoost?: { retailBoostCollectionCampaignId: string };
};
type CheckedEvent = Omit<PurchaseEventData, 'eventTimeMs' | 'products' | 'priceBeatPromotions'> & {
  products: CheckedProduct[]; priceBeatPromotions?: PriceBeatPromotionData[];
};
interface CheckedRequest { customerId: string; sessionId: string; events: CheckedEvent[] }

const records = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map((x) => (isRecord(x) ? x : {})) : []);
const lower = (v: unknown): string | undefined => (typeof v === 'string' ? v.toLowerCase() : undefined);

/**
 * The rules between fields that the schema does not word well: retail media flat or nested (not both)
 * with at least one cost, one retailer-boost id, one order per id. They read the camelCase body before
 * the schema's verdict (so they are listed with its failures) and look only at values of the right type.
 */
function checkCrossFieldRules(body: Record<string, unknown>, errors: ErrorCollector, eventsKey: string): void {
  const firstIndexOfOrder = new Map<string, number>();
  records(body.events).forEach((event, i) => {
    const path = `${eventsKey}[${i}]`;
    records(event.products).forEach((p, j) => {
      const productPath = `${path}.Products[${j}]`;
      const flat = RETAIL_MEDIA_FIELDS.some((name) => p[name] !== undefined);
      const nested = isRecord(p.retailMedia) ? p.retailMedia : undefined;
      if (flat && p.retailMedia !== undefined) errors.add(`${productPath}.RetailMedia`, 'Send retail-media data either as product fields or as a RetailMedia object, not both.');
      const costsOf = flat ? p : nested;
      if (costsOf !== undefined && COST_FIELDS.every((name) => costsOf[name] === undefined)) {
        errors.add(flat ? productPath : `${productPath}.RetailMedia`, 'Retail-media data needs at least one of CostPerClick, CostPerAction, CostPerMille.');
      }
      const boost = lower(isRecord(p.retailBoost) ? p.retailBoost.retailBoostCollectionCampaignId : undefined);
      const flatBoost = lower(p.retailBoostCollectionCampaignId);
      if (boost !== undefined && flatBoost !== undefined && flatBoost !== boost) {
        errors.add(`${productPath}.RetailBoost`, 'RetailBoost.RetailBoostCollectionCampaignId differs from RetailBoostCollectionCampaignId.');
      }
    });
    if (typeof event.orderId !== 'string') return;
    const first = firstIndexOfOrder.get(event.orderId);
    if (first !== undefined) errors.add(`${path}.OrderId`, `The OrderId repeats ${eventsKey}[${first}].OrderId; an order appears once per request.`);
    else firstIndexOfOrder.set(event.orderId, i);
  });
}

const RETAIL_MEDIA_NAMES: ReadonlySet<string> = new Set(RETAIL_MEDIA_FIELDS);

/** The stored form of a checked product (pure): retail media and retailer boost in one place each. */
function toProductData(p: CheckedProduct): PurchaseProductData {
  // One pass over the product's keys (every purchase line goes through here).
  const product: Record<string, unknown> = {};
  let hasFlat = false;
  for (const name of Object.keys(p)) {
    if (name === 'retailBoost' || name === 'retailMedia') continue;
    if (RETAIL_MEDIA_NAMES.has(name)) hasFlat ||= p[name as keyof CheckedProduct] !== undefined;
    else product[name] = p[name as keyof CheckedProduct];
  }
  if (p.retailBoost !== undefined) product.retailBoostCollectionCampaignId = p.retailBoost.retailBoostCollectionCampaignId;
  let media = p.retailMedia;
  if (media === undefined && hasFlat) {
    const flat: Record<string, unknown> = {};
    for (const name of RETAIL_MEDIA_FIELDS) if (p[name] !== undefined) flat[name] = p[name];
    media = flat as unknown as RetailMediaData;
  }
  if (media !== undefined) product.retailMedia = media;
  return product as unknown as PurchaseProductData;
}

/** The stored form of a checked event (pure): currency upper-cased, event time in ms, promotions listed. */
function toEventData(e: CheckedEvent): PurchaseEventData {
  const { orderId, currentUrl, eventTime, currencyCode, products, priceBeatPromotions, ...rest } = e;
  return {
    orderId, currentUrl, eventTime, eventTimeMs: parseIsoDateTime(eventTime)!, ...rest,
    ...(currencyCode !== undefined && { currencyCode: currencyCode.toUpperCase() }),
    products: products.map(toProductData),
    priceBeatPromotions: priceBeatPromotions ?? [],
  };
}

/**
 * Validates a purchase request body against the contract's `PurchaseRequest` schema. Field names are
 * camelCase as in the spec; PascalCase is accepted too (camelCase wins when both are sent); unknown
 * fields are ignored; `null` counts as absent.
 * @throws {ValidationError} listing every failure (up to {@link MAX_LISTED_ERRORS} paths).
 */
export function validatePurchaseRequest(body: unknown): ValidPurchaseRequest {
  const { value, errors, sentAs } = checkEventBody('PurchaseRequest', body);
  checkCrossFieldRules(value, errors, sentAs.get('events') ?? 'events');
  errors.throwIfAny();
  const request = normaliseValues<CheckedRequest>('PurchaseRequest', value);
  return { customerId: request.customerId, sessionId: request.sessionId, events: request.events.map(toEventData) };
}

export { MAX_LISTED_ERRORS } from './validate-common.js';
