/**
 * Where a never-asked search's time goes outside matching, measured in place: the peers' workload (one
 * request type) asked once per query on one tree's engine, after the peers' warm-up queries, with the
 * wall time of some of the engine's methods summed per search — the page's products read from the
 * store (`ProductStore.getMany`, or `get` per product on trees without it), the result list kept for
 * clicks (`ResultPages.record`: the signed id, whose HMAC `HmacSha256Key.signBytes` is also shown alone), the
 * search logged (`SearchLog.record`) and its completions (`SearchLog.suggestionsNow`, or `suggestions`
 * on trees without it). Prints the median per search of each and of the search's CPU.
 *
 * Why in place: a micro-benchmark of one of them runs it hot; a search runs it once, after its matching
 * has pushed what it reads out of the caches (an HMAC by node:crypto cost 2.5 µs in a loop and ~20 µs in
 * place, decision 0062). The timer's own cost (~0.1 µs a call) is in each figure; `get` is timed per product.
 *
 * Run: `node packages/bench/dist/ab/search-phases.js [--root <tree>] [--products 100000 | --dataset flipkart] [--queries 3000] [--type text]`
 * @module
 */
import { resolve } from 'node:path';
import { option } from '../cli-option.js';
import { datasetOfOptions, loadDataset } from '../datasets.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { RequestType } from '../types.js';
import { buildWarmupWorkload, buildWorkload } from '../workloads/index.js';
import { waitForIdle } from './idle.js';
import { createTreeEngine, importTreeEngineModule } from './tree-engine.js';


/** A class of the measured tree whose prototype's methods are timed. */
type Timed = { prototype: Record<string, unknown> };

const root = resolve(option('root', '.'));
const queries = Number(option('queries', '3000'));
const type = option('type', 'text') as RequestType;

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;

/** Wraps `cls.prototype[method]` so that its wall time (sync, or until its promise settles) adds to `phase.now`. */
function time(cls: Timed, method: string, phase: { now: number }): void {
  const plain = cls.prototype[method] as (...args: unknown[]) => unknown;
  cls.prototype[method] = function timed(this: unknown, ...args: unknown[]): unknown {
    const t0 = performance.now();
    const out = plain.apply(this, args);
    if (out instanceof Promise) return out.finally(() => { phase.now += performance.now() - t0; });
    phase.now += performance.now() - t0;
    return out;
  };
}

async function main(): Promise<void> {
  const load = (path: string) => importTreeEngineModule<Record<string, unknown>>(root, path);
  const { ProductStore } = await load('catalog/columns/product-store.js') as { ProductStore: Timed };
  const { ResultPages } = await load('clicks/result-pages.js') as { ResultPages: Timed };
  const { SearchLog } = await load('analytics/search-log.js') as { SearchLog: Timed };
  const { HmacSha256Key } = await load('util/hmac-sha256.js').catch(() => ({})) as { HmacSha256Key?: Timed };
  const all = await loadDataset(datasetOfOptions('100000'));
  const bodies = buildWorkload(all.slice(0, 20_000), queries)[type];
  const warmup = buildWarmupWorkload(all.slice(0, 20_000), 100)[type];
  const engine = await createTreeEngine(root);
  await engine.replaceProducts(BENCH_WEBSITE.websiteId, all);
  await waitForIdle();
  for (const body of warmup) await engine.search(body);
  const read = 'getMany' in ProductStore.prototype ? 'getMany' : 'get';
  // A search's completions: on its own turn where the tree has that path (decision 0067).
  const suggest = 'suggestionsNow' in SearchLog.prototype ? 'suggestionsNow' : 'suggestions';
  const phases: Record<string, { now: number }> = {};
  const timed = (cls: Timed, name: string, method: string): void => time(cls, method, (phases[`${name}.${method}`] = { now: 0 }));
  timed(ProductStore, 'ProductStore', read);
  timed(ResultPages, 'ResultPages', 'record');
  // The result list's signature, part of the record (trees whose HMAC is computed in JavaScript).
  if (HmacSha256Key !== undefined) timed(HmacSha256Key, 'HmacSha256Key', 'signBytes');
  timed(SearchLog, 'SearchLog', 'record');
  timed(SearchLog, 'SearchLog', suggest);
  const perSearch = new Map<string, number[]>(Object.keys(phases).map((name) => [name, []]));
  const cpu: number[] = [];
  for (const body of bodies) {
    for (const phase of Object.values(phases)) phase.now = 0;
    const c0 = process.cpuUsage();
    await engine.search(body);
    const used = process.cpuUsage(c0);
    cpu.push(used.user + used.system);
    for (const [name, phase] of Object.entries(phases)) perSearch.get(name)!.push(1000 * phase.now);
  }
  console.log(`${root}: ${all.length.toLocaleString('en-US')} products, ${bodies.length} ${type} queries asked once, load ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  search CPU median ${median(cpu).toFixed(0)} µs; wall µs per search, median: ${[...perSearch].map(([name, xs]) => `${name} ${median(xs).toFixed(1)}`).join(', ')}`);
  await engine.close();
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
