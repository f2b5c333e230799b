import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  meanEstimate, minUsersForRate, moverRatioInterval, proportionEstimate, ratioEstimate, ratioTest, signTest, twoProportionTest, welchTest, withHorizon,
  type Comparison, type RatioSums,
} from './statistics.js';

/** Per-user sums of a list of values. */
function sums(values: number[]) {
  return { n: values.length, sum: values.reduce((a, b) => a + b, 0), sumSquares: values.reduce((a, b) => a + b * b, 0) };
}

/** The Wilson interval of a rate `p` over `n` (possibly effective) trials, written out. */
function wilsonOf(p: number, n: number): { low: number; high: number } {
  const z = 1.959963984540054;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return { low: centre - half, high: centre + half };
}

/** The ratio sums of users given as [clicked searches, searches]. */
function ratioSums(users: [number, number][]): RatioSums {
  const s: RatioSums = { n: users.length, x: 0, y: 0, xx: 0, yy: 0, xy: 0 };
  for (const [x, y] of users) Object.assign(s, { x: s.x + x, y: s.y + y, xx: s.xx + x * x, yy: s.yy + y * y, xy: s.xy + x * y });
  return s;
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
    expect(proportionEstimate(0, 0)).toEqual({ value: 0, low: 0, high: 0, interval: 'Wilson score interval (95 %)' });
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
    expect(welchTest(sums([1]), sums([2, 3])).pValue).toBeNull();
  });

  it("mean interval: Student's t on n − 1 degrees of freedom, as R's t.test (the normal one covered far under 95 % for small variants)", () => {
    // R: t.test(c(0, 20))$conf.int = -117.06 .. 137.06; t.test(c(0, 0, 0, 0, 0, 0, 0, 0, 20, 20))$conf.int = -2.0324 .. 10.0324.
    const two = meanEstimate(sums([0, 20]));
    expect(two.low).toBeCloseTo(-117.062, 2);
    expect(two.high).toBeCloseTo(137.062, 2);
    const ten = meanEstimate(sums([0, 0, 0, 0, 0, 0, 0, 0, 20, 20]));
    expect(ten.low).toBeCloseTo(-2.0324, 3);
    expect(ten.high).toBeCloseTo(10.0324, 3);
    expect(ten.interval).toBe("Student's t interval of the mean (95 %)");
    // Values that cannot be negative (revenue per user) have no negative mean: the interval stops at 0.
    expect(meanEstimate(sums([0, 0, 0, 0, 0, 0, 0, 0, 20, 20]), 0)).toMatchObject({ value: 4, low: 0, high: ten.high });
    expect(proportionEstimate(10, 100).interval).toBe('Wilson score interval (95 %)');
  });

  it('CTR over searches grouped by user: the ratio of sums, its variance by the delta method over users', () => {
    // Users (clicked, searches) (1, 2), (0, 1), (3, 3), (1, 4): R = 5 / 10; xᵢ − R·yᵢ = 0, −0.5, 1.5, −1, so
    // s² = 3.5 / 3 and Var(R) = s² / (n·ȳ²) = 1.1667 / 25 = 0.046667: 10.7 effective searches of the 10.
    const s = ratioSums([[1, 2], [0, 1], [3, 3], [1, 4]]);
    const e = ratioEstimate(s);
    expect(e.value).toBe(0.5);
    const effective = 0.25 / (3.5 / 3 / 25);
    expect(effective).toBeCloseTo(5.357, 3);
    const z2 = 1.959963984540054 ** 2;
    const half = (1.959963984540054 * Math.sqrt(0.25 / effective + z2 / (4 * effective * effective))) / (1 + z2 / effective);
    const centre = (0.5 + z2 / (2 * effective)) / (1 + z2 / effective);
    expect(e.low).toBeCloseTo(centre - half, 10);
    expect(e.high).toBeCloseTo(centre + half, 10);
    expect(e.interval).toMatch(/effective number of searches/);
    // One search per user: the users are the searches, and the interval is the plain Wilson one.
    const once = ratioSums(Array.from({ length: 100 }, (_, i): [number, number] => [i < 10 ? 1 : 0, 1]));
    expect(ratioEstimate(once)).toMatchObject({ value: 0.1, low: proportionEstimate(10, 100).low, high: proportionEstimate(10, 100).high });
    // All of one user's searches clicked or none: 100 searches of 10 users are 10 observations, not 100.
    const clustered = ratioSums(Array.from({ length: 10 }, (_, i): [number, number] => [i < 3 ? 10 : 0, 10]));
    expect(ratioEstimate(clustered).low).toBeCloseTo(proportionEstimate(3, 10).low, 10);
    // One user: no variance between users to measure, so the searches count as that one user (they counted as
    // ten independent searches: 5 of 10 read 0.24 to 0.76, as if ten shoppers had searched).
    expect(ratioEstimate(ratioSums([[5, 10]])).value).toBe(0.5);
    expect(ratioEstimate(ratioSums([[5, 10]])).low).toBeCloseTo(wilsonOf(0.5, 1).low, 12);
    // A rate of 0 has nothing to measure a variance from: Wilson over the users.
    expect(ratioEstimate(ratioSums([[0, 5], [0, 3]])).high).toBeCloseTo(proportionEstimate(0, 2).high, 12);
  });

  it("the CTR comparison: Welch's t on the ratios with their delta-method variances, the difference that of the CTRs shown", () => {
    const control = ratioSums(Array.from({ length: 200 }, (_, i): [number, number] => [i % 5 === 0 ? 2 : i % 5 === 1 ? 1 : 0, 2]));
    const variant = ratioSums(Array.from({ length: 200 }, (_, i): [number, number] => [i % 4 === 0 ? 2 : i % 4 === 1 ? 1 : 0, 2]));
    const c = ratioTest(control, variant);
    // Control 120 of 400 (0.3), variant 150 of 400 (0.375).
    expect(c.relativeDifference).toBeCloseTo(0.375 / 0.3 - 1, 12);
    // The same as Welch over the linearised per-user values when every user has 2 searches (ratio = mean / 2).
    const perUser = (sumsOf: RatioSums, f: (i: number) => number) => sums(Array.from({ length: sumsOf.n }, (_, i) => f(i) / 2));
    const welch = welchTest(perUser(control, (i) => (i % 5 === 0 ? 2 : i % 5 === 1 ? 1 : 0)), perUser(variant, (i) => (i % 4 === 0 ? 2 : i % 4 === 1 ? 1 : 0)));
    expect(c.pValue).toBeCloseTo(welch.pValue!, 10);
    expect(c.low).toBeCloseTo(welch.low!, 10);
    expect(c.test).toBe("Welch's t test (two-sided) on the ratio of sums, delta-method variance over users");
    expect(ratioTest(ratioSums([[1, 2]]), variant).note).toMatch(/the control has 1 user/);
  });

  it('a comparison names its interval: the log ratio by the delta method, or MOVER-R where that is not defined', () => {
    expect(twoProportionTest({ successes: 100, n: 1000 }, { successes: 130, n: 1000 }).interval).toBe('delta method on the log ratio (95 %)');
    expect(welchTest(sums([1, 2, 3, 4, 5]), sums([2, 4, 6, 8, 10])).interval).toBe("delta method on the log ratio, Student's t on Welch's degrees of freedom (95 %)");
    expect(twoProportionTest({ successes: 10, n: 100 }, { successes: 0, n: 100 }).interval).toMatch(/^MOVER-R/);
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
    expect(signTest(0, 0)).toEqual({ pValue: null, test: expect.stringMatching(/sign test/), note: expect.stringMatching(/no user preferred/) });
    expect(signTest(5, 5).pValue).toBe(1);
  });
});

