import { describe, expect, it } from 'vitest';
import {
  addSponsoredSlot, chooseSponsored, placeSponsored, productCategories, RETAIL_MEDIA_LABEL, signRetailMediaSlot, sponsoredPosition, verifyRetailMedia,
  type SponsoredContext,
} from './index.js';

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

describe('chooseSponsored / productCategories', () => {
  it('takes ad sets and products in configuration order', () => {
    const sets = [{ ...adSet, adSetId: 'one', products: ['a', 'b'] }, { ...adSet, adSetId: 'two', products: ['c'] }];
    expect(chooseSponsored(sets, (r) => r === 'b' || r === 'c')).toEqual({ adSet: sets[0], refId: 'b' });
    expect(chooseSponsored(sets, (r) => r === 'c')?.adSet.adSetId).toBe('two');
    expect(chooseSponsored(sets, () => false)).toBeUndefined();
  });
  it('reads the category fields', () => {
    expect(productCategories({ refId: 'x', search_category: 'Mugs ', categories: ['Home', 'Kitchen'] })).toEqual(['mugs', 'kitchen']);
    expect(productCategories(undefined)).toEqual([]);
  });
});

describe('sponsoredPosition', () => {
  const settings = { adSets: [adSet], slotPosition: 4, placements: { ProductDetail: 1, Personalized: false as const } };
  it('takes the method placement, else slotPosition, else the default', () => {
    expect(sponsoredPosition({ name: 'ProductDetail' }, settings)).toBe(1);
    expect(sponsoredPosition({ name: 'Personalized' }, settings)).toBeUndefined();
    expect(sponsoredPosition({ name: 'Cart' }, settings)).toBe(4);
    expect(sponsoredPosition({ name: 'Cart' }, { adSets: [adSet] })).toBe(2);
    expect(sponsoredPosition({ name: 'Cart' }, undefined)).toBeUndefined();
  });
  it('never places an ad in a customer\'s own history', () => {
    expect(sponsoredPosition({ name: 'RecentlyViewed', ownHistory: true }, settings)).toBeUndefined();
  });
});

describe('addSponsoredSlot', () => {
  const products: Record<string, { refId: string; search_category?: string }> = {
    a: { refId: 'a', search_category: 'Mugs' },
    b: { refId: 'b', search_category: 'Plates' },
    p9: { refId: 'p9', search_category: 'mugs' },
    p8: { refId: 'p8', search_category: 'Hoses' },
    gone: { refId: 'gone', search_category: 'Mugs' },
  };
  const context = (over: Partial<SponsoredContext> = {}): SponsoredContext => ({
    inputs: ['a'],
    mayRecommend: (r) => r in products && r !== 'gone',
    isCandidate: () => false,
    product: (r) => products[r],
    ...over,
  });
  const picked = [{ item: 'b', label: 'Bought With' }];
  const placement = { position: 0, count: 3, secret: 's', timeMs: 0 };

  it('places the first ad-set product sharing a category with the inputs or the list, signed', () => {
    const sets = [{ ...adSet, products: ['p8', 'p9'] }];
    const out = addSponsoredSlot(picked, sets, placement, context());
    expect(out.picked).toEqual([{ item: 'p9', label: RETAIL_MEDIA_LABEL }, { item: 'b', label: 'Bought With' }]);
    expect(out.sponsored?.refId).toBe('p9');
    expect(verifyRetailMedia(out.sponsored!.data, out.sponsored!.data.hmac, 's')).toBe(true);
  });
  it('takes a candidate of the winning tactic even without a shared category', () => {
    const out = addSponsoredSlot(picked, [{ ...adSet, products: ['p8'] }], placement, context({ isCandidate: (r) => r === 'p8' }));
    expect(out.sponsored?.refId).toBe('p8');
  });
  it('never places an input, a product that may not be recommended, or an ad in an empty list', () => {
    expect(addSponsoredSlot(picked, [{ ...adSet, products: ['a', 'gone'] }], placement, context()).sponsored).toBeUndefined();
    expect(addSponsoredSlot([], [{ ...adSet, products: ['p9'] }], placement, context())).toEqual({ picked: [] });
  });
});
