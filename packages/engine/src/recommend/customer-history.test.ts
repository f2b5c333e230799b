import { describe, expect, it } from 'vitest';
import { CustomerHistory, pushFront } from './customer-history.js';

describe('pushFront', () => {
  it('moves to the front, dedupes and caps', () => {
    const l = [1, 2, 3];
    expect(pushFront(l, 3, 3)).toBe(false);
    expect(l).toEqual([3, 1, 2]);
    expect(pushFront(l, 4, 3)).toBe(true);
    expect(l).toEqual([4, 3, 1]);
  });
});

describe('CustomerHistory', () => {
  it('keeps the latest session and moves earlier ones to history', () => {
    const h = new CustomerHistory(3, 4, 5);
    expect(h.recordView('c', 's1', 1, 0)).toEqual({ newInSession: true, sessionItems: [] });
    expect(h.recordView('c', 's1', 2, 1)).toEqual({ newInSession: true, sessionItems: [1] });
    expect(h.recordView('c', 's1', 1, 2)).toEqual({ newInSession: false, sessionItems: [] });
    h.recordView('c', 's2', 9, 3);
    expect(h.get('c')!.recent).toEqual([9]);
    expect(h.get('c')!.historic).toEqual([1, 2]);
    for (const item of [5, 6, 7, 8]) h.recordView('c', 's2', item, 4);
    expect(h.get('c')!.recent).toEqual([8, 7, 6]);
    h.recordView('c', 's3', 1, 5);
    expect(h.get('c')!.historic).toEqual([8, 7, 6, 1]);
  });

  it('starts a session again for a late view of an earlier one (as docs/recommendations.md says): the interrupted one becomes history', () => {
    const h = new CustomerHistory(3, 4, 5);
    h.recordView('c', 's1', 1, 10);
    h.recordView('c', 's2', 2, 20);
    // A retried queue of s1, sent after s2 began (its time before s2's view).
    expect(h.recordView('c', 's1', 3, 15)).toEqual({ newInSession: true, sessionItems: [] });
    expect(h.get('c')!.recent).toEqual([3]);
    expect(h.get('c')!.historic).toEqual([2, 1]);
  });

  it('remembers purchases and returns the earlier ones', () => {
    const h = new CustomerHistory(3, 4, 3);
    expect(h.recordPurchase('c', [1, 2])).toEqual([]);
    expect(h.recordPurchase('c', [2, 3])).toEqual([1]);
    expect(h.get('c')!.purchased).toEqual([2, 3, 1]);
    h.recordPurchase('c', [4]);
    expect(h.get('c')!.purchased).toEqual([4, 2, 3]);
  });
});
