/**
 * The sponsored slot of a recommendation response: where it goes, which ad-set product fills it, and
 * its signed data. Pure functions apart from the salt's randomness (docs/recommendations.md, "Retail
 * media").
 *
 * The ad sets of `settings.retailMedia.adSets` are tried in configuration order, and within one its
 * `products` in order; the first product that FITS the context becomes the one sponsored slot of the
 * response. It fits when it may be recommended here (not an input, not in the cart, in the catalog, in
 * stock when asked) and it is either among the accepted candidates of the winning tactic, or it shares
 * a category (`search_category`, `category`, or the last entry of `categories`) with an input product or
 * with an item of the list. It is moved (or inserted) at the method's position (`placements`, else
 * `slotPosition`; 0-based, default 2; at the end when the list is shorter) and the list is cut back to
 * `count`. An empty result gets no ad (there is no context to fit). A customer's own history
 * (RecentlyViewed, HistoricViewed) never carries one.
 * @module
 */
import type { AdSetConfig, RetailMediaSettings } from '../config.js';
import type { Product, RetailMediaSlotData } from '../types.js';
import { generateHmacSalt, signRetailMedia } from './hmac.js';

/** Label of the sponsored slot. */
export const RETAIL_MEDIA_LABEL = 'Retail Media';

/** Default 0-based position of the sponsored slot. */
export const DEFAULT_SLOT_POSITION = 2;

/** An item of a list with the label of the tactic that placed it. */
export interface LabelledItem {
  item: string;
  label: string;
}

/** Signs fresh retail-media slot data for an ad set. `timeMs` becomes the ISO `timeStamp`. */
export function signRetailMediaSlot(adSet: AdSetConfig, secret: string, timeMs: number, salt: string = generateHmacSalt()): RetailMediaSlotData {
  const timeStamp = new Date(timeMs).toISOString();
  const fields = {
    adSetId: adSet.adSetId,
    hmacSalt: salt,
    costPerClick: adSet.costPerClick,
    costPerAction: adSet.costPerAction,
    costPerMille: adSet.costPerMille,
    timeStamp,
  };
  const data: RetailMediaSlotData = { adSetId: adSet.adSetId, adSetVersion: adSet.version, timeStamp, hmacSalt: salt, hmac: signRetailMedia(fields, secret) };
  if (adSet.costPerClick !== undefined) data.costPerClick = adSet.costPerClick;
  if (adSet.costPerAction !== undefined) data.costPerAction = adSet.costPerAction;
  if (adSet.costPerMille !== undefined) data.costPerMille = adSet.costPerMille;
  if (adSet.bannerId !== undefined) data.bannerId = adSet.bannerId;
  if (adSet.placementId !== undefined) data.placementId = adSet.placementId;
  return data;
}

/** The normalised categories of a product used to decide whether an ad fits. */
export function productCategories(p: Product | undefined): string[] {
  if (!p) return [];
  const out: string[] = [];
  for (const v of [p.search_category, p.category, Array.isArray(p.categories) ? p.categories[p.categories.length - 1] : undefined]) {
    if (typeof v === 'string' && v.trim() !== '') out.push(v.trim().toLowerCase());
  }
  return out;
}

/**
 * Where a method's sponsored slot goes (0-based), or undefined when the method carries none:
 * `retailMedia.placements[<Method>]` (a position, or `false` for none) when set, else
 * `retailMedia.slotPosition` (default {@link DEFAULT_SLOT_POSITION}). A method listing the customer's
 * own history (`ownHistory`: RecentlyViewed, HistoricViewed) never carries one.
 */
export function sponsoredPosition(method: { name: string; ownHistory?: boolean }, settings: RetailMediaSettings | undefined): number | undefined {
  if (settings === undefined || method.ownHistory) return undefined;
  const placed = settings.placements?.[method.name];
  if (placed === false) return undefined;
  return typeof placed === 'number' ? placed : settings.slotPosition ?? DEFAULT_SLOT_POSITION;
}

/** The first (ad set, product) whose product `fits`, in configuration order. */
export function chooseSponsored(adSets: readonly AdSetConfig[], fits: (refId: string) => boolean): { adSet: AdSetConfig; refId: string } | undefined {
  for (const adSet of adSets) for (const refId of adSet.products) if (fits(refId)) return { adSet, refId };
  return undefined;
}

/** Moves or inserts `refId` at `position` (clamped to the list) and cuts the list to `count`. */
export function placeSponsored<T extends LabelledItem>(picked: readonly T[], refId: string, position: number, count: number): LabelledItem[] {
  const rest: LabelledItem[] = picked.filter((p) => p.item !== refId);
  const at = Math.min(Math.max(0, position), rest.length, count - 1);
  rest.splice(at, 0, { item: refId, label: RETAIL_MEDIA_LABEL });
  return rest.slice(0, count);
}

/** What the sponsored slot may know of the request it joins. */
export interface SponsoredContext {
  /** The request's input products (productRef, cart items): their categories make an ad fit. */
  inputs: readonly string[];
  /** Whether a product may be recommended here at all (not an input, in the catalog, in stock when asked). */
  mayRecommend(refId: string): boolean;
  /** Whether a product is among the accepted candidates of the winning tactic. */
  isCandidate(refId: string): boolean;
  /** A catalog product (for its categories). */
  product(refId: string): Product | undefined;
}

/** A list with its sponsored slot, when one fitted. */
export interface SponsoredList {
  picked: LabelledItem[];
  sponsored?: { refId: string; data: RetailMediaSlotData };
}

/**
 * Places the sponsored slot of a response: the first ad-set product that fits (see the module notes),
 * moved or inserted at `position`, signed with `secret` at `timeMs`. The list is returned unchanged
 * when it is empty or nothing fits.
 */
export function addSponsoredSlot(
  picked: readonly LabelledItem[],
  adSets: readonly AdSetConfig[],
  placement: { position: number; count: number; secret: string; timeMs: number },
  context: SponsoredContext,
): SponsoredList {
  if (picked.length === 0 || adSets.length === 0) return { picked: [...picked] };
  const contextCategories = new Set<string>();
  for (const ref of [...context.inputs, ...picked.map((p) => p.item)]) {
    for (const c of productCategories(context.product(ref))) contextCategories.add(c);
  }
  const choice = chooseSponsored(adSets, (refId) => {
    if (context.inputs.includes(refId) || !context.mayRecommend(refId)) return false;
    if (context.isCandidate(refId)) return true;
    return productCategories(context.product(refId)).some((c) => contextCategories.has(c));
  });
  if (!choice) return { picked: [...picked] };
  return {
    picked: placeSponsored(picked, choice.refId, placement.position, placement.count),
    sponsored: { refId: choice.refId, data: signRetailMediaSlot(choice.adSet, placement.secret, placement.timeMs) },
  };
}
