import { describe, expect, it } from 'vitest';
import { verifyRetailMedia } from '../retail-media/hmac.js';
import { stableGuid } from '../util/ids.js';
import {
  boostCampaigns, buildSlots, chooseSponsored, placeSponsored, productCategories, RETAIL_MEDIA_LABEL, recommenderIdOf, signRetailMediaSlot, tacticIdOf,
} from './slots.js';

const adSet = { adSetId: 'AB2C8D9E-0000-4000-8000-000000000001', version: 3, products: ['p9'], costPerClick: 0.5, placementId: 'pl-1' };

describe('signRetailMediaSlot', () => {
  it('produces slot data that verifies with the website secret and not with another', () => {
    const data = signRetailMediaSlot(adSet, 'secret', Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(data.timeStamp).toBe('2026-01-02T03:04:05.000Z');
    expect(data.hmacSalt).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(data.adSetVersion).toBe(3);
    expect(data.costPerClick).toBe(0.5);
    expect(data.costPerAction).toBeUndefined();
    expect(data.placementId).toBe('pl-1');
    expect(verifyRetailMedia(data, data.hmac, 'secret')).toBe(true);
    expect(verifyRetailMedia(data, data.hmac, 'other')).toBe(false);
    expect(verifyRetailMedia({ ...data, costPerClick: 0.6 }, data.hmac, 'secret')).toBe(false);
  });

  it('uses a fresh salt per slot', () => {
    const a = signRetailMediaSlot(adSet, 's', 0);
    const b = signRetailMediaSlot(adSet, 's', 0);
    expect(a.hmacSalt).not.toBe(b.hmacSalt);
  });
});

describe('placeSponsored', () => {
  const picked = ['a', 'b', 'c', 'd'].map((item) => ({ item, label: 'T' }));
  it('inserts at the position and cuts to count', () => {
    expect(placeSponsored(picked, 'x', 2, 4).map((p) => p.item)).toEqual(['a', 'b', 'x', 'c']);
  });
  it('moves an item already in the list', () => {
    const out = placeSponsored(picked, 'd', 0, 4);
    expect(out.map((p) => p.item)).toEqual(['d', 'a', 'b', 'c']);
    expect(out[0]!.label).toBe(RETAIL_MEDIA_LABEL);
  });
  it('appends when the list is shorter than the position, within count', () => {
    expect(placeSponsored(picked.slice(0, 1), 'x', 5, 10).map((p) => p.item)).toEqual(['a', 'x']);
    expect(placeSponsored(picked, 'x', 9, 3).map((p) => p.item)).toEqual(['a', 'b', 'x']);
  });
});

describe('chooseSponsored / boostCampaigns / productCategories', () => {
  it('takes ad sets and products in configuration order', () => {
    const sets = [{ ...adSet, adSetId: 'one', products: ['a', 'b'] }, { ...adSet, adSetId: 'two', products: ['c'] }];
    expect(chooseSponsored(sets, (r) => r === 'b' || r === 'c')).toEqual({ adSet: sets[0], refId: 'b' });
    expect(chooseSponsored(sets, (r) => r === 'c')?.adSet.adSetId).toBe('two');
    expect(chooseSponsored(sets, () => false)).toBeUndefined();
  });
  it('maps boosted products to the first collection listing them', () => {
    const m = boostCampaigns([{ campaignId: 'k1', products: ['a'] }, { campaignId: 'k2', products: ['a', 'b'] }]);
    expect(m.get('a')).toBe('k1');
    expect(m.get('b')).toBe('k2');
    expect(boostCampaigns(undefined).size).toBe(0);
  });
  it('reads the category fields', () => {
    expect(productCategories({ refId: 'x', search_category: 'Mugs ', categories: ['Home', 'Kitchen'] })).toEqual(['mugs', 'kitchen']);
    expect(productCategories(undefined)).toEqual([]);
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
