/**
 * The child-process side of a peer comparison: load the dataset, build one engine, measure build time
 * and retained memory, then time every request type's queries one at a time.
 * @module
 */
import { retainedBytes, serveChild } from '../child-process.js';
import { loadDataset } from '../datasets.js';
import { summarize, type LatencySummary } from '../stats.js';
import { REQUEST_TYPES, type DatasetSpec, type RequestType } from '../types.js';
import type { Workload } from '../workloads/index.js';
import { createAdapter, type EngineKey } from './adapter.js';

export interface PeerRunInput {
  engine: EngineKey;
  workers?: number;
  dataset: DatasetSpec;
  workload: Workload;
  /** Queries per type at most. */
  maxQueries: number;
  /** Time budget per request type, ms (the run stops early past it). */
  budgetMs: number;
  /** Untimed queries per type first (JIT warm-up). */
  warmup: number;
  /** Totals of the first `checkSample` queries per type are returned for checking. */
  checkSample: number;
}

export interface PeerRunResult {
  engine: EngineKey;
  name: string;
  products: number;
  buildMs: number;
  memoryBytes: number;
  rssBytes: number;
  latency: Partial<Record<RequestType, LatencySummary>>;
  totals: Partial<Record<RequestType, number[]>>;
  errors: Partial<Record<RequestType, string>>;
}

async function run(input: PeerRunInput): Promise<PeerRunResult> {
  const before = await retainedBytes();
  let products = await loadDataset(input.dataset);
  const count = products.length;
  const adapter = await createAdapter(input.engine, { workers: input.workers });
  const t0 = performance.now();
  await adapter.build(products);
  const buildMs = performance.now() - t0;
  products = [];
  const memoryBytes = (await retainedBytes()) - before;
  const result: PeerRunResult = {
    engine: input.engine, name: adapter.name, products: count, buildMs, memoryBytes,
    rssBytes: process.memoryUsage().rss, latency: {}, totals: {}, errors: {},
  };
  for (const type of REQUEST_TYPES) {
    const queries = input.workload[type].slice(0, input.maxQueries);
    if (queries.length === 0) continue; // the dataset has nothing to ask of this type (no style ids)
    try {
      for (let i = 0; i < Math.min(input.warmup, queries.length); i++) await adapter.search(queries[queries.length - 1 - i]!);
      const samples: number[] = [];
      const totals: number[] = [];
      const started = performance.now();
      for (let i = 0; i < queries.length; i++) {
        const t = performance.now();
        const outcome = await adapter.search(queries[i]!);
        samples.push(performance.now() - t);
        if (i < input.checkSample) totals.push(outcome.total);
        if (performance.now() - started > input.budgetMs && i >= Math.min(queries.length, input.checkSample) - 1) break;
      }
      result.latency[type] = summarize(samples);
      result.totals[type] = totals;
    } catch (err) {
      result.errors[type] = err instanceof Error ? err.message : String(err);
    }
  }
  await adapter.close?.();
  return result;
}

serveChild(run);
