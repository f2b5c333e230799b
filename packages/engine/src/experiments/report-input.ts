/**
 * What an experiment's report is computed from, read from the store over the experiment's life: for an
 * A/B test the per-variant sums the store computes from its customers' lifetime rows (a few rows back,
 * one read per customer, nothing summed per customer: decision 0050), for interleaving the per-customer
 * rows themselves (each user's credits are compared). `reportFrom` (experiment-report.ts) turns either
 * into the report.
 * @module
 */
import { experimentKind } from '../analytics/search-log.js';
import { hourOf } from '../store/analytics-rows.js';
import type { ExperimentRecord, ExperimentSums, RollupTotal, Store } from '../store/store.js';

/** The store's answer for one report. */
export type ReportInput = { method: 'ab'; sums: ExperimentSums[] } | { method: 'interleaving'; rows: RollupTotal[] };

/** Reads the report input of `record` at `now`: its roll-ups from the hour it was created (or scheduled from) to now. */
export async function readReportInput(store: Store, record: ExperimentRecord, now: number): Promise<ReportInput> {
  const kind = experimentKind(record.id);
  if (record.method !== 'interleaving') return { method: 'ab', sums: await store.experimentSums(record.websiteId, kind) };
  const window = { fromHour: hourOf(Math.min(record.from ?? record.createdAt, record.createdAt)), toHour: hourOf(now) };
  return { method: 'interleaving', rows: await store.rollupTotals(record.websiteId, kind, window) };
}
