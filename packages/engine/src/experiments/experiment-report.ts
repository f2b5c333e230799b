/**
 * An experiment's report from its roll-ups (pure): one row per assigned customer and variant (and per
 * tactic or interleaving team), summed over the experiment by the store, turned into per-variant
 * estimates with 95 % intervals, comparisons with the control under the fixed horizon, and `minUsers`
 * (docs/experiments.md). Everything is counted per user: a customer is one observation of "did they
 * click", "did they buy" and "how much did they spend", however many events they sent. An A/B report
 * needs only per-variant sums of the per-user values ({@link ExperimentSums}), which the SQL stores
 * compute in their query (decision 0050); interleaving compares each user's credits, so it reads the rows.
 * @module
 */
import type { ExperimentReport } from '../contract/schemas.js';
import { roundForReport } from '../events/attribution.js';
import { EXPERIMENT_KEY_SEPARATOR, experimentSumsOf } from '../store/analytics-rows.js';
import type { ExperimentRecord, ExperimentSums, RollupTotal } from '../store/store.js';
import { INTERLEAVED, experimentFields } from './experiment-service.js';
import {
  ALPHA, INTERVALS, meanEstimate, minUsersForRate, proportionEstimate, ratioEstimate, ratioTest, signTest, twoProportionTest, welchTest, withHorizon,
  type RatioSums, type UserSums,
} from './statistics.js';

/** One variant's per-user aggregates. */
interface VariantTotals {
  users: number;
  responses: number;
  clicks: number;
  conversions: number;
  /** Users with at least one attributed purchase line. */
  converters: number;
  revenue: number;
  /** The CTR's per-user sums (x: searches with a click, y: searches), for the ratio of sums and its delta-method variance. */
  ctr: RatioSums;
  /** Per-user revenue. */
  revenuePerUser: UserSums;
  tactics: Map<string, { served: number; clicks: number; conversions: number; revenue: number }>;
}

/** The variant and customer of a row's key. */
function splitKey(key: string): [string, string] {
  const at = key.indexOf(EXPERIMENT_KEY_SEPARATOR);
  return at < 0 ? [key, ''] : [key.slice(0, at), key.slice(at + 1)];
}

/** Per-variant aggregates of an A/B experiment from its per-variant sums (customers without a counted response are not users). */
function variantTotals(record: ExperimentRecord, sums: readonly ExperimentSums[]): Map<string, VariantTotals> {
  const byVariant = new Map<string, VariantTotals>(record.variants.map((v) => [v.name, {
    users: 0, responses: 0, clicks: 0, conversions: 0, converters: 0, revenue: 0,
    ctr: { n: 0, x: 0, y: 0, xx: 0, yy: 0, xy: 0 }, revenuePerUser: { n: 0, sum: 0, sumSquares: 0 }, tactics: new Map(),
  }]));
  for (const { variant, tactic, users, counters, converters, ctrClicked, ctrClickedSquares, responsesSquares, ctrClickedResponses, revenueSquares } of sums) {
    const t = byVariant.get(variant);
    if (t === undefined) continue;
    if (tactic !== '') {
      t.tactics.set(tactic, { served: counters.results, clicks: counters.clicks, conversions: counters.conversions, revenue: counters.revenue });
      continue;
    }
    Object.assign(t, {
      users, responses: counters.responses, clicks: counters.clicks, conversions: counters.conversions, converters,
      revenue: counters.revenue,
      ctr: { n: users, x: ctrClicked, y: counters.responses, xx: ctrClickedSquares, yy: responsesSquares, xy: ctrClickedResponses }, revenuePerUser: { n: users, sum: counters.revenue, sumSquares: revenueSquares },
    });
  }
  return byVariant;
}

/** The interleaving section: clicks credited per team, and the sign test over the users' preferences. */
function interleavingReport(record: ExperimentRecord, rows: readonly RollupTotal[]): NonNullable<ExperimentReport['interleaving']> {
  const [a, b] = record.variants.map((v) => v.name) as [string, string];
  const perUser = new Map<string, [number, number]>();
  const users = new Set<string>();
  for (const { key, tactic, counters } of rows) {
    const [variant, customer] = splitKey(key);
    if (variant !== INTERLEAVED) continue;
    if (tactic === '') {
      if (counters.responses > 0) users.add(customer);
      continue;
    }
    if (tactic !== a && tactic !== b) continue;
    let credits = perUser.get(customer);
    if (credits === undefined) perUser.set(customer, (credits = [0, 0]));
    credits[tactic === a ? 0 : 1] += counters.clicks;
  }
  let creditA = 0;
  let creditB = 0;
  let preferA = 0;
  let preferB = 0;
  for (const [customer, [ca, cb]] of perUser) {
    if (!users.has(customer)) continue;
    creditA += ca;
    creditB += cb;
    if (ca > cb) preferA++;
    else if (cb > ca) preferB++;
  }
  const sign = signTest(preferA, preferB);
  return {
    credits: { [a]: creditA, [b]: creditB }, users: users.size, preferring: { [a]: preferA, [b]: preferB },
    preferred: sign.pValue !== null && sign.pValue < ALPHA && preferA !== preferB ? (preferA > preferB ? a : b) : null, ...sign,
  };
}

