/**
 * An experiment's report as the public operation answers it: the experiment read from the store, this
 * process's logged searches flushed, then what the report is computed from (experiment-report.ts): for
 * an A/B test the per-variant sums the store computes from its customers' lifetime rows (a few rows
 * back, one read per customer, nothing summed per customer: decision 0050), for interleaving the
 * per-customer rows over the experiment's life (each user's credits are compared).
 * @module
 */
import { experimentKind, type SearchLog } from '../analytics/search-log.js';
import type { ExperimentReport } from '../contract/schemas.js';
import { hourOf } from '../store/analytics-rows.js';
import { storeCall } from '../store/store-call.js';
import type { ExperimentRecord, Store } from '../store/store.js';
import { reportFrom, type ReportInput } from './experiment-report.js';
import type { ExperimentService } from './experiment-service.js';

/** Where an experiment's report is read from. */
export interface ExperimentReportSources {
  experiments: ExperimentService;
  searchLog: SearchLog;
  store: Store;
}

/** Reads the report input of `record` at `now` (interleaving: its roll-ups from the hour it was created or scheduled from to now). */
export async function readReportInput(store: Store, record: ExperimentRecord, now: number): Promise<ReportInput> {
  const kind = experimentKind(record.id);
  if (record.method !== 'interleaving') return { method: 'ab', sums: await store.experimentSums(record.websiteId, kind) };
  const window = { fromHour: hourOf(Math.min(record.from ?? record.createdAt, record.createdAt)), toHour: hourOf(now) };
  return { method: 'interleaving', rows: await store.rollupTotals(record.websiteId, kind, window) };
}

/** The report of experiment `id` of a website, up to now; a store failure is `STORE_FAILURE`. */
export async function readExperimentReport(sources: ExperimentReportSources, websiteId: string, id: string): Promise<ExperimentReport> {
  const record = await storeCall(() => sources.experiments.get(websiteId, id));
  // What this process logged so far counts (every search chain ended), as in the search report.
  await sources.searchLog.flush(true);
  const now = Date.now();
  const input = await storeCall(() => readReportInput(sources.store, record, now));
  return reportFrom(record, input, now);
}
