/**
 * The statistics an experiment report shows a merchant: intervals, tests against the control and the
 * sample size a test needs. Pure functions over per-user aggregates: the report counts per user, never
 * per event, because the events of one user are not independent (one shopper clicking ten times is one
 * observation of "did this shopper click", not ten).
 *
 * Every comparison names its test (`test`) and every interval its method (`interval`), so a reader can check them; distributions come from stdlib's
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

/** The interval methods, by the names the report gives them (every interval it shows names its method). */
export const INTERVALS = {
  wilson: 'Wilson score interval (95 %)',
  wilsonEffective: 'Wilson score interval on the effective number of searches (per-user design effect; 95 %)',
  tMean: "Student's t interval of the mean (95 %)",
  logRatio: 'delta method on the log ratio (95 %)',
  logRatioT: "delta method on the log ratio, Student's t on Welch's degrees of freedom (95 %)",
  moverR: 'MOVER-R (Donner and Zou, 2012) from the two variants\' 95 % intervals',
} as const;

/** A point estimate with its 95 % interval and the interval's method. */
export interface Estimate {
  value: number;
  low: number;
  high: number;
  /** The interval's method, by name ({@link INTERVALS}). */
  interval: string;
}

/**
 * One variant's comparison with the control on one metric. What cannot be computed is `null`, never a
 * number standing in for it, and `note` says why (decision 0073): a relative difference against a
 * control at 0, a test without variance, a side with fewer than {@link MIN_USERS_TO_COMPARE} users.
 */
export interface Comparison {
  /** (variant − control) / control, e.g. 0.08 = 8 % higher than the control; null when the control's value is 0 (or a side has too few users). */
  relativeDifference: number | null;
  /** 95 % interval of the relative difference; null where it cannot be computed (`note` says why). */
  low: number | null;
  /** Upper end of the interval; null where it cannot be computed or has no upper bound (`note` says which). */
  high: number | null;
  /** The method of `low` and `high`, by name ({@link INTERVALS}); where they are null, the method that had nothing to compute from. */
  interval: string;
  /** Two-sided p-value of the named test; null where the test is not defined (`note` says why). */
  pValue: number | null;
  /** The test, by name. */
  test: string;
  /**
   * pValue < 0.05, the relative difference defined and every variant at the metric's `minUsers` (fixed
   * horizon): never true where `relativeDifference` or `pValue` is null.
   */
  significant: boolean;
  /** Why a figure is null, or which interval method replaced the log-ratio one; absent when nothing did. */
  note?: string;
}

/**
 * Users a side needs before it is compared: Welch's t test needs two per side (a variance), and the
 * same floor for the proportion test keeps one rule for every metric (one user is no normal sample).
 */
export const MIN_USERS_TO_COMPARE = 2;

/** Per-user sums of a metric: `n` users, `sum` of their values and `sumSquares` of the squares. */
export interface UserSums {
  n: number;
  sum: number;
  sumSquares: number;
}

/**
 * Per-user sums of a ratio metric Σx / Σy over `n` users — CTR: the searches a user clicked (x) over the
 * user's searches (y) — with the squares and the cross product the delta method needs.
 */
export interface RatioSums {
  n: number;
  x: number;
  y: number;
  xx: number;
  yy: number;
  xy: number;
}

/** The Wilson score interval of a rate `p` observed over `n` trials (`n` need not be whole: an effective count). */
function wilsonInterval(p: number, n: number, interval: string): Estimate {
  const z2 = Z_ALPHA * Z_ALPHA;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (Z_ALPHA * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), interval };
}

/**
 * Wilson score interval of a proportion (`successes` of `n`): unlike the plain normal interval it stays
 * inside [0, 1] and keeps its coverage for small counts and rates near 0, which conversion rates are.
 */
export function proportionEstimate(successes: number, n: number): Estimate {
  if (n <= 0) return { value: 0, low: 0, high: 0, interval: INTERVALS.wilson };
  return wilsonInterval(successes / n, n, INTERVALS.wilson);
}

