/**
 * CPU per `engine.search` of two trees in ONE process: each tree's engine (its packages/engine/dist,
 * imported at run time) holds the same generated catalog; every query of the peers' workload (the
 * request type `--type`) runs `--reps` times on one side then the other, the side going first
 * alternating per query, for two passes. Reports the median and mean over queries of the CPU time per
 * search (process.cpuUsage: steadier than wall time on a loaded machine, where the process waits for
 * a core), the wall-time median, and how many payloads differ between the sides (suggestions aside:
 * they follow each side's own search log). One process: the two sides share the collector and the
 * caches' warmth, which search-ab.ts (one process per side) does not.
 *
 * `--fresh`: queries as the peers run asks them (peers/child.ts): each side is warmed with the peers'
 * warm-up queries (another sample), then every query is asked once per side, in one pass — each
 * search is one the engine has not answered before (but for the workload's own repeats), so its page's
 * products are mostly decoded for the first time.
 *
 * `--words N`: only the queries of N words (as profile-search.ts filters them; 0, the default: all).
 *
 * Run: `node packages/bench/dist/ab/search-cpu-ab.js --a /work/wt-base --b . [--products 100000 | --dataset flipkart] [--queries 100] [--reps 20] [--type text] [--words N] [--fresh]`
 * @module
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { option } from '../cli-option.js';
import { datasetOfOptions, loadDataset } from '../datasets.js';
import { BENCH_WEBSITE } from '../peers/aisle.js';
import type { RequestType } from '../types.js';
import { buildWarmupWorkload, buildWorkload, ofWordCount } from '../workloads/index.js';
import { waitForIdle } from './idle.js';
import { createTreeEngine, type TreeEngine } from './tree-engine.js';


const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const queries = Number(option('queries', '100'));
const fresh = process.argv.includes('--fresh');
const reps = fresh ? 1 : Number(option('reps', '20'));
const passes = fresh ? 1 : 2;
const type = option('type', 'text') as RequestType;
/** Only the queries of this many words (0: all). */
const words = Number(option('words', '0'));
/** Untimed queries per side before the timed ones, as many as the peers run asks (`--warmup` there). */
const FRESH_WARMUP = 100;

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

async function main(): Promise<void> {
  const all = await loadDataset(datasetOfOptions('100000'));
  const bodies = ofWordCount(buildWorkload(all.slice(0, 20_000), queries)[type], words);
  const warmup = fresh ? buildWarmupWorkload(all.slice(0, 20_000), FRESH_WARMUP)[type] : bodies;
  const engines: TreeEngine[] = [];
  for (const root of roots) {
    const engine = await createTreeEngine(root);
    await engine.replaceProducts(BENCH_WEBSITE.websiteId, all);
    engines.push(engine);
  }
  await waitForIdle();
  for (const engine of engines) for (const body of warmup) await engine.search(body);
  const cpu: [number[], number[]] = [[], []];
  const wall: [number[], number[]] = [[], []];
  let differing = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (let q = 0; q < bodies.length; q++) {
      const answers: string[] = [];
      for (const side of (q + pass) % 2 === 0 ? [0, 1] : [1, 0]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        let answer: { payload: Record<string, unknown> } | undefined;
        for (let r = 0; r < reps; r++) answer = await engines[side]!.search(bodies[q]!);
        const used = process.cpuUsage(c0);
        wall[side]!.push((1000 * (performance.now() - t0)) / reps);
        cpu[side]!.push((used.user + used.system) / reps);
        answers[side] = JSON.stringify({ ...answer!.payload, suggestions: { ...(answer!.payload.suggestions as object), queries: undefined } });
      }
      if (answers[0] !== answers[1]) differing++;
    }
  }
  const [a, b] = cpu;
  console.log(`${all.length.toLocaleString('en-US')} products, ${type}, ${bodies.length} queries × ${reps} × ${passes} pass${passes === 1 ? '' : 'es'} per side${words > 0 ? ` (those of ${words} words)` : ''}${fresh ? ' (fresh: after the peers\' warm-up queries)' : ''}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`CPU µs per search: median A ${median(a).toFixed(1)} B ${median(b).toFixed(1)} (B / A ×${(median(b) / median(a)).toFixed(2)}); mean A ${mean(a).toFixed(1)} B ${mean(b).toFixed(1)} (×${(mean(b) / mean(a)).toFixed(2)})`);
  console.log(`wall µs per search: median A ${median(wall[0]).toFixed(1)} B ${median(wall[1]).toFixed(1)} (×${(median(wall[1]) / median(wall[0])).toFixed(2)})`);
  console.log(`payloads differing: ${differing} of ${passes * bodies.length}; load at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}\nA: ${roots[0]}\nB: ${roots[1]}`);
  for (const engine of engines) await engine.close();
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
