/**
 * CPU of the matching and top-k of the peers' text workload (`runPartial` over the whole catalog: no
 * payload, no bookkeeping) for two trees in ONE process: each tree's engine internals (its
 * packages/engine/dist/internal.js, imported at run time) hold the same generated catalog; each query's
 * plan runs `--reps` times on one side then the other (the side going first alternating), in three
 * rounds, and a query's time on a side is its best round (the machine is shared: the best is the
 * steadiest). Reports the quartiles, 90th percentile and mean over queries, the median of the per-query
 * ratio B / A, and how many queries' totals, pages or scores differ. Repeated searches, warm caches:
 * what matching costs when its postings are in cache (search-cpu-ab.ts `--fresh` measures searches
 * never asked before).
 *
 * Run: `node packages/bench/dist/ab/run-partial-ab.js --a /work/wt-base --b . [--products 100000] [--queries 2000] [--words N] [--reps 20]`
 * @module
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Catalog as CatalogType, compileSearchPlan as CompileType, runPartial as RunPartialType } from '@aisle/engine/internal';
import { option } from '../cli-option.js';
import { loadDataset } from '../datasets.js';
import { buildWorkload, ofWordCount } from '../workloads/index.js';
import { waitForIdle } from './idle.js';

interface Side {
  catalog: CatalogType;
  plans: ReturnType<typeof CompileType>['plan'][];
  runPartial: typeof RunPartialType;
}

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const products = Number(option('products', '100000'));
const queries = Number(option('queries', '2000'));
const words = Number(option('words', '0'));
const reps = Number(option('reps', '20'));
const ROUNDS = 3;

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * q)]!;
const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

async function main(): Promise<void> {
  const all = await loadDataset({ kind: 'generated', count: products, seed: 1 });
  const bodies = ofWordCount(buildWorkload(all.slice(0, 20_000), queries).text, words);
  const sides: Side[] = [];
  for (const root of roots) {
    const internal = await import(pathToFileURL(join(root, 'packages/engine/dist/internal.js')).href) as {
      Catalog: typeof CatalogType; compileSearchPlan: typeof CompileType; runPartial: typeof RunPartialType;
    };
    const catalog = new internal.Catalog();
    await catalog.upsert(all);
    sides.push({ catalog, plans: bodies.map((b) => internal.compileSearchPlan(catalog.state, b).plan), runPartial: internal.runPartial });
  }
  await waitForIdle();
  const best = sides.map(() => new Array<number>(bodies.length).fill(Infinity));
  let differing = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let q = 0; q < bodies.length; q++) {
      const answers: string[] = [];
      for (let k = 0; k < sides.length; k++) {
        const s = (k + q + round) % sides.length;
        const { catalog, plans, runPartial } = sides[s]!;
        const { index } = catalog.state;
        const c0 = process.cpuUsage();
        let result: ReturnType<typeof RunPartialType> | undefined;
        for (let r = 0; r < reps; r++) result = runPartial(index, plans[q]!, 0, index.docCount);
        const used = process.cpuUsage(c0);
        best[s]![q] = Math.min(best[s]![q]!, (used.user + used.system) / reps);
        answers[s] = JSON.stringify([result!.total, Array.from(result!.topDocs), Array.from(result!.topScores)]);
      }
      if (round === 0 && answers[0] !== answers[1]) differing++;
    }
  }
  const [a, b] = best as [number[], number[]];
  const row = (xs: number[]): string => `p25 ${quantile(xs, 0.25).toFixed(1)} median ${quantile(xs, 0.5).toFixed(1)} p75 ${quantile(xs, 0.75).toFixed(1)} p90 ${quantile(xs, 0.9).toFixed(1)} mean ${mean(xs).toFixed(1)}`;
  console.log(`${products.toLocaleString('en-US')} products, ${bodies.length} text queries${words > 0 ? ` of ${words} words` : ''} × ${reps} × ${ROUNDS} rounds per side (best round), load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`runPartial CPU µs: A ${row(a)}`);
  console.log(`runPartial CPU µs: B ${row(b)}`);
  console.log(`median of B / A per query ×${quantile(b.map((x, q) => x / a[q]!), 0.5).toFixed(2)}; mean B / A ×${(mean(b) / mean(a)).toFixed(2)}; results differing: ${differing} of ${bodies.length}`);
  console.log(`A: ${roots[0]}\nB: ${roots[1]}`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