/**
 * The ratio of sums Σx / Σy and the variance of that estimate by the delta method over users (each user's
 * linearised value xᵢ − R·yᵢ; Deng, Knoblich and Lu, 2018): the searches of one user are not independent,
 * so their variance is measured between users, not assumed binomial over searches. 0 with fewer than 2 users.
 */
function ratioAndVariance(s: RatioSums): { ratio: number; variance: number } {
  if (s.y <= 0) return { ratio: 0, variance: 0 };
  const ratio = s.x / s.y;
  if (s.n < 2) return { ratio, variance: 0 };
  // Σ(xᵢ − R·yᵢ)², whose mean is 0 by the choice of R.
  const spread = Math.max(0, s.xx - 2 * ratio * s.xy + ratio * ratio * s.yy);
  const meanY = s.y / s.n;
  return { ratio, variance: spread / (s.n - 1) / (s.n * meanY * meanY) };
}

/**
 * A rate counted over searches grouped by user (CTR: searches with a click / searches), with its 95 %
 * interval: the Wilson interval on the *effective* number of searches, R(1 − R) / Var(R) with Var(R) the
 * delta-method variance over users (Kish's design effect), kept between the number of users (each user
 * at least one observation) and the number of searches (no user counts for more than their searches).
 * A rate of 0 or 1 has no variance to measure, nor has a single user: the interval is then the Wilson one
 * over the users (one shopper's ten searches are one shopper, not ten). The plain
 * Wilson interval over searches (until 2026-11-30) took ten searches of one shopper for ten shoppers.
 */
export function ratioEstimate(s: RatioSums): Estimate {
  if (s.y <= 0 || s.n <= 0) return { value: 0, low: 0, high: 0, interval: INTERVALS.wilsonEffective };
  const { ratio, variance } = ratioAndVariance(s);
  const binomial = ratio * (1 - ratio);
  const effective = binomial <= 0 || s.n < 2 ? s.n : variance <= 0 ? s.y : Math.min(s.y, Math.max(s.n, binomial / variance));
  return wilsonInterval(ratio, effective, INTERVALS.wilsonEffective);
}

/** Sample mean and unbiased variance of per-user values given as sums. */
function meanAndVariance(s: UserSums): { mean: number; variance: number } {
  if (s.n === 0) return { mean: 0, variance: 0 };
  const mean = s.sum / s.n;
  const variance = s.n > 1 ? Math.max(0, (s.sumSquares - s.n * mean * mean) / (s.n - 1)) : 0;
  return { mean, variance };
}

/**
 * The two-sided 95 % quantile of Student's t on `df` degrees of freedom (t₀.₉₇₅), by bisection over
 * stdlib's reviewed CDF: no quantile of t is a dependency, and a report needs a handful. Above the
 * normal one, and equal to it in the limit.
 */
