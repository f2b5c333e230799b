/**
 * An experiment's report as the public operation answers it: the experiment read from the store, this
 * process's logged searches flushed, the experiment's roll-ups read and summed (experiment-report.ts).
 * @module
 */
import { experimentKind, type SearchLog } from '../analytics/search-log.js';
import type { ExperimentReport } from '../contract/schemas.js';
import { hourOf } from '../store/analytics-rows.js';
import { storeCall } from '../store/store-call.js';
import type { Store } from '../store/store.js';
import { experimentReport } from './experiment-report.js';
import type { ExperimentService } from './experiment-service.js';

/** Where an experiment's report is read from. */
export interface ExperimentReportSources {
  experiments: ExperimentService;
  searchLog: SearchLog;
  store: Store;
}

/** The report of experiment `id` of a website, up to now; a store failure is `STORE_FAILURE`. */
export async function readExperimentReport(sources: ExperimentReportSources, websiteId: string, id: string): Promise<ExperimentReport> {
  const record = await storeCall(() => sources.experiments.get(websiteId, id));
  // What this process logged so far counts (every search chain ended), as in the search report.
  await sources.searchLog.flush(true);
  const now = Date.now();
  const rows = await storeCall(() => sources.store.rollupTotals(websiteId, experimentKind(id), {
    fromHour: hourOf(Math.min(record.from ?? record.createdAt, record.createdAt)), toHour: hourOf(now),
  }));
  return experimentReport(record, rows, now);
}
