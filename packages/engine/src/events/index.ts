/**
 * Events: validation of purchase and view bodies, the {@link EventService} (durable recording,
 * idempotency, coupons, retail-media checks, replica polling) and the attribution report.
 * @module
 */
export {
  EventService, checkRetailMedia, DEFAULT_ATTRIBUTION_WINDOW_DAYS, DEFAULT_POLL_INTERVAL_MS, RETAIL_MEDIA_MAX_FUTURE_MS,
  type EventServiceOptions, type EventSink,
} from './event-service.js';
export {
  validatePurchaseRequest, MAX_COUPON_CODE_LENGTH, MAX_EVENTS_PER_REQUEST, MAX_HMAC_LENGTH, MAX_PRODUCTS_PER_EVENT,
  MAX_PROMOTIONS_PER_EVENT, MAX_QUANTITY, type ValidPurchaseRequest,
} from './validate-purchases.js';
export { validateViewRequest, MAX_VIEWS_PER_REQUEST, type ValidViewRequest } from './validate-views.js';
export {
  MAX_DECIMAL, MAX_ID_LENGTH, MAX_LISTED_ERRORS, MAX_URL_LENGTH, VALIDATION_PROBLEM_TITLE, VALIDATION_PROBLEM_TYPE,
  parseIsoDateTime,
} from './validate-common.js';
export { buildAttributionReport, isAttributedLine, REPORT_DECIMALS } from './attribution.js';
