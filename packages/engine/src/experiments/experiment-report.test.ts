import { describe, expect, it } from 'vitest';
import { experimentUserKey } from '../analytics/search-log.js';
import { ROLLUP_COUNTERS, type ExperimentRecord, type RollupCounters, type RollupTotal } from '../store/store.js';
import { experimentReport } from './experiment-report.js';
import { minUsersForRate, proportionEstimate, ratioEstimate, ratioTest, signTest, twoProportionTest, welchTest } from './statistics.js';

const zero = (): RollupCounters => Object.fromEntries(ROLLUP_COUNTERS.map((c) => [c, 0])) as RollupCounters;
const row = (variant: string, customer: string, counters: Partial<RollupCounters>, tactic = ''): RollupTotal =>
  ({ key: experimentUserKey(variant, customer), tactic, counters: { ...zero(), ...counters } });

function record(extra: Partial<ExperimentRecord> = {}): ExperimentRecord {
  return {
    websiteId: 'w', id: 'e', kind: 'search', name: 'n', method: 'ab', variants: [{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }],
    from: 0, until: null, createdAt: 0, stoppedAt: null, ...extra,
  };
}

describe('experiment report', () => {
  it('counts per customer: users, searches, clicks, conversions; tests over per-user values against the control', () => {
    const rows: RollupTotal[] = [];
    // Control: 100 users, 2 searches each; 30 clicked one of them; 10 bought (20 each).
    for (let i = 0; i < 100; i++) rows.push(row('a', `a${i}`, { responses: 2, clicked: i < 30 ? 1 : 0, clicks: i < 30 ? 3 : 0, conversions: i < 10 ? 1 : 0, revenue: i < 10 ? 20 : 0 }));
    // Variant: 100 users; 45 clicked both searches; 20 bought.
    for (let i = 0; i < 100; i++) rows.push(row('b', `b${i}`, { responses: 2, clicked: i < 45 ? 2 : 0, clicks: i < 45 ? 2 : 0, conversions: i < 20 ? 2 : 0, revenue: i < 20 ? 30 : 0 }));
    // A customer whose only row is an outcome (its search expired): not a user.
    rows.push(row('b', 'ghost', { clicks: 1 }));
    // A variant name the experiment does not have: ignored.
    rows.push(row('z', 'z1', { responses: 1 }));
    const r = experimentReport(record(), rows, 1_000);
    const [a, b] = r.variants;
    expect(a).toMatchObject({ name: 'a', users: 100, searches: 200, clicks: 90, conversions: 10, revenue: 200 });
    expect(b).toMatchObject({ name: 'b', users: 100, searches: 200, clicks: 90, conversions: 40, revenue: 600 });
    // The CTR over searches, its interval over users (30 users clicked one of their 2 searches).
    const ctrA = { n: 100, x: 30, y: 200, xx: 30, yy: 400, xy: 60 };
    const ctrB = { n: 100, x: 90, y: 200, xx: 180, yy: 400, xy: 180 };
    expect(a!.ctr).toEqual(ratioEstimate(ctrA));
    expect(b!.conversionRate).toEqual(proportionEstimate(20, 100));
    expect(a!.revenuePerUser.value).toBe(2);
    expect(r.minUsers).toEqual({ ctr: minUsersForRate(30 / 200), conversionRate: minUsersForRate(0.1) });
    const revenueOf = (buyers: number, each: number) => Array.from({ length: 100 }, (_, i) => (i < buyers ? each : 0));
    const perUser = (values: number[]) => ({ n: values.length, sum: values.reduce((s, x) => s + x, 0), sumSquares: values.reduce((s, x) => s + x * x, 0) });
    expect(b!.vsControl!.ctr).toEqual({ ...ratioTest(ctrA, ctrB), significant: false });
    expect(b!.vsControl!.ctr.relativeDifference).toBeCloseTo(0.45 / 0.15 - 1, 12);
    expect(b!.vsControl!.conversionRate).toEqual({ ...twoProportionTest({ successes: 10, n: 100 }, { successes: 20, n: 100 }), significant: false });
    expect(b!.vsControl!.revenuePerUser).toEqual({ ...welchTest(perUser(revenueOf(10, 20)), perUser(revenueOf(20, 30))), significant: false });
    expect(a!.vsControl).toBeUndefined();
    expect(a!.tactics).toBeUndefined();
  });

  it('ctr and vsControl.ctr are one statistic: the comparison states the difference of the ctrs the report shows', () => {
    const rows: RollupTotal[] = [];
    // Control: 10 heavy users searching 10 times and clicking each time, 90 searching once without a click:
    // 100 of 190 searches clicked (52.6 %), while the mean of the users' own CTRs is 10 %.
    for (let i = 0; i < 10; i++) rows.push(row('a', `heavy${i}`, { responses: 10, clicked: 10, clicks: 10 }));
    for (let i = 0; i < 90; i++) rows.push(row('a', `light${i}`, { responses: 1 }));
    // Variant: 100 users searching once, 30 clicked: 30 %, by either reading.
    for (let i = 0; i < 100; i++) rows.push(row('b', `b${i}`, { responses: 1, clicked: i < 30 ? 1 : 0, clicks: i < 30 ? 1 : 0 }));
    const [a, b] = experimentReport(record(), rows, 0).variants;
    expect(a!.ctr.value).toBeCloseTo(100 / 190, 12);
    expect(b!.ctr.value).toBeCloseTo(0.3, 12);
    // It read +200 % (30 % against the 10 % per-user mean) beside a variant CTR 43 % below the control's.
    const vs = b!.vsControl!.ctr;
    expect(vs.relativeDifference).toBeCloseTo(0.3 / (100 / 190) - 1, 12);
    expect(vs.low!).toBeLessThan(vs.relativeDifference!);
    expect(vs.high!).toBeGreaterThan(vs.relativeDifference!);
    expect(vs.test).toMatch(/ratio/);
    // The users' searches are not independent: the control's interval is wider than one over 190 independent searches.
    const independent = proportionEstimate(100, 190);
    expect(a!.ctr.high! - a!.ctr.low!).toBeGreaterThan(independent.high - independent.low);
    expect(a!.ctr.interval).toMatch(/effective/);
  });

  it('rounds money as every report does (6 decimals), not to the float sum of the prices', () => {
    // 0.1 + 0.2 read 0.30000000000000004 in an experiment's revenue while the other reports showed 0.3.
    const rows = [
      row('a', 'c1', { responses: 1, conversions: 1, revenue: 0.1 }), row('a', 'c2', { responses: 1, conversions: 1, revenue: 0.2 }),
      row('a', 'c1', { results: 1, conversions: 1, revenue: 0.1 }, 'Viewed With'), row('a', 'c2', { results: 1, conversions: 1, revenue: 0.2 }, 'Viewed With'),
    ];
    expect(0.1 + 0.2).not.toBe(0.3);
    const r = experimentReport(record({ kind: 'recommendations' }), rows, 0);
    expect(r.variants[0]).toMatchObject({ revenue: 0.3, tactics: [{ tactic: 'Viewed With', revenue: 0.3 }] });
  });

  it('says significant only once every variant has minUsers (the fixed horizon)', () => {
    const rows: RollupTotal[] = [];
    const n = 20_000;
    for (let i = 0; i < n; i++) rows.push(row('a', `a${i}`, { responses: 1, conversions: i < n * 0.1 ? 1 : 0 }));
    for (let i = 0; i < n; i++) rows.push(row('b', `b${i}`, { responses: 1, conversions: i < n * 0.12 ? 1 : 0 }));
    const reached = experimentReport(record(), rows, 0);
    expect(reached.minUsers.conversionRate).toBeLessThan(n);
    expect(reached.variants[1]!.vsControl!.conversionRate.significant).toBe(true);
    const early = experimentReport(record(), rows.filter((r, i) => i < n || i < n + 10_000), 0);
    expect(early.variants[1]!.users).toBe(10_000);
    expect(early.variants[1]!.vsControl!.conversionRate.pValue).toBeLessThan(0.05);
    expect(early.variants[1]!.vsControl!.conversionRate.significant).toBe(false);
  });

  it('recommendations: lists served and per-tactic counts per variant', () => {
    const rows = [
      row('a', 'c1', { responses: 3, results: 15, clicked: 1, clicks: 1 }),
      row('a', 'c1', { results: 10, clicks: 1 }, 'Viewed With'),
      row('a', 'c1', { results: 5 }, 'Popular Items'),
      row('a', 'c2', { results: 4, clicks: 2, conversions: 1, revenue: 9 }, 'Viewed With'),
    ];
    const r = experimentReport(record({ kind: 'recommendations' }), rows, 0);
    expect(r.variants[0]).toMatchObject({ users: 1, served: 3, tactics: [
      { tactic: 'Popular Items', served: 5, clicks: 0, conversions: 0, revenue: 0 },
      { tactic: 'Viewed With', served: 14, clicks: 3, conversions: 1, revenue: 9 },
    ] });
    expect(r.variants[0]!.searches).toBeUndefined();
  });

  it('interleaving: credits per variant, each customer prefers the variant credited more, the sign test decides', () => {
    const rows: RollupTotal[] = [];
    for (let i = 0; i < 30; i++) {
      rows.push(row('interleaved', `c${i}`, { responses: 1, clicks: 2 }));
      // 25 customers credit b twice, 5 credit a once and b once (a tie: no preference).
      if (i < 25) rows.push(row('interleaved', `c${i}`, { clicks: 2 }, 'b'));
      else rows.push(row('interleaved', `c${i}`, { clicks: 1 }, 'a'), row('interleaved', `c${i}`, { clicks: 1 }, 'b'));
    }
    const r = experimentReport(record({ method: 'interleaving' }), rows, 0);
    expect(r.variants).toEqual([]);
    expect(r.interleaving).toEqual({
      credits: { a: 5, b: 55 }, users: 30, preferring: { a: 0, b: 25 }, preferred: 'b', ...signTest(0, 25),
    });
  });
});
