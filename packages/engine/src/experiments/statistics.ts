/**
 * The statistics an experiment report shows a merchant: intervals, tests against the control and the
 * sample size a test needs. Pure functions over per-user aggregates: the report counts per user, never
 * per event, because the events of one user are not independent (one shopper clicking ten times is one
 * observation of "did this shopper click", not ten).
 *
 * Every comparison names its test (`test`), so a reader can check it; distributions come from stdlib's
 * reviewed implementations rather than hand-written approximations.
 * @module
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';

/** Two-sided significance level of every test and interval (95 % intervals). */
export const ALPHA = 0.05;
/** Power the sample-size estimate (`minUsers`) is computed for. */
export const POWER = 0.8;
/** The relative effect `minUsers` is sized to detect (a 10 % relative difference). */
export const MIN_DETECTABLE_RELATIVE_EFFECT = 0.1;

const Z_ALPHA = normalQuantile(1 - ALPHA / 2, 0, 1);
const Z_POWER = normalQuantile(POWER, 0, 1);

/** A point estimate with its 95 % interval. */
export interface Estimate {
  value: number;
  low: number;
  high: number;
}

/** One variant's comparison with the control on one metric. */
export interface Comparison {
  /** (variant − control) / control, e.g. 0.08 = 8 % higher than the control. */
  relativeDifference: number;
  /** 95 % interval of the relative difference. */
  low: number;
  high: number;
  /** Two-sided p-value of the named test. */
  pValue: number;
  /** The test, by name. */
  test: string;
  /** pValue < 0.05 and every variant reached the metric's `minUsers` (fixed horizon). */
  significant: boolean;
}

/** Per-user sums of a metric: `n` users, `sum` of their values and `sumSquares` of the squares. */
export interface UserSums {
  n: number;
  sum: number;
  sumSquares: number;
}

/**
 * Wilson score interval of a proportion (`successes` of `n`): unlike the plain normal interval it stays
 * inside [0, 1] and keeps its coverage for small counts and rates near 0, which conversion rates are.
 */
