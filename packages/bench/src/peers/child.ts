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
  /** Untimed queries per type first, each engine alike (JIT and caches warm, as in a running service). */
  warmupWorkload: Workload;
  /** Time the warm-up of one request type may take at most, ms (a slow engine is not warmed for minutes). */
  warmupMs: number;
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
  /** A database engine's files after the build (its memory is the server's or the OS cache's, not this heap). */
  storageBytes?: number;
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
  const storageBytes = await adapter.storageBytes?.();
  const result: PeerRunResult = {
    engine: input.engine, name: adapter.name, products: count, buildMs, memoryBytes,
    rssBytes: process.memoryUsage().rss, ...(storageBytes === undefined ? {} : { storageBytes }), latency: {}, totals: {}, errors: {},
  };
  for (const type of REQUEST_TYPES) {
    const queries = input.workload[type].slice(0, input.maxQueries);
    if (queries.length === 0) continue; // the dataset has nothing to ask of this type (no style ids)
    try {
      const warmupStarted = performance.now();
      for (const query of input.warmupWorkload[type]) {
        await adapter.search(query);
        if (performance.now() - warmupStarted > input.warmupMs) break;
      }
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
