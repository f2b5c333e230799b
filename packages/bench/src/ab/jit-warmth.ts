/**
 * How much of the peers run's `text` median is V8 still compiling aisle's code: the peers' sequence
 * (peers/child.ts: the catalog loaded, the peers' 100 warm-up queries, then the 200 timed ones, each
 * asked once) on a fresh engine of one tree, in a fresh process, with the code cold as the peers run
 * has it, or first warmed by `--jit` searches on another engine of the same catalog (closed before the
 * fresh one is made: its derived lookups and decoded products are not the fresh engine's, only the
 * compiled code is shared). Prints the CPU median of the 200 per process; the variants alternate.
 * `--warm-products N`: the other engine holds only N products of the catalog (as an engine warming its
 * own code at start on a small catalog would; default: the whole catalog).
 *
 * Run: `node packages/bench/dist/ab/jit-warmth.js [--root .] [--products 100000] [--jit 3000] [--warm-products N] [--rounds 2]`
 * @module
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from '../cli-option.js';
import { datasetOfOptions, loadDataset } from '../datasets.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import { buildWarmupWorkload, buildWorkload } from '../workloads/index.js';
import { waitForIdle } from './idle.js';
import { createTreeEngine, type TreeEngine } from './tree-engine.js';


const root = resolve(option('root', '.'));
const jit = Number(option('jit', '3000'));
const rounds = Number(option('rounds', '2'));
const warmProducts = Number(option('warm-products', '0'));
/** Seed of the searches that warm the code (the peers' workload uses 42). */
const WARMING_SEED = 7;

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;

/** One process: the peers' sequence after `warming` searches on another engine; prints the CPU median in µs. */
async function child(warming: number): Promise<void> {
  const all = await loadDataset(datasetOfOptions('100000'));
  const sample = all.slice(0, 20_000);
  const start = async (products: readonly unknown[]): Promise<TreeEngine> => {
    const engine = await createTreeEngine(root);
    await engine.replaceProducts(BENCH_WEBSITE.websiteId, products);
    return engine;
  };
  if (warming > 0) {
    // A small catalog: products from the middle of the catalog (not the workload's sample), queries of its own.
    const small = warmProducts > 0 ? all.slice(all.length >> 1, (all.length >> 1) + warmProducts) : all;
    const other = await start(small);
    for (const body of buildWorkload(warmProducts > 0 ? small : sample, warming, WARMING_SEED).text) await other.search(body);
    await other.close();
  }
  const engine = await start(all);
  await waitForIdle();
  for (const body of buildWarmupWorkload(sample, 100).text) await engine.search(body);
  const cpu: number[] = [];
  for (const body of buildWorkload(sample, 200).text) {
    const c0 = process.cpuUsage();
    await engine.search(body);
    const used = process.cpuUsage(c0);
    cpu.push(used.user + used.system);
  }
  console.log(median(cpu).toFixed(0));
  await engine.close();
}

async function main(): Promise<void> {
  const warming = option('child', '');
  if (warming !== '') return child(Number(warming));
  const script = fileURLToPath(import.meta.url);
  const passOn = process.argv.slice(2).filter((_, i, args) => args[i] !== '--child' && args[i - 1] !== '--child');
  const results: Record<string, number[]> = { cold: [], warmed: [] };
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 === 0 ? ['cold', 'warmed'] : ['warmed', 'cold']) {
      const out = execFileSync(process.execPath, [script, ...passOn, '--child', variant === 'cold' ? '0' : String(jit)], { encoding: 'utf8' });
      results[variant]!.push(Number(out.trim().split('\n').at(-1)));
    }
  }
  console.log(`${root}: the peers' 200 text queries after their 100 warm-up ones, CPU µs median per search (per process), load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  code cold (as the peers run): ${results.cold!.join(', ')}`);
  console.log(`  code warmed by ${jit} searches on another engine${warmProducts > 0 ? ` of ${warmProducts} products` : ''} first: ${results.warmed!.join(', ')}`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
