import { describe, expect, it } from 'vitest';
import { RecentMemo } from './recent-memo.js';

describe('RecentMemo', () => {
  it('remembers up to its limit, then forgets every entry before the next one', () => {
    const memo = new RecentMemo<string, number>(3);
    expect(memo.remember('a', 1)).toBe(1);
    memo.remember('b', 2);
    memo.remember('c', 3);
    expect([memo.get('a'), memo.get('b'), memo.get('c'), memo.size]).toEqual([1, 2, 3, 3]);
    expect(memo.remember('d', 4)).toBe(4);
    expect([memo.get('a'), memo.get('b'), memo.get('c'), memo.get('d'), memo.size]).toEqual([undefined, undefined, undefined, 4, 1]);
    expect(memo.get('missing')).toBeUndefined();
  });
});
