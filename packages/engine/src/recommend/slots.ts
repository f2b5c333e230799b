/**
 * Slot data of a recommendation response, as pure functions: stable ids, retailer-boost marking, and the
 * slots themselves (the sponsored slot's placement and signing live in `../retail-media/`).
 * @module
 */
import type { RetailBoostCollectionConfig } from '../config.js';
import type { RecommendationSlot, RetailMediaSlotData } from '../types.js';
import { stableGuid } from '../util/ids.js';
import type { Picked } from './cascade.js';
import { RETAIL_MEDIA_LABEL } from '../retail-media/slot.js';
import { TacticLabels } from './methods.js';

// Ids are a SHA-1 each; a response carries one per slot, so they are derived once per (website, name):
// by kind, then website, then name — look-ups of strings the caller already holds, no key built per call.
const stableIds = new Map<string, Map<string, Map<string, string>>>();
/** Names remembered, all kinds and websites together. */
let stableIdCount = 0;

function cachedStableGuid(websiteId: string, kind: string, name: string): string {
  let byWebsite = stableIds.get(kind);
  if (byWebsite === undefined) stableIds.set(kind, (byWebsite = new Map()));
  let byName = byWebsite.get(websiteId);
  if (byName === undefined) byWebsite.set(websiteId, (byName = new Map()));
  let id = byName.get(name);
  if (id === undefined) {
    // Bounded: websites × (methods + tactic labels) in practice; cleared if something feeds it names.
    if (stableIdCount >= 100_000) {
      stableIds.clear();
      stableIdCount = 0;
      return cachedStableGuid(websiteId, kind, name);
    }
    byName.set(name, (id = stableGuid(websiteId, kind, name)));
    stableIdCount++;
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

/**
 * Every label a slot can carry: the tactics', and the sponsored slot's. Without the latter a click on an
 * ad named no tactic: refused (400 on its TacticId) and never counted under "Retail Media" in the report.
 */
const SLOT_LABELS: readonly string[] = [...Object.values(TacticLabels), RETAIL_MEDIA_LABEL];

/** Per website: tactic id → label, for every label of {@link SLOT_LABELS} (ids are stable, so the map is made once). */
const labelsById = new Map<string, ReadonlyMap<string, string>>();

/** The tactic label whose {@link tacticIdOf} is `tacticId` on a website (a click names its tactic by id), or undefined. */
export function tacticLabelOf(websiteId: string, tacticId: string): string | undefined {
  let byId = labelsById.get(websiteId);
  if (byId === undefined) {
    byId = new Map(SLOT_LABELS.map((label) => [tacticIdOf(websiteId, label), label]));
    labelsById.set(websiteId, byId);
  }
  return byId.get(tacticId.toLowerCase());
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
