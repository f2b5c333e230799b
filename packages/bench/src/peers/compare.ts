/**
 * The parent side of a peer comparison: one child process per engine, in turn (never two at once, so
 * they do not compete for the two cores), the same dataset and queries for all; totals checked
 * against the plain scan's.
 * @module
 */
import { runInChild } from '../child-process.js';
import { loadDataset } from '../datasets.js';
import { datasetLabel, REQUEST_TYPES, type DatasetSpec, type RequestType } from '../types.js';
import { buildWarmupWorkload, buildWorkload } from '../workloads/index.js';
import type { EngineKey } from './adapter.js';
import type { PeerRunInput, PeerRunResult } from './child.js';

/** The longest warm-up of one request type, ms: past it an engine is timed as warm as it got. */
const WARMUP_MS = 2_000;

/**
 * Warm-up queries per request type of a full comparison: an engine is timed as a running service
 * answers, its code compiled by the JIT. Node 20's V8 has no middle tier: after 100 queries aisle's
 * per-search code still ran unoptimised (its median 1.6-2× what it is once warm), while FlexSearch's
 * small loops were warm already (its median the same after 100 or 3,000; decision 0075). Bounded by
 * {@link WARMUP_MS} per type, so a slow engine is warmed as long as it can be in that time.
 */
export const STEADY_WARMUP = 3_000;

export interface CompareOptions {
  dataset: DatasetSpec;
  engines: EngineKey[];
  queries: number;
  budgetMs: number;
  /** Untimed warm-up queries per request type, for every engine alike ({@link buildWarmupWorkload}). */
  warmup: number;
  checkSample: number;
  timeoutMs: number;
  workers?: number;
  log?: (line: string) => void;
  /** Milliseconds left in the run's time budget (engines are skipped when it is nearly used up). */
  remainingMs?: () => number;
}

/** How many of the checked totals equal the scan's. */
export type Agreement = Partial<Record<RequestType, { equal: number; within5: number; of: number }>>;

export interface PeerComparison {
  dataset: string;
  queriesPerType: number;
  results: PeerRunResult[];
  failures: { engine: EngineKey; error: string }[];
  agreement: Partial<Record<EngineKey, Agreement>>;
}

export async function comparePeers(options: CompareOptions): Promise<PeerComparison> {
  const log = options.log ?? (() => {});
  const sample = await loadDataset(options.dataset, 20_000);
  const workload = buildWorkload(sample, options.queries);
  const warmupWorkload = buildWarmupWorkload(sample, options.warmup, workload);
  const comparison: PeerComparison = {
    dataset: datasetLabel(options.dataset), queriesPerType: options.queries, results: [], failures: [], agreement: {},
  };
  for (const engine of options.engines) {
    const input: PeerRunInput = {
      engine, workers: options.workers, dataset: options.dataset, workload, maxQueries: options.queries,
      budgetMs: options.budgetMs, warmupWorkload, warmupMs: WARMUP_MS, checkSample: options.checkSample,
    };
    const started = Date.now();
    const remaining = options.remainingMs?.() ?? Infinity;
    if (remaining < 45_000) {
      comparison.failures.push({ engine, error: 'skipped: the run\'s time budget was used up' });
      log(`  ${engine}: skipped (time budget)`);
      continue;
    }
    try {
      const result = await runInChild<PeerRunInput, PeerRunResult>('peers/child', input, { timeoutMs: Math.min(options.timeoutMs, remaining - 20_000) });
      comparison.results.push(result);
      log(`  ${result.name}: build ${(result.buildMs / 1000).toFixed(2)} s, ${REQUEST_TYPES.map((t) => `${t} ${result.latency[t]?.median.toFixed(2) ?? 'err'}`).join(', ')} ms (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      for (const [type, error] of Object.entries(result.errors)) log(`    ${type}: ${error}`);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      comparison.failures.push({ engine, error });
      log(`  ${engine}: FAILED ${error}`);
    }
  }
  const scan = comparison.results.find((r) => r.engine === 'scan');
  if (scan) {
    for (const r of comparison.results) {
      const agreement: Agreement = {};
      for (const type of REQUEST_TYPES) {
        const ref = scan.totals[type] ?? [];
        const got = r.totals[type] ?? [];
        const n = Math.min(ref.length, got.length);
        let equal = 0, within5 = 0;
        for (let i = 0; i < n; i++) {
          if (got[i] === ref[i]) equal++;
          if (Math.abs(got[i]! - ref[i]!) <= Math.max(1, 0.05 * ref[i]!)) within5++;
        }
        agreement[type] = { equal, within5, of: n };
      }
      comparison.agreement[r.engine] = agreement;
    }
  }
  return comparison;
}
