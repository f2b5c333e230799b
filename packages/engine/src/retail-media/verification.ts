/**
 * Verification of the retail-media data a purchase echoes from a sponsored slot. Pure.
 *
 * A product's retail-media data is honoured (counts in spend and as attributed) only when its HMAC
 * verifies under the website's secret and its `timeStamp` lies at most {@link RETAIL_MEDIA_MAX_FUTURE_MS}
 * after and at most the attribution window before the event time; otherwise it is stored with a flag
 * saying why, and reported as flagged.
 * @module
 */
import type { WebsiteConfig } from '../config.js';
import { parseIsoDateTime } from '../events/validate-common.js';
import type { PurchaseEventData, RetailMediaFlag } from '../store/store.js';
import { verifyRetailMedia } from './hmac.js';

/** Retail-media timeStamps more than this far after the event time are flagged. */
export const RETAIL_MEDIA_MAX_FUTURE_MS = 5 * 60_000;
/** Default attribution window (days) when the website sets no `attributionWindowDays`. */
export const DEFAULT_ATTRIBUTION_WINDOW_DAYS = 30;

/** A website's attribution window in days (`settings.attributionWindowDays`, else the default): retail media and click conversions. */
export function attributionWindowDays(website: WebsiteConfig): number {
  return website.settings?.attributionWindowDays ?? DEFAULT_ATTRIBUTION_WINDOW_DAYS;
}

/**
 * Flags each product's retail-media data that does not verify under the website's secret, or whose
 * timeStamp lies more than 5 minutes after, or more than the attribution window before, the event time.
 * Returns a new event (the same one when it carries no retail-media data).
 */
export function checkRetailMedia(event: PurchaseEventData, website: WebsiteConfig): PurchaseEventData {
  if (!event.products.some((p) => p.retailMedia !== undefined)) return event;
  const windowMs = attributionWindowDays(website) * 86_400_000;
  return {
    ...event,
    products: event.products.map((p) => {
      const rm = p.retailMedia;
      if (rm === undefined) return p;
      let flag: RetailMediaFlag | undefined;
      if (!verifyRetailMedia(rm, rm.hmac, website.hmacSecret)) flag = 'hmac_invalid';
      else {
        const ts = parseIsoDateTime(rm.timeStamp)!;
        if (ts > event.eventTimeMs + RETAIL_MEDIA_MAX_FUTURE_MS) flag = 'timestamp_in_future';
        else if (ts < event.eventTimeMs - windowMs) flag = 'timestamp_too_old';
      }
      return flag === undefined ? p : { ...p, retailMedia: { ...rm, flag } };
    }),
  };
}