/** Every figure of a comparison that is a number is finite; a null one is explained by the note. */
function expectTruthful(c: Comparison): void {
  for (const x of [c.relativeDifference, c.low, c.high, c.pValue]) if (x !== null) expect(Number.isFinite(x)).toBe(true);
  if ([c.relativeDifference, c.low, c.high, c.pValue].includes(null)) expect(c.note).toBeTruthy();
  if (c.significant) {
    expect(c.relativeDifference).not.toBeNull();
    expect(c.pValue).toBeLessThan(0.05);
  }
  if (c.relativeDifference !== null && c.low !== null) expect(c.low).toBeLessThanOrEqual(c.relativeDifference + 1e-12);
  if (c.relativeDifference !== null && c.high !== null) expect(c.high).toBeGreaterThanOrEqual(c.relativeDifference - 1e-12);
  if (c.relativeDifference !== null) expect(c.relativeDifference).toBeGreaterThanOrEqual(-1);
}

describe('comparisons that cannot be computed say so (decision 0073)', () => {
  it('both rates 0: no difference, no p-value (the z test has no variance), not significant', () => {
    const c = twoProportionTest({ successes: 0, n: 100 }, { successes: 0, n: 100 });
    expect(c).toMatchObject({ relativeDifference: null, low: null, high: null, pValue: null, significant: false });
    expect(c.note).toMatch(/Both rates are 0/);
    expect(withHorizon(c, true).significant).toBe(false);
  });

  it('control at 0, variant above: no relative difference, the z test still answers (0/100 against 10/100: z 3.24, p 0.0012)', () => {
    const c = twoProportionTest({ successes: 0, n: 100 }, { successes: 10, n: 100 });
    expect(c.relativeDifference).toBeNull();
    expect(c.low).toBeNull();
    expect(c.high).toBeNull();
    expect(c.pValue).toBeCloseTo(0.00118, 4);
    expect(c.note).toMatch(/control's rate is 0/);
    // A difference that cannot be stated is never declared, even past the horizon.
    expect(c.significant).toBe(false);
    expect(withHorizon(c, true).significant).toBe(false);
  });

  it('variant at 0: −100 %, interval by MOVER-R from the Wilson intervals (the log ratio has none there)', () => {
    const c = twoProportionTest({ successes: 10, n: 100 }, { successes: 0, n: 100 });
    expect(c.relativeDifference).toBe(-1);
    expect(c.low).toBe(-1);
    // Upper end u₀ / √(l₁(2p₁ − l₁)) − 1 with the variant's Wilson upper end u₀ and the control's l₁.
    const control = proportionEstimate(10, 100);
    const variant = proportionEstimate(0, 100);
    expect(c.high).toBeCloseTo(variant.high / Math.sqrt(control.low * (2 * control.value - control.low)) - 1, 12);
    expect(c.high).toBeLessThan(0);
    expect(c.pValue).toBeCloseTo(0.00118, 4);
    expect(c.significant).toBe(true);
    expect(c.note).toMatch(/MOVER-R/);
    // One control conversion of ten: the interval stays open upwards, as the counts allow.
    expect(twoProportionTest({ successes: 1, n: 10 }, { successes: 0, n: 10 }).high).toBeGreaterThan(1);
  });

  it('every user converted on both sides: 0 % with a MOVER-R interval, no p-value', () => {
    const c = twoProportionTest({ successes: 100, n: 100 }, { successes: 100, n: 100 });
    expect(c.relativeDifference).toBe(0);
    expect(c.low).toBeLessThan(0);
    expect(c.high).toBeGreaterThan(0);
    expect(c.pValue).toBeNull();
    expect(c.note).toMatch(/rate is 1 in both variants/);
  });

  it('a side with 0 or 1 users: nothing compared, the note names the side', () => {
    for (const [control, variant, side] of [[0, 10, 'control has 0 users'], [1, 10, 'control has 1 user;'], [10, 0, 'variant has 0 users'], [10, 1, 'variant has 1 user;']] as const) {
      const rate = twoProportionTest({ successes: 0, n: control }, { successes: variant > 0 ? 1 : 0, n: variant });
      const mean = welchTest(sums(Array.from({ length: control }, (_, i) => i)), sums(Array.from({ length: variant }, (_, i) => i)));
      for (const c of [rate, mean]) {
        expect(c).toMatchObject({ relativeDifference: null, low: null, high: null, pValue: null, significant: false });
        expect(c.note).toContain(side);
      }
    }
  });

  it("Welch: a control mean of 0 has no relative difference; a variant of all zeros has −100 % without an interval; no variance, no p-value", () => {
    const controlZero = welchTest(sums([0, 0, 0, 0]), sums([1, 0, 2, 0]));
    expect(controlZero.relativeDifference).toBeNull();
    expect(controlZero.pValue).toBeCloseTo(0.215, 3);
    expect(controlZero.note).toMatch(/control's mean is 0/);
    const variantZero = welchTest(sums([1, 0, 2, 0]), sums([0, 0, 0, 0]));
    expect(variantZero).toMatchObject({ relativeDifference: -1, low: null, high: null });
    expect(variantZero.note).toMatch(/no width/);
    const constant = welchTest(sums([3, 3, 3]), sums([4, 4, 4]));
    expect(constant.relativeDifference).toBeCloseTo(1 / 3, 12);
    expect(constant.pValue).toBeNull();
    expect(constant.significant).toBe(false);
  });

  it('MOVER-R agrees with the log-ratio interval where both are defined and the counts are large', () => {
    fc.assert(fc.property(fc.integer({ min: 5_000, max: 200_000 }), fc.double({ min: 0.02, max: 0.5, noNaN: true }), fc.double({ min: 0.8, max: 1.25, noNaN: true }), (n, rate, lift) => {
      const x1 = Math.round(n * rate);
      const x2 = Math.round(n * rate * lift);
      const logRatio = twoProportionTest({ successes: x1, n }, { successes: x2, n });
      const mover = moverRatioInterval(proportionEstimate(x2, n), proportionEstimate(x1, n));
      expect(mover.low - 1).toBeCloseTo(logRatio.low!, 2);
      expect(mover.high! - 1).toBeCloseTo(logRatio.high!, 2);
    }), { numRuns: 200 });
  });

  it('any counts, large n included: every figure finite or null with a note, significant only on a stated difference', () => {
    const counts = fc.integer({ min: 0, max: 2_000_000 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })));
    fc.assert(fc.property(counts, counts, fc.boolean(), ([n1, x1], [n2, x2], horizon) => {
      expectTruthful(withHorizon(twoProportionTest({ successes: x1, n: n1 }, { successes: x2, n: n2 }), horizon));
    }), { numRuns: 2_000 });
    // Per-user values as the report has them: revenue in cents, CTRs as clicked searches over searches.
    const revenue = fc.integer({ min: 0, max: 100_000_000 }).map((cents) => cents / 100);
    const ctr = fc.integer({ min: 1, max: 50 }).chain((searches) => fc.integer({ min: 0, max: searches }).map((clicked) => clicked / searches));
    const values = fc.array(fc.oneof(fc.constant(0), revenue, ctr), { maxLength: 30 });
    fc.assert(fc.property(values, values, (a, b) => expectTruthful(welchTest(sums(a), sums(b)))), { numRuns: 2_000 });
    // CTRs as users' (clicked, searches), and every figure of their own estimate inside [0, 1].
    const users = fc.array(fc.integer({ min: 1, max: 50 }).chain((searches) => fc.tuple(fc.integer({ min: 0, max: searches }), fc.constant(searches))), { maxLength: 30 });
    fc.assert(fc.property(users, users, (a, b) => {
      expectTruthful(ratioTest(ratioSums(a), ratioSums(b)));
      for (const s of [ratioSums(a), ratioSums(b)]) {
        const e = ratioEstimate(s);
        for (const v of [e.value, e.low, e.high]) expect(v >= 0 && v <= 1).toBe(true);
        expect(e.low <= e.value && e.value <= e.high).toBe(true);
      }
    }), { numRuns: 2_000 });
  });
});