export function tQuantile(df: number): number {
  const target = 1 - ALPHA / 2;
  let low = Z_ALPHA;
  let high = 2 * Z_ALPHA;
  while (tCdf(high, df) < target) high *= 2;
  // 60 halvings take the bracket below 1e-15 of its width: the quantile to double precision.
  for (let i = 0; i < 60 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2;
    if (tCdf(mid, df) < target) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/**
 * Mean of per-user values with its 95 % interval by Student's t on n − 1 degrees of freedom, cut at
 * `lowest` when the values cannot go below it (revenue: 0, where the interval read "−1.23 per user"). The normal
 * interval it replaces covered far less than 95 % for the small variants a report shows early on (70 %
 * with 2 users, 92 % with 10); from a few hundred users the two agree to the third digit.
 */
export function meanEstimate(s: UserSums, lowest = -Infinity): Estimate {
  const { mean, variance } = meanAndVariance(s);
  if (s.n < 2) return { value: mean, low: mean, high: mean, interval: INTERVALS.tMean };
  const half = tQuantile(s.n - 1) * Math.sqrt(variance / s.n);
  // A mean of values never below `lowest` is never below it either: cutting the interval there loses no coverage.
  return { value: mean, low: Math.max(lowest, mean - half), high: mean + half, interval: INTERVALS.tMean };
}

/** One side of a comparison: its estimate, the variance of that estimate and its 95 % interval as the report shows it. */
interface Side {
  value: number;
  variance: number;
  interval: Estimate;
}

/** The relative difference of a comparison with its interval, and why a part is missing. */
type Relative = Pick<Comparison, 'relativeDifference' | 'low' | 'high' | 'interval'> & { notes: string[] };

/** How the log ratio's interval is sized: its quantile and the name of the method. */
interface LogRatioInterval {
  quantile: number;
  name: string;
}

/** The log ratio of two rates: the normal quantile (the z test's own approximation). */
const NORMAL_LOG_RATIO: LogRatioInterval = { quantile: Z_ALPHA, name: INTERVALS.logRatio };

/**
 * The MOVER-R interval of a ratio θ₁ / θ₂ from each estimate's own 95 % interval (Donner and Zou, 2012:
 * the limits of θ₁ − θ·θ₂ by MOVER, solved for θ). Unlike the log ratio it is defined at θ₁ = 0 and
 * without variance, because it needs only the two intervals (a Wilson interval never has zero width).
 * `high` is null when θ₂'s interval reaches 0: the ratio then has no upper bound.
 */
export function moverRatioInterval(numerator: Estimate, denominator: Estimate): { low: number; high: number | null } {
  const { value: t1, low: l1, high: u1 } = numerator;
  const { value: t2, low: l2, high: u2 } = denominator;
  const product = t1 * t2;
  // θ²·A − 2θ·θ₁θ₂ + C = 0 for each end; the lower end is the root at or below θ₁ / θ₂.
  const aLow = u2 * (2 * t2 - u2);
  const cLow = l1 * (2 * t1 - l1);
  // C = 0 (θ₁'s interval starts at 0) puts the lower end at 0; A = 0 leaves the linear equation.
  const low = cLow === 0 ? 0 : aLow === 0 ? cLow / (2 * product) : (product - Math.sqrt(Math.max(0, product * product - aLow * cLow))) / aLow;
  const aHigh = l2 * (2 * t2 - l2);
  const cHigh = u1 * (2 * t1 - u1);
  const high = aHigh > 0 ? (product + Math.sqrt(Math.max(0, product * product - aHigh * cHigh))) / aHigh : null;
  return { low, high };
}

/**
 * The relative difference r = b / a − 1 of a variant (b) against the control (a), with its 95 %
 * interval: by the delta method on log(b / a) where both values are above 0 and vary (the variance of
 * the log ratio is the sum of the squared coefficients of variation), else by {@link moverRatioInterval}.
 * A control at 0 has no relative difference: null, not 0 (decision 0073).
 */
function relativeDifferenceOf(control: Side, variant: Side, noun: string, logRatio: LogRatioInterval): Relative {
  const a = control.value;
  const b = variant.value;
  if (!(a > 0)) {
    const notes = [b > 0
      ? `The control's ${noun} is 0 and the variant's is not: a relative difference to 0 is not defined; compare the ${noun}s and the p-value.`
      : `Both ${noun}s are 0: there is no difference to state yet.`];
    return { relativeDifference: null, low: null, high: null, interval: logRatio.name, notes };
  }
  const relativeDifference = b / a - 1;
  if (b > 0 && control.variance + variant.variance > 0) {
    // The coefficients of variation taken one by one: a², b² could underflow for tiny values.
    const se = Math.hypot(Math.sqrt(control.variance) / a, Math.sqrt(variant.variance) / b);
    const log = Math.log(b / a);
    const half = logRatio.quantile * se;
    return { relativeDifference, low: Math.exp(log - half) - 1, high: Math.exp(log + half) - 1, interval: logRatio.name, notes: [] };
  }
  const why = b > 0 ? 'neither variant varies' : `the variant's ${noun} is 0`;
  if (control.interval.high === control.interval.low || variant.interval.high === variant.interval.low) {
    return { relativeDifference, low: null, high: null, interval: INTERVALS.moverR, notes: [`No interval: ${why}, and a variant's own interval has no width (all its users have one value).`] };
  }
  const ratio = moverRatioInterval(variant.interval, control.interval);
  const notes = [`Interval by ${INTERVALS.moverR}: ${why}, where the log-ratio interval is not defined.`];
  if (ratio.high === null) notes.push("The interval has no upper end: the control's interval reaches 0.");
  return { relativeDifference, low: ratio.low - 1, high: ratio.high === null ? null : ratio.high - 1, interval: INTERVALS.moverR, notes };
}

/** A comparison from its parts: `significant` on the p-value alone ({@link withHorizon} adds the horizon), `note` only when one was written. */
function comparison(relative: Relative, pValue: number | null, test: string, testNotes: readonly string[]): Comparison {
  const { notes: relativeNotes, ...difference } = relative;
  const notes = [...relativeNotes, ...testNotes];
  const c: Comparison = { ...difference, pValue, test, significant: isSignificant({ ...difference, pValue }) };
  if (notes.length > 0) c.note = notes.join(' ');
  return c;
}

/** The comparison of a side with fewer than {@link MIN_USERS_TO_COMPARE} users: nothing computed, the note says which side. */
function tooFewUsers(control: number, variant: number, test: string, interval: string): Comparison {
  const [side, users] = control < MIN_USERS_TO_COMPARE ? ['control', control] : ['variant', variant];
  const note = `Not compared: the ${side} has ${users} user${users === 1 ? '' : 's'}; a comparison needs at least ${MIN_USERS_TO_COMPARE} per variant.`;
  return { relativeDifference: null, low: null, high: null, interval, pValue: null, test, significant: false, note };
}

/** The p-value's verdict: below {@link ALPHA}, with a relative difference to state (never on a null). */
function isSignificant(c: Pick<Comparison, 'pValue' | 'relativeDifference'>): boolean {
  return c.pValue !== null && c.pValue < ALPHA && c.relativeDifference !== null;
}

/**
 * Two-proportion z test (pooled, two-sided) of a variant's per-user rate against the control's.
 * `significant` here is only the p-value's verdict; {@link withHorizon} adds the sample-size condition.
 * The test is defined whenever the pooled rate is strictly between 0 and 1, a control at 0 included.
 */
export function twoProportionTest(control: { successes: number; n: number }, variant: { successes: number; n: number }): Comparison {
  const test = 'two-proportion z test (pooled, two-sided) over users';
  const { successes: x1, n: n1 } = control;
  const { successes: x2, n: n2 } = variant;
  if (n1 < MIN_USERS_TO_COMPARE || n2 < MIN_USERS_TO_COMPARE) return tooFewUsers(n1, n2, test, NORMAL_LOG_RATIO.name);
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const pValue = se === 0 ? null : 2 * (1 - normalCdf(Math.abs(p2 - p1) / se, 0, 1));
  const relative = relativeDifferenceOf(
    { value: p1, variance: (p1 * (1 - p1)) / n1, interval: proportionEstimate(x1, n1) },
    { value: p2, variance: (p2 * (1 - p2)) / n2, interval: proportionEstimate(x2, n2) },
    'rate', NORMAL_LOG_RATIO,
  );
  const notes = pValue === null ? [`No p-value: the rate is ${pooled === 0 ? 0 : 1} in both variants, so the test has no variance.`] : [];
  return comparison(relative, pValue, test, notes);
}

/**
 * Welch's t test (unequal variances, two-sided) of a variant's per-user mean against the control's,
 * e.g. revenue per user, whose variance differs between variants and whose distribution is skewed
 * (Welch's test is robust to both at the sample sizes an experiment reaches). Not defined when neither
 * variant's values vary.
 */
export function welchTest(control: UserSums, variant: UserSums): Comparison {
  const test = "Welch's t test (two-sided) over per-user values";
  if (control.n < MIN_USERS_TO_COMPARE || variant.n < MIN_USERS_TO_COMPARE) return tooFewUsers(control.n, variant.n, test, INTERVALS.logRatioT);
  const side = (s: UserSums): WelchSide => {
    const { mean, variance } = meanAndVariance(s);
    return { value: mean, variance: variance / s.n, n: s.n, interval: meanEstimate(s) };
  };
  return welchComparison(side(control), side(variant), test, 'mean');
}

/**
 * Welch's t test of a variant's rate counted over searches (CTR) against the control's: the statistic is
 * the ratio of sums the report shows as the variants' `ctr` (searches with a click / searches), its
 * variance by the delta method over users ({@link ratioEstimate}), on Welch's degrees of freedom. Until
 * 2026-11-30 the comparison was of the means of the users' own CTRs, another statistic than the `ctr`
 * beside it (ten searches of one shopper weigh ten times in one, once in the other): a variant could read
 * a lower `ctr` than the control and a positive difference.
 */
export function ratioTest(control: RatioSums, variant: RatioSums): Comparison {
  const test = "Welch's t test (two-sided) on the ratio of sums, delta-method variance over users";
  if (control.n < MIN_USERS_TO_COMPARE || variant.n < MIN_USERS_TO_COMPARE) return tooFewUsers(control.n, variant.n, test, INTERVALS.logRatioT);
  const side = (s: RatioSums): WelchSide => {
    const { ratio, variance } = ratioAndVariance(s);
    return { value: ratio, variance, n: s.n, interval: ratioEstimate(s) };
  };
  return welchComparison(side(control), side(variant), test, 'rate');
}

/** One side of a Welch comparison: the estimate, the variance of the estimate, its users and its own interval. */
interface WelchSide extends Side {
  n: number;
}

/** Welch's t test of two estimates (each with the variance of the estimate over `n` users) and their relative difference. */
function welchComparison(a: WelchSide, b: WelchSide, test: string, noun: string): Comparison {
  const va = a.variance;
  const vb = b.variance;
  const se = Math.sqrt(va + vb);
  let pValue: number | null = null;
  // The log ratio's interval takes the test's own quantile: the normal one sized it too narrow for small variants, as the means' own intervals were.
  const logRatio: LogRatioInterval = { quantile: Z_ALPHA, name: INTERVALS.logRatioT };
  if (se > 0) {
    const t = (b.value - a.value) / se;
    // Welch–Satterthwaite degrees of freedom, (va + vb)² / (va² / (n₁ − 1) + vb² / (n₂ − 1)), on the
    // shares of the variance so that squares of tiny variances cannot underflow to 0 / 0.
    const shareA = va / (va + vb);
    const shareB = vb / (va + vb);
    const df = 1 / ((shareA * shareA) / (a.n - 1) + (shareB * shareB) / (b.n - 1));
    pValue = 2 * (1 - tCdf(Math.abs(t), df));
    logRatio.quantile = tQuantile(df);
  }
  const relative = relativeDifferenceOf(a, b, noun, logRatio);
  const notes = pValue === null ? ['No p-value: the values vary in neither variant, so the test is not defined.'] : [];
  return comparison(relative, pValue, test, notes);
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
  return { ...c, significant: horizonReached && isSignificant(c) };
}

/** What a sign test answers: `pValue` null, with `note` saying why, when no user preferred either side. */
export interface SignTestResult {
  pValue: number | null;
  test: string;
  note?: string;
}

/**
 * Two-sided exact binomial sign test of `wins` against `losses` (ties dropped) under p = ½: the test
 * of an interleaving experiment, where each shopper's clicks prefer one ranking, the other, or neither.
 * With no preferring user there is no sample to test: the p-value is null with a note (as decision 0073
 * has it for the A/B comparisons), where a 1 read as "tested, and no difference at all".
 */
export function signTest(wins: number, losses: number): SignTestResult {
  const test = 'binomial sign test (two-sided, ties dropped) over users';
  const n = wins + losses;
  if (n === 0) return { pValue: null, test, note: 'no user preferred either ranking yet (no clicks, or as many on each): nothing to test' };
  const k = Math.min(wins, losses);
  return { pValue: Math.min(1, 2 * binomialCdf(k, n, 0.5)), test };
}
