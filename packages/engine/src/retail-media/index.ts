/**
 * Retail media in one place: the sponsored slot of a recommendation response (placement per method,
 * the choice of the ad-set product, its signed data), the verification of what a purchase echoes back
 * (HMAC, time window), and the spend per ad set in the attribution report. See docs/recommendations.md,
 * "Retail media". The rest of the engine imports retail media only from here.
 * @module
 */
export {
  canonicalRetailMediaString, generateHmacSalt, signRetailMedia, verifyRetailMedia, HMAC_SALT_LENGTH,
  type RetailMediaSignedFields,
} from './hmac.js';
export {
  addSponsoredSlot, chooseSponsored, DEFAULT_SLOT_POSITION, placeSponsored, productCategories, RETAIL_MEDIA_LABEL, signRetailMediaSlot,
  sponsoredPosition, type LabelledItem, type SponsoredContext, type SponsoredList,
} from './slot.js';
export { attributionWindowDays, checkRetailMedia, DEFAULT_ATTRIBUTION_WINDOW_DAYS, RETAIL_MEDIA_MAX_FUTURE_MS } from './verification.js';
export { isVerifiedRetailMedia, RetailMediaSpend } from './spend.js';
