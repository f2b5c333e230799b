/**
 * The analytics arithmetic every store shares (pure): the roll-up rows a batch of deltas adds to (one
 * per hour and one per day), the plan of a batch's outcomes (which responses get their first click or
 * conversion), the split of a report window into whole days and edge hours, and the column names of the
 * counters. The stores only read and write what these functions decide.
 * @module
 */
import {
  ROLLUP_COUNTERS, type AnalyticsKind, type ExperimentSums, type QuerySessions, type ResponseOutcome, type RollupCounter, type RollupCounters, type RollupDelta, type RollupTotal, type RollupWindow,
} from './store.js';

/** One hour, in ms. */
export const HOUR_MS = 3_600_000;
/** One day (UTC), in ms. */
export const DAY_MS = 24 * HOUR_MS;

/** The start of the hour of `ms`. */
export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** The SQL column of each counter, in {@link ROLLUP_COUNTERS} order (`noResults` → `no_results`). */
export const ROLLUP_COLUMNS: readonly string[] = ROLLUP_COUNTERS.map((c) => c.replace(/[A-Z]/g, (l) => `_${l.toLowerCase()}`));

/** Every counter at zero. */
export function emptyCounters(): RollupCounters {
  return Object.fromEntries(ROLLUP_COUNTERS.map((c) => [c, 0])) as RollupCounters;
}

/** Adds `delta`'s counters to `into`. */
export function addCounters(into: RollupCounters, delta: Partial<RollupCounters>): void {
  for (const c of ROLLUP_COUNTERS) into[c] += delta[c] ?? 0;
}

/**
 * The grains of the roll-ups, finest first: an hour, a day, and blocks of 4, 16 and 64 days (aligned on
 * multiples of their length since the epoch). Every delta is added to one row of each, so a report's
 * window is covered by a few blocks of each size ({@link windowRanges}: at most 6 of each) and reads
 * rows per distinct query and block, not per day: 90 days are about nine blocks, not 90 days of rows.
 */
export const ROLLUP_GRAINS = [
  { grain: 'h', ms: HOUR_MS }, { grain: 'd', ms: DAY_MS }, { grain: 'd4', ms: 4 * DAY_MS }, { grain: 'd16', ms: 16 * DAY_MS }, { grain: 'd64', ms: 64 * DAY_MS },
] as const;

/**
 * The grain of an experiment's lifetime rows (start 0): besides its rows of every grain, each customer of
 * an experiment has one row summing all it logged, kept up to date as deltas are added (decision 0050),
 * so a report reads one row per customer and tactic and sums nothing per customer. Never part of a window.
 */
export const LIFETIME_GRAIN = 'all';

/** Whether a kind's deltas also go to its lifetime rows (an experiment's: see {@link LIFETIME_GRAIN}). */
export function hasLifetimeRows(kind: AnalyticsKind): boolean {
  return kind.startsWith(EXPERIMENT_KIND_PREFIX);
}

/** The prefix of an experiment's analytics kind (`experiment:<id>`). */
export const EXPERIMENT_KIND_PREFIX = 'experiment:';

/** The grain of a roll-up row. */
export type RollupGrain = (typeof ROLLUP_GRAINS)[number]['grain'] | typeof LIFETIME_GRAIN;

/** One roll-up row to add to: its key and the counters to add. */
export interface RollupRow {
  websiteId: string;
  kind: AnalyticsKind;
  grain: RollupGrain;
  /** Start of the hour or day. */
  start: number;
  key: string;
  tactic: string;
  counters: RollupCounters;
}

/** The key of a roll-up row, as a string (for maps). */
export function rollupRowKey(r: Omit<RollupRow, 'counters'>): string {
  return JSON.stringify([r.websiteId, r.kind, r.grain, r.start, r.key, r.tactic]);
}

/**
 * The rows `deltas` add to, merged: each delta goes to its row of each grain (and an experiment's to its
 * lifetime row), and deltas of one row add up (so one statement per row, and distinct keys, as one `INSERT … ON CONFLICT` needs).
 */
