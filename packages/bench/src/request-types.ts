/**
 * aisle alone on a generated catalog, every request type of the peers run (the same workload, the same
 * seed): median and p99 per type, one request at a time after a short warm-up. For figures of one engine
 * when the whole peers run is too slow for the machine, and for A/B runs of two checkouts (run each
 * checkout's build of this file one after the other, in one session).
 *
 *   node packages/bench/dist/request-types.js [--products 1000000] [--queries 300] [--types a,b]
 * @module
 */
import { loadDataset } from './datasets.js';
import { createAdapter } from './peers/adapter.js';
import { summarize } from './stats.js';
import { REQUEST_TYPES, type RequestType } from './types.js';
import { buildWorkload } from './workloads/index.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const products = Number(option('products', '1000000'));
const queries = Number(option('queries', '300'));
const types = option('types', REQUEST_TYPES.join(',')).split(',') as RequestType[];
const spec = { kind: 'generated' as const, count: products, seed: 1 };
const workload = buildWorkload(await loadDataset(spec, 20_000), queries);
const adapter = await createAdapter('aisle');
const started = performance.now();
await adapter.build(await loadDataset(spec));
console.log(`aisle, generated ${products} products: build ${((performance.now() - started) / 1000).toFixed(1)} s`);
for (const type of types) {
  const list = workload[type];
  for (let i = 0; i < Math.min(5, list.length); i++) await adapter.search(list[list.length - 1 - i]!);
  const samples: number[] = [];
  for (const request of list) {
    const t = performance.now();
    await adapter.search(request);
    samples.push(performance.now() - t);
  }
  const { median, p99 } = summarize(samples);
  console.log(`${type.padEnd(20)} median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (n=${samples.length})`);
}
await adapter.close?.();