/** The report of `record` from its summed roll-up rows at `now`. */
export function experimentReport(record: ExperimentRecord, rows: readonly RollupTotal[], now: number): ExperimentReport {
  if (record.method === 'interleaving') {
    return { ...experimentFields(record, now), minUsers: { ctr: null, conversionRate: null }, variants: [], interleaving: interleavingReport(record, rows) };
  }
  return abReport(record, experimentSumsOf(rows), now);
}

/** What the store answers for one report (read-experiment-report.ts reads it). */
export type ReportInput = { method: 'ab'; sums: ExperimentSums[] } | { method: 'interleaving'; rows: RollupTotal[] };

/** The report of `record` at `now` from what the store answered for it (read-experiment-report.ts). */
export function reportFrom(record: ExperimentRecord, input: ReportInput, now: number): ExperimentReport {
  return input.method === 'ab' ? abReport(record, input.sums, now) : experimentReport(record, input.rows, now);
}

/** A variant's figure as the report shows it (the contract's `Estimate`). */
type ReportedEstimate = ExperimentReport['variants'][number]['ctr'];

/**
 * A rate as reported: with no trials there is nothing to estimate, so null rather than 0 with an interval
 * of no width ([0, 0] read as "certainly 0 %"), as decision 0073 has it for the comparisons.
 */
function reportedRate(successes: number, n: number): ReportedEstimate {
  return n > 0 ? proportionEstimate(successes, n) : { value: null, low: null, high: null, interval: INTERVALS.wilson };
}

/** The CTR as reported: the ratio of sums with its interval over users ({@link ratioEstimate}); null without searches (or lists served). */
function reportedCtr(sums: RatioSums): ReportedEstimate {
  return sums.y > 0 ? ratioEstimate(sums) : { value: null, low: null, high: null, interval: INTERVALS.wilsonEffective };
}

/** A per-user mean as reported: null without users; one user has a value but no interval (no variance to size it). */
function reportedMean(sums: UserSums): ReportedEstimate {
  if (sums.n === 0) return { value: null, low: null, high: null, interval: INTERVALS.tMean };
  // Per-user revenue is never negative (prices and quantities are not).
  const e = meanEstimate(sums, 0);
  return sums.n < 2 ? { value: e.value, low: null, high: null, interval: e.interval } : e;
}

/** The report of an A/B experiment (`record.method` `ab`) from its per-variant sums at `now`. */
export function abReport(record: ExperimentRecord, sums: readonly ExperimentSums[], now: number): ExperimentReport {
  const fields = experimentFields(record, now);
  const totals = variantTotals(record, sums);
  const control = totals.get(record.variants[0]!.name)!;
  const minUsers = {
    // The CTR the report shows (a customer's clicked responses at most their responses).
    ctr: control.ctr.y > 0 ? minUsersForRate(control.ctr.x / control.ctr.y) : null,
    conversionRate: control.users > 0 ? minUsersForRate(control.converters / control.users) : null,
  };
  const reached = (needed: number | null): boolean => needed !== null && [...totals.values()].every((t) => t.users >= needed);
  const variants = record.variants.map((v, i): ExperimentReport['variants'][number] => {
    const t = totals.get(v.name)!;
    const report: ExperimentReport['variants'][number] = {
      name: v.name, weight: v.weight, users: t.users,
      ...(record.kind === 'search' ? { searches: t.responses } : { served: t.responses }),
      clicks: t.clicks, ctr: reportedCtr(t.ctr), conversions: t.conversions,
      conversionRate: reportedRate(t.converters, t.users), revenue: roundForReport(t.revenue), revenuePerUser: reportedMean(t.revenuePerUser),
    };
    if (i > 0) {
      report.vsControl = {
        ctr: withHorizon(ratioTest(control.ctr, t.ctr), reached(minUsers.ctr)),
        conversionRate: withHorizon(twoProportionTest({ successes: control.converters, n: control.users }, { successes: t.converters, n: t.users }), reached(minUsers.conversionRate)),
        revenuePerUser: withHorizon(welchTest(control.revenuePerUser, t.revenuePerUser), reached(minUsers.conversionRate)),
      };
    }
    if (record.kind === 'recommendations') {
      report.tactics = [...t.tactics].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([tactic, s]) => ({ tactic, ...s, revenue: roundForReport(s.revenue) }));
    }
    return report;
  });
  return { ...fields, minUsers, variants };
}
