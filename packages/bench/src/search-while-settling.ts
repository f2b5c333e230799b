/**
 * How fast aisle searches while the background work of a load runs, against once it has settled
 * (`engine.settled()`, which the peers run waits for): one engine, one catalog, the peers' text workload
 * (each query asked once, after the peers' warm-up of another seed) timed right after `replaceProducts`
 * returns, then, after `settled()`, the next queries of the same workload. Also prints how long the
 * load took and how long settling took after it.
 *
 *   node packages/bench/dist/search-while-settling.js [--products 100000 | --dataset flipkart] [--queries 300] [--type text]
 *
 * Figures are recorded in docs/benchmarks.md ("Settled").
 * @module
 */
import { createEngine } from '@aisle/engine';
import { option } from './cli-option.js';
import { datasetOfOptions, loadDataset } from './datasets.js';
import { BENCH_WEBSITE } from './peers/aisle.js';
import { STEADY_WARMUP } from './peers/compare.js';
import { summarize } from './stats.js';
import type { RequestType, SearchRequest } from './types.js';
import { buildWarmupWorkload, buildWorkload } from './workloads/index.js';

const queries = Number(option('queries', '300'));
const type = option('type', 'text') as RequestType;

/** Median and p99 (ms) of `samples`. */
function summary(samples: readonly number[]): string {
  const { median, p99, n } = summarize(samples);
  return `median ${median.toFixed(3)} ms, p99 ${p99.toFixed(2)} ms (n=${n})`;
}

async function main(): Promise<void> {
  const all = await loadDataset(datasetOfOptions('100000'));
  const sample = all.slice(0, 20_000);
  // Twice the queries: the first half timed while settling, the second once settled (none asked twice).
  const workload = buildWorkload(sample, 2 * queries);
  const bodies = workload[type];
  const warmup = buildWarmupWorkload(sample, STEADY_WARMUP, workload)[type];
  const engine = await createEngine({ websites: [BENCH_WEBSITE] });
  const timed = async (list: readonly SearchRequest[]): Promise<number[]> => {
    const samples: number[] = [];
    for (const body of list) {
      const t = performance.now();
      await engine.search(body);
      samples.push(performance.now() - t);
    }
    return samples;
  };
  const t0 = performance.now();
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, all);
  const loadedMs = performance.now() - t0;
  // The warm-up the peers run gives (2 s at most), then the timed queries, all while the load's indexes build.
  const warmStart = performance.now();
  for (const body of warmup) {
    await engine.search(body);
    if (performance.now() - warmStart > 2_000) break;
  }
  const settling = await timed(bodies.slice(0, queries));
  const waitStart = performance.now();
  await engine.settled();
  const settledMs = performance.now() - t0;
  const waitedMs = performance.now() - waitStart;
  const settled = await timed(bodies.slice(queries));
  console.log(`${all.length.toLocaleString('en-US')} products: loaded in ${(loadedMs / 1000).toFixed(2)} s, settled ${(settledMs / 1000).toFixed(2)} s after the load began (${(waitedMs / 1000).toFixed(2)} s still to wait after the timed queries)`);
  console.log(`  ${type} while settling: ${summary(settling)}`);
  console.log(`  ${type} once settled:   ${summary(settled)}`);
  await engine.close();
}

await main();
