/**
 * The check that a durable store's database written by the previous release answers, once opened by
 * this one (its pending migrations applied), every analytics report as a database written by this one
 * from the start does. Each durable store's test file calls {@link runPreviousVersionCheck} with a way
 * to turn one of its databases into the previous release's (as {@link runStoreContract} takes a factory).
 *
 * The previous release is main before decision 0050's lifetime rows (f3e1d15): its migrations are this
 * release's but the last (`lifetimeRowsSql`; compared as generated SQL, equal), and its analytics writer
 * wrote the same rows but the lifetime ones (`rollupRowsOf` before 88f465d: every grain of
 * `ROLLUP_GRAINS`, nothing else; the other analytics tables unchanged). A store's harness therefore
 * builds the previous release's database from the migrations before `lifetimeRowsSql` and copies every
 * row of this release's database into it, the lifetime rows left out.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../util/seeded-random.js';
import { DAY_MS, HOUR_MS } from './analytics-rows.js';
import type { AnalyticsBatch, AnalyticsKind, LoggedResponse, QuerySession, ResponseOutcome, RollupDelta, Store } from './store.js';

/** What {@link runPreviousVersionCheck} needs of a durable store. */
export interface PreviousVersionHarness {
  /** A fresh, empty store of this release. */
  fresh(): Promise<Store>;
  /**
   * Closes `store` and builds from its database the previous release's (its schema version, its rows as
   * that release wrote them), then opens that one with this release's store: the migration under test.
   */
  migratedCopy(store: Store): Promise<Store>;
}

/** The websites, experiments and variants of the history. */
const WEBSITES = ['w1', 'w2'] as const;
const EXPERIMENTS: { kind: AnalyticsKind; variants: string[] }[] = [
  { kind: 'experiment:ab1', variants: ['control', 'b'] },
  { kind: 'experiment:ab2', variants: ['control', 'b', 'c'] },
];
const QUERIES = ['shoe', 'red shoe', 'sofa', 'lamp', 'desk', 'oak desk', 'rug'];
const METHODS = ['Popular', 'ViewedWith'];
const TACTICS = ['Popular', 'Viewed With', 'Bought With'];

/**
 * A deterministic analytics history as the search log hands it to the store: searches (some of them
 * typed-ahead chains counted as their last search) and recommendation responses, each in its
 * experiment's customer row when it was served under one, with clicks and conversions that sometimes
 * arrive in a later batch (a conversion days later, its response in another 64-day block). Days
 * `[fromDay, toDay)`, one batch per `batchDays`.
 */
export function analyticsHistory(seed: number, fromDay: number, toDay: number, batchDays = 3): AnalyticsBatch[] {
  const random = new Random(seed);
  const pick = <T>(items: readonly T[]): T => items[random.int(0, items.length - 1)]!;
  const price = () => Math.round(random.next() * 20_000) / 100 + 0.99;
  const batches: AnalyticsBatch[] = [];
  // Outcomes that arrive later: the batch index they go to.
  const later = new Map<number, ResponseOutcome[]>();
  let n = 0;
  for (let day = fromDay, b = 0; day < toDay; day += batchDays, b++) {
    const responses: LoggedResponse[] = [];
    const rollups: RollupDelta[] = [];
    const outcomes: ResponseOutcome[] = [...(later.get(b) ?? [])];
    const sessions: QuerySession[] = [];
    const outcome = (o: ResponseOutcome) => {
      if (random.chance(0.3)) {
        const at = b + random.int(1, 25);
        later.set(at, [...(later.get(at) ?? []), o]);
      } else outcomes.push(o);
    };
    for (let i = 0; i < 15 * batchDays; i++) {
      const websiteId = pick(WEBSITES);
      const at = (day + random.int(0, batchDays - 1)) * DAY_MS + random.int(0, 23) * HOUR_MS + random.int(0, HOUR_MS - 1);
      const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
      const customer = `c${random.int(0, 49)}`;
      const x = random.chance(0.7) ? pick(EXPERIMENTS) : undefined;
      const userKey = x === undefined ? '' : `${x.variants[Number(customer.slice(1)) % x.variants.length]}\u001f${customer}`;
      const queryId = `q${seed}-${n++}`;
      if (random.chance(0.6)) {
        const query = pick(QUERIES);
        const results = random.chance(0.1) ? 0 : random.int(1, 300);
        responses.push({ websiteId, queryId, kind: 'search', at, key: query, countedAs: null });
        // A typed-ahead search counted as this one.
        const typed = random.chance(0.3);
        if (typed) responses.push({ websiteId, queryId: `${queryId}-typed`, kind: 'search', at: at - 1000, key: query.slice(0, 2), countedAs: queryId });
        rollups.push({ websiteId, kind: 'search', hour, key: query, tactic: '', counters: { responses: 1, results, noResults: results === 0 ? 1 : 0 } });
        if (results > 0) sessions.push({ websiteId, query, session: `s-${customer}-${day}`, hour });
        if (x !== undefined) {
          responses.push({ websiteId, queryId: `x-${queryId}`, kind: 'search', at, key: userKey, countedAs: null });
          rollups.push({ websiteId, kind: x.kind, hour, key: userKey, tactic: '', counters: { responses: 1 } });
        }
        for (let c = random.chance(0.4) ? random.int(1, 3) : 0; c > 0; c--) {
          const position = random.int(1, 20);
          const clickedId = typed && random.chance(0.5) ? `${queryId}-typed` : queryId;
          outcome({ websiteId, kind: 'search', queryId: clickedId, at: at + 60_000, key: query, counters: { clicks: 1, positionedClicks: 1, clickPositions: position }, flag: 'clicked' });
          if (x !== undefined) outcome({ websiteId, kind: x.kind, queryId: `x-${queryId}`, at: at + 60_000, key: userKey, counters: { clicks: 1 }, flag: 'clicked' });
        }
        if (random.chance(0.15)) {
          const revenue = price();
          outcome({ websiteId, kind: 'search', queryId, at: at + DAY_MS, key: query, counters: { conversions: 1, revenue }, flag: 'converted' });
          if (x !== undefined) outcome({ websiteId, kind: x.kind, queryId: `x-${queryId}`, at: at + DAY_MS, key: userKey, counters: { conversions: 1, revenue }, flag: 'converted' });
        }
      } else {
        const method = pick(METHODS);
        const tactics = TACTICS.slice(0, random.int(1, TACTICS.length));
        responses.push({ websiteId, queryId, kind: 'recommendation', at, key: method, countedAs: null });
        rollups.push({ websiteId, kind: 'recommendation', hour, key: method, tactic: '', counters: { responses: 1, results: tactics.length } });
        for (const tactic of tactics) rollups.push({ websiteId, kind: 'recommendation', hour, key: method, tactic, counters: { results: 1 } });
        if (x !== undefined) {
          responses.push({ websiteId, queryId: `x-${queryId}`, kind: 'recommendation', at, key: userKey, countedAs: null });
          rollups.push({ websiteId, kind: x.kind, hour, key: userKey, tactic: '', counters: { responses: 1, results: tactics.length } });
          for (const tactic of tactics) rollups.push({ websiteId, kind: x.kind, hour, key: userKey, tactic, counters: { results: 1 } });
        }
        if (random.chance(0.3)) {
          const tactic = pick(tactics);
          const counters = random.chance(0.3) ? { conversions: 1, revenue: price() } : { clicks: 1 };
          const flag = 'revenue' in counters ? 'converted' as const : 'clicked' as const;
          outcome({ websiteId, kind: 'recommendation', queryId, at: at + 60_000, key: method, tactic, counters, flag });
          if (x !== undefined) outcome({ websiteId, kind: x.kind, queryId: `x-${queryId}`, at: at + 60_000, key: userKey, tactic, counters, flag });
        }
      }
    }
    batches.push({ responses, rollups, outcomes, sessions });
  }
  // Outcomes due after the last batch come with it.
  const overdue = [...later].filter(([at]) => at >= batches.length).flatMap(([, outcomes]) => outcomes);
  const last = batches.at(-1)!;
  batches[batches.length - 1] = { ...last, outcomes: [...last.outcomes, ...overdue] };
  return batches;
}

