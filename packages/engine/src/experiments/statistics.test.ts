import { describe, expect, it } from 'vitest';
import { meanEstimate, minUsersForRate, proportionEstimate, signTest, twoProportionTest, welchTest, withHorizon } from './statistics.js';

/** Per-user sums of a list of values. */
function sums(values: number[]) {
  return { n: values.length, sum: values.reduce((a, b) => a + b, 0), sumSquares: values.reduce((a, b) => a + b * b, 0) };
}

describe('experiment statistics', () => {
  it('Wilson interval of a proportion (10 of 100: 0.055 to 0.174, the published value)', () => {
    const e = proportionEstimate(10, 100);
    expect(e.value).toBe(0.1);
    expect(e.low).toBeCloseTo(0.0552, 3);
    expect(e.high).toBeCloseTo(0.1744, 3);
    // Stays in [0, 1] where the plain normal interval would not.
    const zero = proportionEstimate(0, 20);
    expect(zero.low).toBeCloseTo(0, 12);
    expect(zero.high).toBeGreaterThan(0.1);
    expect(proportionEstimate(0, 0)).toEqual({ value: 0, low: 0, high: 0 });
  });

  it('two-proportion z test: 100/1000 against 130/1000 gives z 2.10, p 0.036', () => {
    const c = twoProportionTest({ successes: 100, n: 1000 }, { successes: 130, n: 1000 });
    expect(c.pValue).toBeCloseTo(0.0355, 3);
    expect(c.relativeDifference).toBeCloseTo(0.3, 10);
    expect(c.low).toBeLessThan(0.3);
    expect(c.high).toBeGreaterThan(0.3);
    expect(c.low).toBeGreaterThan(0); // a significant difference's interval excludes 0
    expect(c.significant).toBe(true);
    expect(c.test).toMatch(/two-proportion z/);
  });

  it("Welch's t test: 1..5 against 2,4,..,10 gives t -1.90 on 5.88 df, p 0.108 (as R's t.test)", () => {
    const c = welchTest(sums([1, 2, 3, 4, 5]), sums([2, 4, 6, 8, 10]));
    expect(c.pValue).toBeCloseTo(0.1077, 3);
    expect(c.relativeDifference).toBeCloseTo(1, 10);
    expect(c.significant).toBe(false);
    expect(welchTest(sums([1]), sums([2, 3])).pValue).toBe(1);
  });

  it('mean interval narrows with users', () => {
    const small = meanEstimate(sums([0, 10, 0, 10]));
    const large = meanEstimate(sums(Array.from({ length: 400 }, (_, i) => (i % 2) * 10)));
    expect(small.value).toBe(5);
    expect(large.value).toBe(5);
    expect(large.high - large.low).toBeLessThan(small.high - small.low);
  });

  it('sample size for a 10 % relative effect at 80 % power (10 % base rate: 14,751 per variant)', () => {
    expect(minUsersForRate(0.1)).toBe(14751);
    expect(minUsersForRate(0.02)!).toBeGreaterThan(minUsersForRate(0.1)!);
    expect(minUsersForRate(0)).toBeNull();
    expect(minUsersForRate(0.95)).toBeNull();
  });

  it('the fixed horizon withholds significance until every variant has its users', () => {
    const c = twoProportionTest({ successes: 100, n: 1000 }, { successes: 130, n: 1000 });
    expect(withHorizon(c, false).significant).toBe(false);
    expect(withHorizon(c, true).significant).toBe(true);
  });

  it('sign test: 60 wins of 100 gives p 0.057 (exact binomial, as R binom.test)', () => {
    expect(signTest(60, 40).pValue).toBeCloseTo(0.0569, 3);
    expect(signTest(40, 60).pValue).toBeCloseTo(0.0569, 3);
    expect(signTest(0, 0).pValue).toBe(1);
    expect(signTest(5, 5).pValue).toBe(1);
  });
});