export function proportionEstimate(successes: number, n: number): Estimate {
  if (n <= 0) return { value: 0, low: 0, high: 0 };
  const p = successes / n;
  const z2 = Z_ALPHA * Z_ALPHA;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (Z_ALPHA * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Sample mean and unbiased variance of per-user values given as sums. */
function meanAndVariance(s: UserSums): { mean: number; variance: number } {
  if (s.n === 0) return { mean: 0, variance: 0 };
  const mean = s.sum / s.n;
  const variance = s.n > 1 ? Math.max(0, (s.sumSquares - s.n * mean * mean) / (s.n - 1)) : 0;
  return { mean, variance };
}

/**
 * Mean of per-user values with a 95 % interval (the normal approximation of the mean: an experiment's
 * variants hold hundreds of users or more, where it and Student's t agree to the third digit).
 */
export function meanEstimate(s: UserSums): Estimate {
  const { mean, variance } = meanAndVariance(s);
  if (s.n < 2) return { value: mean, low: mean, high: mean };
  const half = Z_ALPHA * Math.sqrt(variance / s.n);
  return { value: mean, low: mean - half, high: mean + half };
}

/**
 * The interval of a relative difference r = b / a − 1 by the delta method on log(b / a): its variance
 * is the sum of the squared coefficients of variation of the two estimates. Returns the point value
 * for degenerate inputs (a zero rate has no relative difference worth an interval).
 */
function relativeInterval(a: number, varA: number, b: number, varB: number): [number, number, number] {
  if (a <= 0 || b <= 0) {
    const r = a > 0 ? b / a - 1 : 0;
    return [r, r, r];
  }
  const se = Math.sqrt(varA / (a * a) + varB / (b * b));
  const logRatio = Math.log(b / a);
  return [b / a - 1, Math.exp(logRatio - Z_ALPHA * se) - 1, Math.exp(logRatio + Z_ALPHA * se) - 1];
}

/**
 * Two-proportion z test (pooled, two-sided) of a variant's per-user rate against the control's.
 * `significant` here is only the p-value's verdict; {@link withHorizon} adds the sample-size condition.
 */
export function twoProportionTest(control: { successes: number; n: number }, variant: { successes: number; n: number }): Comparison {
  const test = 'two-proportion z test (pooled, two-sided) over users';
  const { successes: x1, n: n1 } = control;
  const { successes: x2, n: n2 } = variant;
  if (n1 === 0 || n2 === 0) return { relativeDifference: 0, low: 0, high: 0, pValue: 1, test, significant: false };
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const pValue = se === 0 ? 1 : 2 * (1 - normalCdf(Math.abs(p2 - p1) / se, 0, 1));
  const [relativeDifference, low, high] = relativeInterval(p1, (p1 * (1 - p1)) / n1, p2, (p2 * (1 - p2)) / n2);
  return { relativeDifference, low, high, pValue, test, significant: pValue < ALPHA };
}

/**
 * Welch's t test (unequal variances, two-sided) of a variant's per-user mean against the control's,
 * e.g. revenue per user, whose variance differs between variants and whose distribution is skewed
 * (Welch's test is robust to both at the sample sizes an experiment reaches).
 */
export function welchTest(control: UserSums, variant: UserSums): Comparison {
  const test = "Welch's t test (two-sided) over per-user values";
  if (control.n < 2 || variant.n < 2) return { relativeDifference: 0, low: 0, high: 0, pValue: 1, test, significant: false };
  const a = meanAndVariance(control);
  const b = meanAndVariance(variant);
  const va = a.variance / control.n;
  const vb = b.variance / variant.n;
  const se = Math.sqrt(va + vb);
  let pValue = 1;
  if (se > 0) {
    const t = (b.mean - a.mean) / se;
    // Welch–Satterthwaite degrees of freedom.
    const df = (va + vb) ** 2 / ((va * va) / (control.n - 1) + (vb * vb) / (variant.n - 1));
    pValue = 2 * (1 - tCdf(Math.abs(t), df));
  }
  const [relativeDifference, low, high] = relativeInterval(a.mean, va, b.mean, vb);
  return { relativeDifference, low, high, pValue, test, significant: pValue < ALPHA };
}

/**
 * Users per variant needed to detect a relative difference `effect` from a base rate at level
 * {@link ALPHA} (two-sided) with power {@link POWER}: the standard two-proportion sample size,
 * n = (z₁₋α/₂·√(2p̄(1−p̄)) + z₁₋β·√(p₁(1−p₁) + p₂(1−p₂)))² / (p₂ − p₁)². `null` when the base rate
 * is 0 or so high that the effect leaves [0, 1] (no size answers).
 */
export function minUsersForRate(baseRate: number, effect = MIN_DETECTABLE_RELATIVE_EFFECT): number | null {
  const p1 = baseRate;
  const p2 = baseRate * (1 + effect);
  if (!(p1 > 0) || p2 >= 1) return null;
  const pBar = (p1 + p2) / 2;
  const numerator = Z_ALPHA * Math.sqrt(2 * pBar * (1 - pBar)) + Z_POWER * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil((numerator * numerator) / ((p2 - p1) * (p2 - p1)));
}

/**
 * The fixed-horizon rule: a comparison is significant only when its p-value is below {@link ALPHA}
 * *and* every variant has reached the users the test was sized for. Looking at the report earlier is
 * allowed, but it cannot say "significant" before the horizon, which keeps the false-positive rate at
 * the nominal 5 % however often a merchant peeks (docs/experiments.md).
 */
export function withHorizon(c: Comparison, horizonReached: boolean): Comparison {
  return { ...c, significant: horizonReached && c.pValue < ALPHA };
}

/**
 * Two-sided exact binomial sign test of `wins` against `losses` (ties dropped) under p = ½: the test
 * of an interleaving experiment, where each shopper's clicks prefer one ranking, the other, or neither.
 */
export function signTest(wins: number, losses: number): { pValue: number; test: string } {
  const test = 'binomial sign test (two-sided, ties dropped) over users';
  const n = wins + losses;
  if (n === 0) return { pValue: 1, test };
  const k = Math.min(wins, losses);
  return { pValue: Math.min(1, 2 * binomialCdf(k, n, 0.5)), test };
}
