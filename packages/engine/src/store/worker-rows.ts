/**
 * The rows written on every answer (result lists, logged responses) as they cross from the main thread
 * to the embedded store's worker (sqlite-store.ts → sqlite-worker.ts): in runs of consecutive rows that
 * share their repeated fields (website, kind, method or query, …), those fields once per run and each
 * row's own fields in one flat array. Why: the structured clone writes every property name and every
 * string of every object again; a busy website's lists repeat all but their id, products, customer and
 * time. A result list cost the main thread ~0.7 µs to clone as an object, ~0.3 µs this way (decision 0071);
 * the rows the worker writes, and their order, are the same. Pure.
 * @module
 */
import type { AnalyticsBatch, LoggedResponse, ResultPageRecord } from './store.js';

/** Result lists of one run: their shared fields, then per list {@link PAGE_FIELDS} values in `lists`. */
export interface ResultPageRun {
  websiteId: string;
  kind: ResultPageRecord['kind'];
  source: string;
  variant: string | null;
  firstPosition: number;
  /** Per list: queryId, customerId, sessionId, refIds, createdAt, experiment (null outside one), span. */
  lists: (string | number | null | string[] | NonNullable<ResultPageRecord['experiment']>)[];
}

/** Values per list in {@link ResultPageRun.lists}. */
const PAGE_FIELDS = 7;

/** Whether `page` belongs to `run` (shares its repeated fields). */
function inPageRun(run: ResultPageRun, page: ResultPageRecord): boolean {
  return run.websiteId === page.websiteId && run.kind === page.kind && run.source === page.source
    && run.variant === page.variant && run.firstPosition === page.firstPosition;
}

/** The lists as runs (see the module comment), in their order. */
export function resultPageRuns(pages: readonly ResultPageRecord[]): ResultPageRun[] {
  const runs: ResultPageRun[] = [];
  let run: ResultPageRun | undefined;
  for (const page of pages) {
    if (run === undefined || !inPageRun(run, page)) {
      run = { websiteId: page.websiteId, kind: page.kind, source: page.source, variant: page.variant, firstPosition: page.firstPosition, lists: [] };
      runs.push(run);
    }
    run.lists.push(page.queryId, page.customerId, page.sessionId, page.refIds, page.createdAt, page.experiment ?? null, page.span ?? 1);
  }
  return runs;
}

/** The lists of `runs`, in order, as records again. */
export function* resultPagesOfRuns(runs: readonly ResultPageRun[]): Generator<ResultPageRecord> {
  for (const run of runs) {
    const { lists } = run;
    for (let i = 0; i < lists.length; i += PAGE_FIELDS) {
      const page: ResultPageRecord = {
        websiteId: run.websiteId, queryId: lists[i] as string, kind: run.kind, source: run.source, variant: run.variant,
        customerId: lists[i + 1] as string | null, sessionId: lists[i + 2] as string | null, firstPosition: run.firstPosition,
        refIds: lists[i + 3] as string[], createdAt: lists[i + 4] as number,
      };
      const experiment = lists[i + 5] as ResultPageRecord['experiment'] | null;
      if (experiment !== null) page.experiment = experiment;
      const span = lists[i + 6] as number;
      if (span > 1) page.span = span;
      yield page;
    }
  }
}

/** Logged responses of one run: their shared fields, then per response queryId, at and countedAs in `rows`. */
export interface LoggedResponseRun {
  websiteId: string;
  kind: LoggedResponse['kind'];
  key: string;
  rows: (string | number | null)[];
}

/** Values per response in {@link LoggedResponseRun.rows}. */
const RESPONSE_FIELDS = 3;

/** The responses as runs (see the module comment), in their order. */
export function loggedResponseRuns(responses: readonly LoggedResponse[]): LoggedResponseRun[] {
  const runs: LoggedResponseRun[] = [];
  let run: LoggedResponseRun | undefined;
  for (const r of responses) {
    if (run === undefined || run.websiteId !== r.websiteId || run.kind !== r.kind || run.key !== r.key) {
      run = { websiteId: r.websiteId, kind: r.kind, key: r.key, rows: [] };
      runs.push(run);
    }
    run.rows.push(r.queryId, r.at, r.countedAs);
  }
  return runs;
}

/** The responses of `runs`, in order, as records again. */
export function loggedResponsesOfRuns(runs: readonly LoggedResponseRun[]): LoggedResponse[] {
  const out: LoggedResponse[] = [];
  for (const run of runs) {
    const { rows } = run;
    for (let i = 0; i < rows.length; i += RESPONSE_FIELDS) {
      out.push({ websiteId: run.websiteId, queryId: rows[i] as string, kind: run.kind, at: rows[i + 1] as number, key: run.key, countedAs: rows[i + 2] as string | null });
    }
  }
  return out;
}

/** An analytics batch as it crosses to the worker: its responses in runs, the rest as they are. */
export type WorkerAnalyticsBatch = Omit<AnalyticsBatch, 'responses'> & { responses: LoggedResponseRun[] };

/** `batch` as it crosses to the worker. */
export function workerAnalyticsBatch(batch: AnalyticsBatch): WorkerAnalyticsBatch {
  return { responses: loggedResponseRuns(batch.responses), rollups: batch.rollups, outcomes: batch.outcomes, sessions: batch.sessions };
}