export function rollupRowsOf(deltas: readonly RollupDelta[]): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  const add = (d: RollupDelta, grain: RollupGrain, start: number) => {
    const id = { websiteId: d.websiteId, kind: d.kind, grain, start, key: d.key, tactic: d.tactic };
    const k = rollupRowKey(id);
    let row = rows.get(k);
    if (row === undefined) rows.set(k, (row = { ...id, counters: emptyCounters() }));
    addCounters(row.counters, d.counters);
  };
  for (const d of deltas) {
    for (const { grain, ms } of ROLLUP_GRAINS) add(d, grain, Math.floor(d.hour / ms) * ms);
    if (hasLifetimeRows(d.kind)) add(d, LIFETIME_GRAIN, 0);
  }
  return [...rows.values()];
}

/** A logged response as an outcome finds it: the response it is counted as, and that one's flags. */
export interface CountedResponse {
  /** The query id of the counted response (the end of the chain). */
  queryId: string;
  at: number;
  key: string;
  clicked: boolean;
  converted: boolean;
}

/** What a batch's outcomes do: flags to set on counted responses, and roll-up deltas. */
export interface OutcomePlan {
  flags: { queryId: string; flag: 'clicked' | 'converted' }[];
  deltas: RollupDelta[];
  /** Indexes of the outcomes with `wait` whose response was not found: not applied, handed back to the caller. */
  waiting: number[];
}

/**
 * Plans a batch's outcomes over the counted responses found for their query ids (`found`, by the
 * outcome's query id). A response's flag is set once, by its first outcome of that kind, here or in an
 * earlier batch; that outcome adds 1 to the flag's counter.
 */
export function planOutcomes(outcomes: readonly ResponseOutcome[], found: ReadonlyMap<string, CountedResponse>): OutcomePlan {
  const plan: OutcomePlan = { flags: [], deltas: [], waiting: [] };
  const flagged = new Set<string>();
  for (const [i, o] of outcomes.entries()) {
    const counted = o.queryId === undefined ? undefined : found.get(o.queryId);
    if (counted === undefined && o.queryId !== undefined && o.wait === true) {
      plan.waiting.push(i);
      continue;
    }
    const hour = hourOf(counted?.at ?? o.at);
    const key = counted?.key ?? o.key;
    const counters: Partial<RollupCounters> = { ...o.counters };
    if (counted !== undefined) {
      const seen = counted[o.flag] || flagged.has(`${o.flag}:${counted.queryId}`);
      if (!seen) {
        flagged.add(`${o.flag}:${counted.queryId}`);
        plan.flags.push({ queryId: counted.queryId, flag: o.flag });
        counters[o.flag] = (counters[o.flag] ?? 0) + 1;
      }
    }
    plan.deltas.push({ websiteId: o.websiteId, kind: o.kind, hour, key, tactic: '', counters });
    if (o.tactic !== undefined) plan.deltas.push({ websiteId: o.websiteId, kind: o.kind, hour, key, tactic: o.tactic, counters: o.counters });
  }
  return plan;
}

/** A run of rows of one grain: those whose start is within [from, to]. */
export interface GrainRange {
  grain: RollupGrain;
  from: number;
  to: number;
}

/** A report window as runs of rows: the largest aligned blocks inside it, smaller ones toward its ends. */
export type WindowRanges = GrainRange[];

/** Covers the hours [from, end) with blocks of `level` and finer ones, largest first. */
function cover(from: number, end: number, level: number, out: GrainRange[]): void {
  if (from >= end) return;
  const { grain, ms } = ROLLUP_GRAINS[level]!;
  const first = Math.ceil(from / ms) * ms;
  const last = Math.floor(end / ms) * ms;
  if (level === 0 || first < last) {
    if (first < last) out.push({ grain, from: first, to: last - ms });
    if (level > 0) {
      cover(from, first, level - 1, out);
      cover(last, end, level - 1, out);
    }
  } else cover(from, end, level - 1, out);
}

/** The runs of rows that hold exactly the hours whose start lies in the window. */
export function windowRanges(window: RollupWindow): WindowRanges {
  const out: GrainRange[] = [];
  cover(hourOf(window.fromHour), hourOf(window.toHour) + HOUR_MS, ROLLUP_GRAINS.length - 1, out);
  return out;
}

/** True when a row of `grain` starting at `start` lies in the window's ranges. */
export function inWindow(ranges: WindowRanges, grain: RollupGrain, start: number): boolean {
  return ranges.some((r) => r.grain === grain && start >= r.from && start <= r.to);
}

