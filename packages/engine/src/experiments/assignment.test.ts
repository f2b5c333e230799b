import { describe, expect, it } from 'vitest';
import { assignVariant, assignmentPoint } from './assignment.js';

describe('sticky assignment', () => {
  it('is the same for the same experiment and customer, and lies in [0, 1)', () => {
    expect(assignmentPoint('exp-1', 'customer-9')).toBe(assignmentPoint('exp-1', 'customer-9'));
    const p = assignmentPoint('exp-1', 'customer-9');
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(1);
    expect(assignmentPoint('ab', 'c')).not.toBe(assignmentPoint('a', 'bc'));
  });

  it('splits customers in proportion to the weights', () => {
    const counts = [0, 0, 0];
    const n = 60_000;
    for (let i = 0; i < n; i++) counts[assignVariant('exp-shares', `c${i}`, [1, 1, 2])]!++;
    // Expected 15k, 15k, 30k; a binomial's standard deviation here is about 106.
    expect(Math.abs(counts[0]! - 15_000)).toBeLessThan(600);
    expect(Math.abs(counts[1]! - 15_000)).toBeLessThan(600);
    expect(Math.abs(counts[2]! - 30_000)).toBeLessThan(800);
  });

  it('assigns independently in two experiments', () => {
    let same = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) if (assignVariant('exp-a', `c${i}`, [1, 1]) === assignVariant('exp-b', `c${i}`, [1, 1])) same++;
    // Independent halves agree half the time.
    expect(Math.abs(same / n - 0.5)).toBeLessThan(0.02);
  });
});
