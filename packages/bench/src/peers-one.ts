/**
 * The peers run on one catalog only (the full run's `comparePeers`, its children and checks): a generated
 * catalog of one size, for a size the full run would take too long to reach on a loaded machine, or the
 * real Flipkart catalog (`--dataset flipkart`: its products are bigger than the generated ones):
 *
 *   node packages/bench/dist/peers-one.js [--products 1000000] [--dataset generated|flipkart] [--engines aisle,flexsearch,scan] [--queries 100] [--warmup 3000]
 *
 * Prints each engine's line (median ms per request type) as the full run logs it, then median / p99 and
 * the totals' agreement with the plain scan.
 * @module
 */
import { comparePeers, STEADY_WARMUP } from './peers/compare.js';
import type { EngineKey } from './peers/adapter.js';
import { option } from './cli-option.js';
import { datasetOfOptions } from './datasets.js';

const comparison = await comparePeers({
  dataset: datasetOfOptions('1000000'),
  engines: option('engines', 'aisle,flexsearch,scan').split(',') as EngineKey[],
  queries: Number(option('queries', '100')), budgetMs: 2500, warmup: Number(option('warmup', String(STEADY_WARMUP))), checkSample: 5, timeoutMs: 600_000,
  log: (line) => console.log(line),
});
for (const r of comparison.results) {
  console.log(`${r.name}: ${Object.entries(r.latency).map(([type, l]) => `${type} ${l!.median.toFixed(3)} / ${l!.p99.toFixed(1)} (n=${l!.n})`).join(', ')}`);
}
console.log(`agreement with the scan: ${JSON.stringify(comparison.agreement)}`);
