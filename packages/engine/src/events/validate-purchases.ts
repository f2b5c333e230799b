/**
 * Validation of the purchase request body (`POST {events_url}/3.0/events/purchases`). Pure: returns the
 * normalised request or throws a {@link ValidationError} listing every failure under its path
 * (`customerId`, `events[0].OrderId`, `events[0].Products[0].RefId`, …). See docs/events-and-stores.md.
 * @module
 */
import type { PriceBeatPromotionData, PurchaseEventData, PurchaseProductData, RetailMediaData } from '../store/store.js';
import { HMAC_SALT_LENGTH } from '../retail-media/index.js';
import { checkEventEnvelope, ErrorCollector, FieldChecker, MAX_URL_LENGTH, isRecord } from './validate-common.js';

export {
  MAX_EVENTS_PER_REQUEST, MAX_PRODUCTS_PER_EVENT, MAX_PROMOTIONS_PER_EVENT, MAX_QUANTITY, MAX_COUPON_CODE_LENGTH, MAX_HMAC_LENGTH,
} from '../contract/limits.js';
import {
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

const RETAIL_MEDIA_FIELDS = ['adSetId', 'adSetVersion', 'costPerClick', 'costPerAction', 'costPerMille', 'timeStamp', 'hmacSalt', 'hmac'] as const;
const COST_FIELDS = ['costPerClick', 'costPerAction', 'costPerMille'] as const;

function validateRetailMedia(c: FieldChecker, errors: ErrorCollector, objectPath: string): RetailMediaData | undefined {
  const adSetId = c.guid('adSetId', { required: true });
  const adSetVersion = c.integer('adSetVersion', { required: true, min: 0, max: 2_147_483_647 });
  const costs: Partial<Record<(typeof COST_FIELDS)[number], number>> = {};
  let costsOk = true;
  for (const name of COST_FIELDS) {
    if (!c.has(name)) continue;
    const v = c.decimal(name, { min: 0 });
    if (v === undefined) costsOk = false;
    else costs[name] = v;
  }
  if (costsOk && COST_FIELDS.every((name) => !c.has(name))) {
    errors.add(objectPath, 'Retail-media data needs at least one of CostPerClick, CostPerAction, CostPerMille.');
  }
  const timeStamp = c.dateTime('timeStamp', { required: true });
  const hmacSalt = c.string('hmacSalt', { required: true, max: 1024 });
  if (hmacSalt !== undefined && hmacSalt.length !== HMAC_SALT_LENGTH) {
    errors.add(c.path('hmacSalt'), `The HmacSalt field must be exactly ${HMAC_SALT_LENGTH} characters long.`);
  }
  const hmac = c.string('hmac', { required: true, max: MAX_HMAC_LENGTH });
  const bannerId = c.guid('bannerId');
  const placementId = c.guid('placementId');
  if (adSetId === undefined || adSetVersion === undefined || timeStamp === undefined || hmacSalt === undefined
    || hmacSalt.length !== HMAC_SALT_LENGTH || hmac === undefined || !costsOk || Object.keys(costs).length === 0) return undefined;
  return {
    adSetId, adSetVersion, ...costs, timeStamp: timeStamp.text, hmacSalt, hmac,
    ...(bannerId !== undefined && { bannerId }), ...(placementId !== undefined && { placementId }),
  };
}

function validateProduct(value: unknown, path: string, errors: ErrorCollector): PurchaseProductData | undefined {
  if (!isRecord(value)) {
    errors.add(path, 'The product must be a JSON object.');
    return undefined;
  }
  const c = new FieldChecker(value, path, errors);
  const refId = c.string('refId', { required: true });
  const quantity = c.integer('quantity', { required: true, min: 1, max: MAX_QUANTITY });
  const price = c.decimal('price', { required: true, min: 0 });
  const product: Partial<PurchaseProductData> = { refId, quantity, price };
  for (const name of ['routeId', 'widgetId', 'recommenderId', 'campaignId', 'tacticId', 'clickId', 'supplierId', 'retailBoostCollectionCampaignId'] as const) {
    const v = c.guid(name);
    if (v !== undefined) product[name] = v;
  }
  const referralUrl = c.string('referralUrl', { max: MAX_URL_LENGTH });
  if (referralUrl !== undefined) product.referralUrl = referralUrl;
  for (const name of ['tacticLabel', 'atsModel'] as const) {
    const v = c.string(name);
    if (v !== undefined) product[name] = v;
  }

  // Retailer boost: the flat spec field, or a `retailBoost` object echoed from the recommendation slot.
  const boost = c.raw('retailBoost');
  if (boost.value !== undefined) {
    const boostPath = c.path('retailBoost');
    if (!isRecord(boost.value)) errors.add(boostPath, 'The RetailBoost field must be an object.');
    else {
      const id = new FieldChecker(boost.value, boostPath, errors).guid('retailBoostCollectionCampaignId', { required: true });
      if (id !== undefined) {
        if (product.retailBoostCollectionCampaignId !== undefined && product.retailBoostCollectionCampaignId !== id) {
          errors.add(boostPath, 'RetailBoost.RetailBoostCollectionCampaignId differs from RetailBoostCollectionCampaignId.');
        }
        product.retailBoostCollectionCampaignId = id;
      }
    }
  }

  // Retail media: the flat spec fields, or a `retailMedia` object echoed from the recommendation slot.
  const nested = c.raw('retailMedia');
  const flatPresent = RETAIL_MEDIA_FIELDS.some((name) => c.has(name));
  if (nested.value !== undefined) {
    const nestedPath = c.path('retailMedia');
    if (flatPresent) errors.add(nestedPath, 'Send retail-media data either as product fields or as a RetailMedia object, not both.');
    else if (!isRecord(nested.value)) errors.add(nestedPath, 'The RetailMedia field must be an object.');
    else {
      const rm = validateRetailMedia(new FieldChecker(nested.value, nestedPath, errors), errors, nestedPath);
      if (rm !== undefined) product.retailMedia = rm;
    }
  } else if (flatPresent) {
    const rm = validateRetailMedia(c, errors, path);
    if (rm !== undefined) product.retailMedia = rm;
  }
  return product as PurchaseProductData;
}

function validateEvent(value: unknown, path: string, errors: ErrorCollector): PurchaseEventData | undefined {
  if (!isRecord(value)) {
    errors.add(path, 'The event must be a JSON object.');
    return undefined;
  }
  const c = new FieldChecker(value, path, errors);
  const currentUrl = c.string('currentUrl', { required: true, max: MAX_URL_LENGTH });
  const eventTime = c.dateTime('eventTime', { required: true });
  const orderId = c.string('orderId', { required: true });
  const paymentMethod = c.string('paymentMethod');
  const currency = c.string('currencyCode', { max: 64 });
  let currencyCode: string | undefined;
  if (currency !== undefined) {
    if (/^[A-Za-z]{3}$/.test(currency)) currencyCode = currency.toUpperCase();
    else errors.add(c.path('currencyCode'), 'The CurrencyCode field must be a 3-letter ISO 4217 currency code.');
  }
  const recommenderId = c.guid('recommenderId');
  const campaignId = c.guid('campaignId');
  const tacticId = c.guid('tacticId');

  const products: PurchaseProductData[] = [];
  const productList = c.array('products', { required: true, min: 1, max: MAX_PRODUCTS_PER_EVENT });
  if (productList !== undefined) {
    productList.items.forEach((p, i) => {
      const product = validateProduct(p, `${productList.path}[${i}]`, errors);
      if (product !== undefined) products.push(product);
    });
  }
  const priceBeatPromotions: PriceBeatPromotionData[] = [];
  const promoList = c.array('priceBeatPromotions', { min: 0, max: MAX_PROMOTIONS_PER_EVENT });
  if (promoList !== undefined) {
    promoList.items.forEach((p, i) => {
      const promoPath = `${promoList.path}[${i}]`;
      if (!isRecord(p)) {
        errors.add(promoPath, 'The price-beat promotion must be a JSON object.');
        return;
      }
      const pc = new FieldChecker(p, promoPath, errors);
      const code = pc.string('code', { required: true, max: MAX_COUPON_CODE_LENGTH });
      const discount = pc.decimal('discount', { required: true, min: 0 });
      if (code !== undefined && discount !== undefined) priceBeatPromotions.push({ code, discount });
    });
  }
  if (currentUrl === undefined || eventTime === undefined || orderId === undefined) return undefined;
  return {
    orderId, currentUrl, eventTime: eventTime.text, eventTimeMs: eventTime.ms,
    ...(paymentMethod !== undefined && { paymentMethod }), ...(currencyCode !== undefined && { currencyCode }),
    ...(recommenderId !== undefined && { recommenderId }), ...(campaignId !== undefined && { campaignId }),
    ...(tacticId !== undefined && { tacticId }),
    products, priceBeatPromotions,
  };
}

/**
 * Validates a purchase request body. Field names are camelCase as in the spec; PascalCase is accepted
 * too (camelCase wins when both are sent); unknown fields are ignored; `null` counts as absent.
 * @throws {ValidationError} listing every failure (up to {@link MAX_LISTED_ERRORS} paths).
 */
export function validatePurchaseRequest(body: unknown): ValidPurchaseRequest {
  const { errors, customerId, sessionId, list } = checkEventEnvelope(body, MAX_EVENTS_PER_REQUEST);
  const events: PurchaseEventData[] = [];
  if (list !== undefined) {
    const firstIndexOfOrder = new Map<string, number>();
    list.items.forEach((e, i) => {
      const path = `${list.path}[${i}]`;
      const event = validateEvent(e, path, errors);
      if (event === undefined) return;
      const first = firstIndexOfOrder.get(event.orderId);
      if (first !== undefined) errors.add(`${path}.OrderId`, `The OrderId repeats ${list.path}[${first}].OrderId; an order appears once per request.`);
      else firstIndexOfOrder.set(event.orderId, i);
      events.push(event);
    });
  }
  errors.throwIfAny();
  return { customerId: customerId!, sessionId: sessionId!, events };
}

export { MAX_LISTED_ERRORS } from './validate-common.js';
