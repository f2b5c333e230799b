/**
 * CPU of the proximity bonuses (engine search/proximity.ts `proximityBonuses`) of the peers' text
 * queries of several words, for two trees in ONE process: each tree's engine (its
 * packages/engine/dist, imported at run time) holds the same generated catalog; each query's bonuses
 * over its best 50 matches (the proximity window: what assemble-payload.ts re-ranks) are computed
 * `--reps` times on one side then the other (the side going first alternating), in three rounds, and a
 * query's time on a side is its best round. Reports the quartiles and mean over queries, the median
 * of the per-query ratio B / A, and how many queries' bonuses differ.
 *
 * Run: `node packages/bench/dist/ab/proximity-ab.js --a /work/wt-base --b . [--products 100000] [--queries 2000] [--reps 50]`
 * @module
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Catalog as CatalogType, compileSearchPlan as CompileType, runPartial as RunPartialType } from '@aisle/engine/internal';
import { option } from '../cli-option.js';
import { loadDataset } from '../datasets.js';
import { buildWorkload } from '../workloads/index.js';
import { waitForIdle } from './idle.js';

type Bonuses = (state: CatalogType['state'], docs: ArrayLike<number>, fieldWeights: readonly number[], termWords: ReadonlyMap<number, number>, words: number) => Float64Array;

interface Query {
  docs: Int32Array;
  fieldWeights: readonly number[];
  termWords: ReadonlyMap<number, number>;
  words: number;
}

interface Side {
  catalog: CatalogType;
  queries: Query[];
  proximityBonuses: Bonuses;
}

const roots = [resolve(option('a', '.')), resolve(option('b', '.'))];
const products = Number(option('products', '100000'));
const queryCount = Number(option('queries', '2000'));
const reps = Number(option('reps', '50'));
const ROUNDS = 3;
/** The proximity window (assemble-payload.ts): the best 50 are re-ranked. */
const WINDOW = 50;

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * q)]!;
const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

async function main(): Promise<void> {
  const all = await loadDataset({ kind: 'generated', count: products, seed: 1 });
  const bodies = buildWorkload(all.slice(0, 20_000), queryCount).text;
  const sides: Side[] = [];
  for (const root of roots) {
    const dist = join(root, 'packages/engine/dist');
    const internal = await import(pathToFileURL(join(dist, 'internal.js')).href) as {
      Catalog: typeof CatalogType; compileSearchPlan: typeof CompileType; runPartial: typeof RunPartialType;
    };
    const { proximityBonuses } = await import(pathToFileURL(join(dist, 'search/proximity.js')).href) as { proximityBonuses: Bonuses };
    const catalog = new internal.Catalog();
    await catalog.upsert(all);
    const queries: Query[] = [];
    for (const body of bodies) {
      const { plan, extras } = internal.compileSearchPlan(catalog.state, body);
      if (extras.termWords === undefined || plan.words.length < 2) continue;
      const { topDocs } = internal.runPartial(catalog.state.index, plan, 0, catalog.state.index.docCount);
      if (topDocs.length < 2) continue;
      queries.push({ docs: topDocs.slice(0, WINDOW), fieldWeights: plan.fieldWeights, termWords: extras.termWords, words: plan.words.length });
    }
    sides.push({ catalog, queries, proximityBonuses });
  }
  const n = Math.min(...sides.map((s) => s.queries.length));
  await waitForIdle();
  const best = sides.map(() => new Array<number>(n).fill(Infinity));
  let differing = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let q = 0; q < n; q++) {
      const answers: string[] = [];
      for (let k = 0; k < sides.length; k++) {
        const s = (k + q + round) % sides.length;
        const { catalog, queries, proximityBonuses } = sides[s]!;
        const { docs, fieldWeights, termWords, words } = queries[q]!;
        const c0 = process.cpuUsage();
        let bonuses: Float64Array | undefined;
        for (let r = 0; r < reps; r++) bonuses = proximityBonuses(catalog.state, docs, fieldWeights, termWords, words);
        const used = process.cpuUsage(c0);
        best[s]![q] = Math.min(best[s]![q]!, (used.user + used.system) / reps);
        answers[s] = JSON.stringify([Array.from(docs), Array.from(bonuses!)]);
      }
      if (round === 0 && answers[0] !== answers[1]) differing++;
    }
  }
  const [a, b] = best as [number[], number[]];
  const row = (xs: number[]): string => `p25 ${quantile(xs, 0.25).toFixed(2)} median ${quantile(xs, 0.5).toFixed(2)} p75 ${quantile(xs, 0.75).toFixed(2)} mean ${mean(xs).toFixed(2)}`;
  console.log(`${products.toLocaleString('en-US')} products, ${n} text queries of several words × ${reps} × ${ROUNDS} rounds per side (best round), load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`proximityBonuses CPU µs: A ${row(a)}`);
  console.log(`proximityBonuses CPU µs: B ${row(b)}`);
  console.log(`median of B / A per query ×${quantile(b.map((x, q) => x / a[q]!), 0.5).toFixed(2)}; mean B / A ×${(mean(b) / mean(a)).toFixed(2)}; bonuses differing: ${differing} of ${n}`);
  console.log(`A: ${roots[0]}\nB: ${roots[1]}`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
