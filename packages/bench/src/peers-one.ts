/**
 * The peers run on one generated catalog size only (the full run's `comparePeers`, its children and
 * checks), for a size the full run would take too long to reach on a loaded machine:
 *
 *   node packages/bench/dist/peers-one.js [--products 1000000] [--engines aisle,flexsearch,scan] [--queries 100] [--warmup 100]
 *
 * Prints each engine's line (median ms per request type) as the full run logs it, then median / p99 and
 * the totals' agreement with the plain scan.
 * @module
 */
import { comparePeers } from './peers/compare.js';
import type { EngineKey } from './peers/adapter.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const comparison = await comparePeers({
  dataset: { kind: 'generated', count: Number(option('products', '1000000')), seed: 1 },
  engines: option('engines', 'aisle,flexsearch,scan').split(',') as EngineKey[],
  queries: Number(option('queries', '100')), budgetMs: 2500, warmup: Number(option('warmup', '100')), checkSample: 5, timeoutMs: 600_000,
  log: (line) => console.log(line),
});
for (const r of comparison.results) {
  console.log(`${r.name}: ${Object.entries(r.latency).map(([type, l]) => `${type} ${l!.median.toFixed(2)} / ${l!.p99.toFixed(1)} (n=${l!.n})`).join(', ')}`);
}
console.log(`agreement with the scan: ${JSON.stringify(comparison.agreement)}`);