/** Sums rows (already limited to a website, kind and window) per key and tactic. */
export function sumRollups(rows: Iterable<Pick<RollupRow, 'key' | 'tactic' | 'counters'>>): RollupTotal[] {
  const totals = new Map<string, RollupTotal>();
  for (const r of rows) {
    const k = JSON.stringify([r.key, r.tactic]);
    let t = totals.get(k);
    if (t === undefined) totals.set(k, (t = { key: r.key, tactic: r.tactic, counters: emptyCounters() }));
    addCounters(t.counters, r.counters);
  }
  return [...totals.values()];
}

/** Counters read from a SQL row whose columns are {@link ROLLUP_COLUMNS} (numbers or numeric strings). */
export function countersFromRow(row: Record<string, unknown>): RollupCounters {
  const out = emptyCounters();
  ROLLUP_COUNTERS.forEach((c: RollupCounter, i) => { out[c] = Number(row[ROLLUP_COLUMNS[i]!] ?? 0); });
  return out;
}

/**
 * Separates the variant from the customer in an experiment row's key: the unit separator, which no
 * variant name holds (names refuse control characters; PostgreSQL text refuses NUL). The key is split
 * at its first one, so a customer id may hold it.
 */
export const EXPERIMENT_KEY_SEPARATOR = '\u001f';

/** The variant of an experiment row's key (the whole key when it has no separator). */
export function variantOfKey(key: string): string {
  const at = key.indexOf(EXPERIMENT_KEY_SEPARATOR);
  return at < 0 ? key : key.slice(0, at);
}

/**
 * {@link ExperimentSums} of per-customer totals (what the SQL stores compute in their query; the memory
 * store and the tests compute it here), in order of first appearance. Pure.
 */
export function experimentSumsOf(rows: readonly RollupTotal[]): ExperimentSums[] {
  const out = new Map<string, ExperimentSums>();
  for (const { key, tactic, counters } of rows) {
    if (tactic === '' && counters.responses <= 0) continue;
    const variant = variantOfKey(key);
    const id = `${variant}${EXPERIMENT_KEY_SEPARATOR}${tactic}`;
    let s = out.get(id);
    if (s === undefined) out.set(id, (s = { variant, tactic, users: 0, counters: emptyCounters(), converters: 0, ctrClicked: 0, ctrClickedSquares: 0, responsesSquares: 0, ctrClickedResponses: 0, revenueSquares: 0 }));
    s.users++;
    addCounters(s.counters, counters);
    if (counters.conversions > 0) s.converters++;
    const clicked = Math.min(counters.clicked, counters.responses);
    s.ctrClicked += clicked;
    s.ctrClickedSquares += clicked * clicked;
    s.responsesSquares += counters.responses * counters.responses;
    s.ctrClickedResponses += clicked * counters.responses;
    s.revenueSquares += counters.revenue * counters.revenue;
  }
  return [...out.values()];
}

/** An {@link ExperimentSums} from a row of the SQL stores' `experimentSumsSql` (numbers may arrive as strings). */
export function experimentSumsFromRow(row: Record<string, unknown>): ExperimentSums {
  return {
    variant: row.variant as string, tactic: row.tactic as string, users: Number(row.users), counters: countersFromRow(row),
    converters: Number(row.converters), ctrClicked: Number(row.ctr_clicked), ctrClickedSquares: Number(row.ctr_clicked_squares),
    responsesSquares: Number(row.responses_squares), ctrClickedResponses: Number(row.ctr_clicked_responses), revenueSquares: Number(row.revenue_squares),
  };
}

/** The counters' values in {@link ROLLUP_COUNTERS} order (the order of {@link ROLLUP_COLUMNS}). */
export function counterValues(counters: RollupCounters): number[] {
  return ROLLUP_COUNTERS.map((c) => counters[c]);
}

/** Rows of (query, session) grouped by query (kept in their order) → one entry per query with its sessions. */
export function groupSessions(rows: readonly { query: string; session: string }[]): QuerySessions[] {
  const out: QuerySessions[] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (last?.query === r.query) last.sessions.push(r.session);
    else out.push({ query: r.query, sessions: [r.session] });
  }
  return out;
}

/** How often each value occurs. */
export function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}
