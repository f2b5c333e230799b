import { describe, expect, it } from 'vitest';
import { PopularityKind, PopularityWindow } from './popularity.js';

const DAY = 86_400_000;

describe('PopularityWindow', () => {
  it('ranks purchases first, views second, then id; honours the limit across many items', () => {
    const w = new PopularityWindow(7 * DAY, 0, () => 0);
    for (let item = 0; item < 1000; item++) w.record(item, PopularityKind.View, 1000 + item);
    w.record(500, PopularityKind.Purchase, 5000);
    w.record(7, PopularityKind.View, 5001);
    const top = w.ranking(3).map((s) => s.item);
    expect(top).toEqual([500, 7, 0]);
    expect(w.ranking(300)).toHaveLength(300);
  });

  it('drops events older than the window measured from the newest event time', () => {
    const w = new PopularityWindow(7 * DAY, 0, () => 0);
    w.record(1, PopularityKind.Purchase, 0);
    w.record(1, PopularityKind.Purchase, 0);
    w.record(2, PopularityKind.Purchase, 3 * DAY);
    expect(w.ranking(10).map((s) => s.item)).toEqual([1, 2]);
    w.advance(8 * DAY);
    expect(w.ranking(10).map((s) => s.item)).toEqual([2]);
    expect(w.purchaseCount(1)).toBe(0);
    // An event already outside the window is ignored.
    w.record(3, PopularityKind.Purchase, 0);
    expect(w.ranking(10).map((s) => s.item)).toEqual([2]);
    w.advance(20 * DAY);
    expect(w.ranking(10)).toEqual([]);
  });

  it('grows its ring past the initial capacity without losing events', () => {
    const w = new PopularityWindow(7 * DAY, 0, () => 0);
    for (let k = 0; k < 5000; k++) w.record(k % 3, PopularityKind.Purchase, k);
    expect(w.purchaseCount(0)).toBe(1667);
    w.advance(7 * DAY + 2500);
    expect(w.purchaseCount(0) + w.purchaseCount(1) + w.purchaseCount(2)).toBe(2499);
  });

  it('re-ranks at most once per refresh interval while events arrive', () => {
    let now = 0;
    const w = new PopularityWindow(7 * DAY, 1000, () => now);
    w.record(1, PopularityKind.Purchase, 10);
    expect(w.ranking(5).map((s) => s.item)).toEqual([1]);
    w.record(2, PopularityKind.Purchase, 11);
    w.record(2, PopularityKind.Purchase, 12);
    expect(w.ranking(5).map((s) => s.item)).toEqual([1]);
    now = 1000;
    expect(w.ranking(5).map((s) => s.item)).toEqual([2, 1]);
  });
});
