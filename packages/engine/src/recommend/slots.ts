/**
 * Slot data of a recommendation response, as pure functions: stable ids, retail-media placement and
 * signing, retailer-boost marking.
 *
 * Retail media: the ad sets of `settings.retailMedia.adSets` are tried in configuration order, and
 * within one its `products` in order; the first product that FITS the context becomes the one
 * sponsored slot of the response. It fits when it may be recommended here (not an input, not in the
 * cart, in the catalog, in stock when asked) and it is either among the accepted candidates of the
 * winning tactic, or it shares a category (`search_category`, `category`, or the last entry of
 * `categories`) with an input product or with an item of the list. It is moved (or inserted) at
 * `settings.retailMedia.slotPosition` (0-based, default 2; at the end when the list is shorter) and the
 * list is cut back to `count`. An empty result gets no ad (there is no context to fit).
 * @module
 */
import type { AdSetConfig, RetailBoostCollectionConfig, RetailMediaSettings } from '../config.js';
import type { Product, RecommendationSlot, RetailMediaSlotData } from '../types.js';
import { generateHmacSalt, signRetailMedia } from '../retail-media/hmac.js';
import { stableGuid } from '../util/ids.js';
import type { Picked } from './cascade.js';
import { HISTORY_METHODS, type MethodSpec } from './methods.js';

/** Label of the sponsored slot. */
export const RETAIL_MEDIA_LABEL = 'Retail Media';

/** Default 0-based position of the sponsored slot. */
export const DEFAULT_SLOT_POSITION = 2;

// Ids are a SHA-1 each; a response carries one per slot, so they are derived once per (website, name).
const stableIds = new Map<string, string>();

function cachedStableGuid(websiteId: string, kind: string, name: string): string {
  const key = `${websiteId}\u0000${kind}\u0000${name}`;
  let id = stableIds.get(key);
  if (id === undefined) {
    // Bounded: websites × (methods + tactic labels) in practice; cleared if something feeds it names.
    if (stableIds.size >= 100_000) stableIds.clear();
    stableIds.set(key, (id = stableGuid(websiteId, kind, name)));
  }
  return id;
}

/** The stable recommender id of a method (canonical spelling) of a website. */
export function recommenderIdOf(websiteId: string, method: string): string {
  return cachedStableGuid(websiteId, 'recommender', method);
}

/** The stable tactic id of a tactic label of a website. */
export function tacticIdOf(websiteId: string, label: string): string {
  return cachedStableGuid(websiteId, 'tactic', label);
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
 * `retailMedia.slotPosition` (default {@link DEFAULT_SLOT_POSITION}) for the methods that carry ads by
 * default. RecentlyViewed and HistoricViewed — a customer's own history — never carry one.
 */
export function sponsoredPosition(spec: Pick<MethodSpec, 'name' | 'sponsoredByDefault'>, settings: RetailMediaSettings | undefined): number | undefined {
  if (settings === undefined || HISTORY_METHODS.has(spec.name)) return undefined;
  const placed = settings.placements?.[spec.name];
  if (placed === false) return undefined;
  if (typeof placed === 'number') return placed;
  return spec.sponsoredByDefault ? settings.slotPosition ?? DEFAULT_SLOT_POSITION : undefined;
}

/** The first (ad set, product) whose product `fits`, in configuration order. */
export function chooseSponsored(adSets: readonly AdSetConfig[], fits: (refId: string) => boolean): { adSet: AdSetConfig; refId: string } | undefined {
  for (const adSet of adSets) for (const refId of adSet.products) if (fits(refId)) return { adSet, refId };
  return undefined;
}

/** Moves or inserts `refId` at `position` (clamped to the list) and cuts the list to `count`. */
export function placeSponsored(picked: readonly Picked<string>[], refId: string, position: number, count: number): Picked<string>[] {
  const rest = picked.filter((p) => p.item !== refId);
  const at = Math.min(Math.max(0, position), rest.length, count - 1);
  rest.splice(at, 0, { item: refId, label: RETAIL_MEDIA_LABEL });
  return rest.slice(0, count);
}

/** RefId → retailer-boost campaign id (the first collection listing a product wins). */
export function boostCampaigns(collections: readonly RetailBoostCollectionConfig[] | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const c of collections ?? []) for (const refId of c.products) if (!map.has(refId)) map.set(refId, c.campaignId);
  return map;
}

/** Builds the slots of a response; the sponsored item (if any) gets `retailMedia`, boosted ones `retailBoost`. */
export function buildSlots(
  websiteId: string,
  picked: readonly Picked<string>[],
  extras: { sponsored?: { refId: string; data: RetailMediaSlotData }; boosted?: ReadonlyMap<string, string> } = {},
): RecommendationSlot[] {
  return picked.map(({ item, label }) => {
    const slot: RecommendationSlot = { refId: item, tacticLabel: label, tacticId: tacticIdOf(websiteId, label) };
    if (extras.sponsored && extras.sponsored.refId === item) slot.retailMedia = extras.sponsored.data;
    const campaign = extras.boosted?.get(item);
    if (campaign !== undefined) slot.retailBoost = { retailBoostCollectionCampaignId: campaign };
    return slot;
  });
}
