import { describe, expect, it } from 'vitest';
import { RETAIL_MEDIA_LABEL, signRetailMediaSlot } from '../retail-media/index.js';
import { stableGuid } from '../util/ids.js';
import { TacticLabels } from './methods.js';
import { boostCampaigns, buildSlots, recommenderIdOf, tacticIdOf, tacticLabelOf } from './slots.js';

const adSet = { adSetId: 'AB2C8D9E-0000-4000-8000-000000000001', version: 3, products: ['p9'], costPerClick: 0.5, placementId: 'pl-1' };

describe('boostCampaigns', () => {
  it('maps boosted products to the first collection listing them', () => {
    const m = boostCampaigns([{ campaignId: 'k1', products: ['a'] }, { campaignId: 'k2', products: ['a', 'b'] }]);
    expect(m.get('a')).toBe('k1');
    expect(m.get('b')).toBe('k2');
    expect(boostCampaigns(undefined).size).toBe(0);
  });
});

describe('buildSlots and ids', () => {
  it('labels slots with stable tactic ids and attaches retail media and boost', () => {
    const data = signRetailMediaSlot(adSet, 's', 0);
    const slots = buildSlots('w1', [{ item: 'a', label: 'Viewed With' }, { item: 'p9', label: RETAIL_MEDIA_LABEL }], {
      sponsored: { refId: 'p9', data },
      boosted: new Map([['a', 'camp']]),
    });
    expect(slots[0]).toEqual({ refId: 'a', tacticLabel: 'Viewed With', tacticId: stableGuid('w1', 'tactic', 'Viewed With'), retailBoost: { retailBoostCollectionCampaignId: 'camp' } });
    expect(slots[1]!.retailMedia).toBe(data);
    expect(tacticIdOf('w1', 'X')).toBe(tacticIdOf('w1', 'X'));
    expect(recommenderIdOf('w1', 'Cart')).toBe(stableGuid('w1', 'recommender', 'Cart'));
    expect(recommenderIdOf('w1', 'Cart')).not.toBe(recommenderIdOf('w2', 'Cart'));
  });
});

describe('tacticLabelOf', () => {
  it('names every label a slot can carry, the sponsored slot\'s included, from its id in any case', () => {
    for (const label of [...Object.values(TacticLabels), RETAIL_MEDIA_LABEL]) {
      expect(tacticLabelOf('w', tacticIdOf('w', label).toUpperCase()), label).toBe(label);
    }
    expect(tacticLabelOf('other', tacticIdOf('w', RETAIL_MEDIA_LABEL))).toBeUndefined();
  });
});