/** A float as the reports are compared: 12 significant digits (sums added in another order differ in the last bits). */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(rounded);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]));
  return value;
}

/** Sorted by their JSON: the stores answer rows in no defined order. */
function sorted<T>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

/** Every analytics report a store answers over the history's days: experiment sums, totals of every kind over several windows, completions. */
export async function analyticsReports(store: Store, toDay: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const windows = [
    { fromHour: 0, toHour: toDay * DAY_MS }, { fromHour: 30 * DAY_MS, toHour: 100 * DAY_MS - HOUR_MS },
    { fromHour: 63 * DAY_MS + 5 * HOUR_MS, toHour: 65 * DAY_MS + 2 * HOUR_MS }, { fromHour: 128 * DAY_MS, toHour: 128 * DAY_MS },
  ];
  for (const websiteId of WEBSITES) {
    for (const kind of ['search', 'recommendation', ...EXPERIMENTS.map((x) => x.kind)] as AnalyticsKind[]) {
      for (const [i, window] of windows.entries()) out[`${websiteId} ${kind} totals ${i}`] = rounded(sorted(await store.rollupTotals(websiteId, kind, window)));
    }
    for (const { kind } of EXPERIMENTS) out[`${websiteId} ${kind} sums`] = rounded(sorted(await store.experimentSums(websiteId, kind)));
    out[`${websiteId} completions`] = (await store.querySessions(websiteId, 20)).map((q) => ({ query: q.query, sessions: [...q.sessions].sort() }));
  }
  return out;
}

/** Runs the check against a durable store. */
export function runPreviousVersionCheck(name: string, harness: PreviousVersionHarness): void {
  describe(`${name}: a database of the previous release`, () => {
    it('answers every analytics report as one written by this release, before and after more is logged', async () => {
      // 150 days: three 64-day blocks; logged in two parts around the upgrade.
      const before = analyticsHistory(1, 0, 100);
      const after = analyticsHistory(2, 90, 150);
      const written = await harness.fresh();
      for (const batch of before) expect(await written.writeAnalytics(batch)).toEqual([]);
      const reference = await harness.fresh();
      for (const batch of before) await reference.writeAnalytics(batch);
      const migrated = await harness.migratedCopy(written);
      try {
        const expected = await analyticsReports(reference, 150);
        // Every experiment of every website has customers in the history (the check compares something).
        for (const [name, report] of Object.entries(expected)) if (name.endsWith(' sums')) expect(report, name).not.toEqual([]);
        expect(await analyticsReports(migrated, 150)).toEqual(expected);
        // Logged after the upgrade: added to the migrated rows, lifetime ones included.
        for (const batch of after) {
          await migrated.writeAnalytics(batch);
          await reference.writeAnalytics(batch);
        }
        expect(await analyticsReports(migrated, 150)).toEqual(await analyticsReports(reference, 150));
      } finally {
        await Promise.all([migrated.close(), reference.close()]);
      }
    });
  });
}
